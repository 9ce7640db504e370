"""Hand-built scenario maps for tests and experiments (reset(options={"layout": {...}})).

    {"ground": 64, "fill": "stone", "surface": "grass_block", "biome": "plains",
     "blocks": [[x, y, z, "oak_log"], ...], "mobs": [[x, y, z, "cow"], ...], "agent": [x, y, z]}

`ground` is the top solid level (the agent stands at ground + 1); below the surface block
come three levels of dirt, then `fill` down to bedrock at y 0.  Names are cell and mob
names of the vocabulary (spec.py); a bad name or position gets one GridWorldError line.
"""

from __future__ import annotations

import numpy as np

from worlds.gridworld.generation import Map
from worlds.gridworld.spec import HEIGHT, GridWorldError, Vocab


def build_layout(layout: dict, vocab: Vocab, size: tuple[int, int]) -> Map:
    if not isinstance(layout, dict):
        raise GridWorldError("layout must be an object: {ground, fill, surface, blocks, mobs, agent}")
    X, Z = size
    cid = vocab.cell_id

    def cell(name: str) -> int:
        if name not in cid:
            raise GridWorldError(f"unknown cell {name!r} in the layout; accepted: {', '.join(vocab.cells)}")
        return cid[name]

    def inside(x: int, y: int, z: int, what: str) -> tuple[int, int, int]:
        if not (0 <= x < X and 0 <= z < Z and 0 <= y < HEIGHT):
            raise GridWorldError(f"{what} at {[x, y, z]} is outside the {X}x{HEIGHT}x{Z} map")
        return int(x), int(y), int(z)

    ground = int(layout.get("ground", 64))
    if not 1 <= ground < HEIGHT - 3:
        raise GridWorldError(f"layout ground {ground} out of range; accepted: 1 to {HEIGHT - 4}")
    cells = np.zeros((X, Z, HEIGHT), np.uint8)
    cells[:, :, 1:ground] = cell(layout.get("fill", "stone"))
    cells[:, :, max(1, ground - 3) : ground] = cell("dirt")
    cells[:, :, ground] = cell(layout.get("surface", "grass_block"))
    cells[:, :, 0] = cell("bedrock")
    for x, y, z, name in layout.get("blocks", []):
        x, y, z = inside(x, y, z, name)
        cells[x, z, y] = cell(name)
    biome = layout.get("biome", "plains")
    if biome not in vocab.biome_id:
        raise GridWorldError(f"unknown biome {biome!r}; accepted: {', '.join(vocab.biomes)}")
    mobs = []
    for x, y, z, name in layout.get("mobs", []):
        if name not in vocab.mob_id or name == "none":
            raise GridWorldError(f"unknown mob {name!r} in the layout; accepted: {', '.join(vocab.mobs[1:])}")
        mobs.append((vocab.mob_id[name], *inside(x, y, z, name)))
    ax, ay, az = layout.get("agent", [X // 2, ground + 1, Z // 2])
    agent = inside(ax, ay, az, "agent")
    return Map(cells, np.full((X, Z), vocab.biome_id[biome], np.uint8), mobs, agent)
