"""A text picture of the agent's surroundings (for `deps run --world gridworld --render`).

Top-down, north up: each cell shows the highest thing at the agent's level or one above
(mobs first), else what it would stand on one level below; '@' is the agent, and the line
under the picture says where it is, what it faces, the time and its health.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld.spec import FACINGS, VIEW_RADIUS

GLYPHS = {
    "air": " ",
    "void": "#",
    "bedrock": "B",
    "stone": "s",
    "dirt": ".",
    "grass_block": ",",
    "sand": ":",
    "gravel": "%",
    "sandstone": ";",
    "clay": "c",
    "water": "~",
    "lava": "L",
    "coal_ore": "k",
    "iron_ore": "i",
    "gold_ore": "g",
    "redstone_ore": "r",
    "lapis_ore": "l",
    "diamond_ore": "D",
    "emerald_ore": "E",
    "grass": '"',
    "dandelion": "*",
    "poppy": "*",
    "dead_bush": "'",
    "cactus": "+",
    "sugar_cane": "|",
    "pumpkin": "o",
    "netherrack": "n",
    "nether_quartz_ore": "q",
    "crafting_table": "T",
    "furnace": "F",
    "cobblestone": "=",
    "snow_layer": "_",
    "sunflower": "*",
    "lilac": "*",
    "rose_bush": "*",
    "peony": "*",
    "tall_grass": '"',
    "large_fern": '"',
    "tall_plant_top": '"',
    "farmland": "-",
    "wheat": "v",
    "wheat_ripe": "Y",
}
MOB_GLYPHS = {"cow": "C", "sheep": "S", "pig": "P", "chicken": "H", "spider": "X", "zombie": "Z"}


def glyph(cell: str) -> str:
    if cell.endswith("_log"):
        return "W"
    if cell.endswith("_leaves"):
        return "&"
    return GLYPHS.get(cell, "?")


def render(env: Any, i: int, radius: int = VIEW_RADIUS) -> str:
    v = env.vocab
    x0, y0, z0 = (int(c) for c in env.pos[i])
    rows = []
    for z in range(z0 - radius, z0 + radius + 1):
        row = []
        for x in range(x0 - radius, x0 + radius + 1):
            if (x, z) == (x0, z0):
                row.append("@")
                continue
            if not (0 <= x < env.X and 0 <= z < env.Z):
                row.append("#")
                continue
            here = (
                (env.mob_kind[i] > 0)
                & (env.mob_pos[i, :, 0] == x)
                & (env.mob_pos[i, :, 2] == z)
                & (np.abs(env.mob_pos[i, :, 1] - y0) <= 1)
            )
            if here.any():
                row.append(MOB_GLYPHS.get(v.mobs[int(env.mob_kind[i][here][0])], "M"))
                continue
            col = env.cells[i, x, z]
            shown = " "
            for y in (y0 + 1, y0, y0 - 1):
                if 0 <= y < env.H and col[y] != 0:
                    shown = glyph(v.cells[int(col[y])])
                    break
            row.append(shown)
        rows.append("".join(row))
    t = "night" if bool(env.night()[i]) else "day"
    rows.append(
        f"at ({x0}, {y0}, {z0}) {env.biome_name(i)}, facing {FACINGS[int(env.facing[i])]}, {t}, "
        f"health {env.health[i]:.0f}, step {int(env.steps[i])}"
    )
    return "\n".join(rows)
