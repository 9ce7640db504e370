"""Tall plants (sunflowers, lilacs, rose bushes, peonies, double tallgrass, large ferns): two cells
high, the plant on the ground and its upper half above it (gridworld.yaml `cells:` rows with
`upper:`).  Where they grow, in patches (`grow`, the biomes' `tall_plants:`), and how they break
(`break_both`): breaking either half breaks the other too and gives the lower half's drop, once,
as the game's double_plant does."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from worlds.gridworld.spec import AIR, game_data


@cache
def halves(cells: tuple[str, ...]) -> tuple[np.ndarray, int]:
    """(bool [C]: the cell kinds that are a tall plant's lower half, the upper half's cell id; -1 when none)."""
    rows = {r["name"]: r for r in game_data()["cells"]}
    lower = np.array([bool(rows.get(c, {}).get("upper")) for c in cells])
    tops = {rows[c]["upper"] for c in cells if rows.get(c, {}).get("upper")}
    return lower, (cells.index(tops.pop()) if tops else -1)


def grow(rng: np.random.Generator, cells: np.ndarray, h: np.ndarray, bmap, names, cid, spawn: tuple[int, int]) -> None:
    """Each biome's `tall_plants` (patches a chunk), from their own stream `rng`: a patch is
    `tall_plant_patch`'s tries around a column of the biome, each on grass or dirt with two cells of
    air above, never on the spawn's column."""
    d = game_data()
    patch = d["tall_plant_patch"]
    X, Z, H = cells.shape
    ground = (cid["grass_block"], cid["dirt"])
    top = cid[next(r["upper"] for r in d["cells"] if r.get("upper"))]
    for bi, b in enumerate(names):
        plants = d["biomes"][b].get("tall_plants") or {}
        cols = np.argwhere(bmap == bi)
        if not plants or len(cols) == 0:
            continue
        for plant, per_chunk in plants.items():
            for _ in range(int(rng.poisson(per_chunk * len(cols) / 256.0))):
                cx, cz = cols[rng.integers(len(cols))]
                s = int(patch["spread"]) + 1
                off = rng.integers(0, s, size=(int(patch["tries"]), 4))
                lands = rng.random(int(patch["tries"])) < float(patch["lands"])
                for (a, b_, c, e), ok in zip(off.tolist(), lands.tolist()):
                    x, z = int(cx) + a - b_, int(cz) + c - e
                    if not ok or not (0 <= x < X and 0 <= z < Z) or (x, z) == tuple(spawn):
                        continue
                    y = int(h[x, z])
                    if y + 2 < H and cells[x, z, y] in ground and cells[x, z, y + 1] == 0 and cells[x, z, y + 2] == 0:
                        cells[x, z, y + 1], cells[x, z, y + 2] = cid[plant], top


def break_both(env: Any, e: np.ndarray, p: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Worlds `e` broke cells `c` at `p` (x, y, z): a tall plant's other half is cleared too.  Returns
    the cells whose drops the breaks give: the lower half's kind where an upper half was broken."""
    lower, top = halves(env.vocab.cells)
    tall = np.nonzero(lower[c] | (c == top))[0]
    if tall.size == 0:
        return c
    c = c.copy()
    for k in tall.tolist():
        i, (x, y, z) = int(e[k]), (int(v) for v in p[k])
        if c[k] == top:
            below = int(env.cells[i, x, z, y - 1]) if y > 0 else AIR
            if lower[below]:
                env.cells[i, x, z, y - 1] = AIR
                c[k] = below
        elif y + 1 < env.H and env.cells[i, x, z, y + 1] == top:
            env.cells[i, x, z, y + 1] = AIR
    return c
