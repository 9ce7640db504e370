"""A curriculum by distance for buried sources (issue 20, round 12).

A lava lake lies at y 4 to 10, 55 levels under the surface; emerald ore under extreme hills,
30 to 60. A pursuit of such a goal spends its first 1,500 steps digging down, so its last few
decisions (stop one block short of the lake, step beside it, face it and use the bucket) are a
handful of the expert's rows, and the policy learned to dig and not to stop: 11 of 12 of its
lava tries reached the lake and fell in (round 11).

`start_near_source` moves the agent of one world, at a pursuit's start, into a pocket a few
levels above that goal's nearest buried source (a cell carved to air over solid ground, a few
columns aside, no liquid beside it), so that the endings of these goals come in numbers. Only
the training data does this; the skill table and every episode start where the map spawns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld.sources import goal_sources, source_cells

BURIED = 12  # a source at least this many levels under the agent's feet counts as buried
LEVELS = (2, 8)  # a near start lies this many levels above the source (inclusive)
SPREAD = 3  # and up to this many columns aside of it, each way
TRIES = 64  # random pockets tried before giving up on one world
SIDES = np.array([(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)], np.int64)


def nearest_source(env: Any, i: int, goal: Any) -> np.ndarray | None:
    """World i's source cell of a mine goal nearest the agent (L1), as (x, y, z); None if none."""
    cells, _ = goal_sources(env, goal)
    xyz = source_cells(env, i, cells) if goal.action == "mine" and cells else np.zeros((0, 3), np.int64)
    if not len(xyz):
        return None
    return xyz[int(np.abs(xyz - env.pos[i]).sum(axis=1).argmin())]


def start_near_source(env: Any, i: int, goal: Any, rng: np.random.Generator) -> bool:
    """Move world i's agent into a pocket LEVELS above its goal's nearest source when that source
    is buried (BURIED levels or more below the agent); False, and nothing changed, otherwise."""
    src = nearest_source(env, i, goal)
    if src is None or int(env.pos[i, 1] - src[1]) < BURIED:
        return False
    cells, _ = goal_sources(env, goal)
    bound = np.array([env.X, env.H, env.Z])
    for _ in range(TRIES):
        off = np.array(
            [
                rng.integers(-SPREAD, SPREAD + 1),
                rng.integers(LEVELS[0], LEVELS[1] + 1),
                rng.integers(-SPREAD, SPREAD + 1),
            ]
        )
        p = src + off
        around = p + SIDES
        if (p < 1).any() or (p >= bound - 1).any():
            continue
        here, below = (int(c) for c in env.cells_at(np.array([i, i]), np.stack([p, p - SIDES[2]])))
        if here in cells or env.rules.liquid[here] or not env.rules.solid[below] or env.rules.liquid[below]:
            continue
        if env.rules.liquid[env.cells_at(np.full(6, i), around)].any():
            continue
        x, y, z = (int(v) for v in p)
        env.cells[i, x, z, y] = env.vocab.cell_id["air"]
        env.pos[i] = p
        env.mine_tgt[i], env.mine_prog[i] = -1, 0
        return True
    return False
