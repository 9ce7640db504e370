"""What the agent sees beyond its 9x9 local grid: a coarse egocentric map of its surroundings.

The local grid (spec.VIEW_RADIUS = 4 cells) shows what is at hand, but the sources a goal
needs are often 2 to 20 cells away, and DEPS's horizon predictor sees the observation in
which the target is visible. `around(env)` gives, for each world of a batched grid world,
the cells and mobs within RADIUS = 22 cells (on the same levels as the local grid), pooled
into POOL x POOL columns: uint8 [n, C, SIDE, SIDE], C = one channel per cell id, then one per
mob id (features.py's id layout), each the count of that kind in the pooled columns (0 to
POOL * POOL * levels). It is an observation (what is in view around the agent, the agent
at the centre), not the world's path distances (that is the `oracle` selector).

`faced(obs)` gives the ids of the cell and the mob the agent faces (where attack and use
act), read from the local grid.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld import spec

RADIUS = 22
POOL = 3
SIDE = (2 * RADIUS + 1) // POOL          # 15 pooled columns a side
KEY = "around"


def around(env: Any, rows: np.ndarray | None = None) -> np.ndarray:
    """uint8 [n, cells + mobs, SIDE, SIDE]: counts of each cell and mob kind in each pooled
    block of columns around the agent of each world (rows: which worlds; default all)."""
    rows = np.arange(env.n) if rows is None else np.asarray(rows)
    n = len(rows)
    n_cells, n_mobs = len(env.vocab.cells), len(env.vocab.mobs)
    C = n_cells + n_mobs
    off = np.arange(-RADIUS, RADIUS + 1)
    lv = np.array(spec.VIEW_LEVELS)
    pos = env.pos[rows]
    xs = pos[:, 0, None] + off                      # n, W
    zs = pos[:, 2, None] + off
    ys = pos[:, 1, None] + lv                       # n, L
    X, Z, Y = xs[:, None, None, :], zs[:, None, :, None], ys[:, :, None, None]
    inb = (X >= 0) & (X < env.X) & (Z >= 0) & (Z < env.Z) & (Y >= 0) & (Y < env.H)
    e = rows[:, None, None, None]
    ids = env.cells[e, np.clip(X, 0, env.X - 1), np.clip(Z, 0, env.Z - 1), np.clip(Y, 0, env.H - 1)]
    ids = np.where(inb, ids, spec.VOID).astype(np.int64)          # n, L, W(z), W(x)
    W = 2 * RADIUS + 1
    cz = np.minimum(np.arange(W) // POOL, SIDE - 1)              # pooled row / column of each offset
    flat = ((np.arange(n)[:, None, None, None] * C + ids) * SIDE + cz[None, None, :, None]) * SIDE \
        + cz[None, None, None, :]
    counts = np.bincount(flat.ravel(), minlength=n * C * SIDE * SIDE)
    # mobs: their own channels
    kind = env.mob_kind[rows].astype(np.int64)
    rel = env.mob_pos[rows] - pos[:, None, :]
    vis = ((kind > 0) & (np.abs(rel[..., 0]) <= RADIUS) & (np.abs(rel[..., 2]) <= RADIUS)
           & (rel[..., 1] >= lv[0]) & (rel[..., 1] <= lv[-1]))
    me, mm = np.nonzero(vis)
    if me.size:
        r = rel[me, mm]
        mflat = ((me * C + n_cells + kind[me, mm]) * SIDE + cz[r[:, 2] + RADIUS]) * SIDE + cz[r[:, 0] + RADIUS]
        counts += np.bincount(mflat, minlength=n * C * SIDE * SIDE)
    return np.minimum(counts, 255).astype(np.uint8).reshape(n, C, SIDE, SIDE)


def observe(world: Any) -> dict:
    """One grid world's observation (a GridWorld, or a view of a batched world) with its
    surroundings map under KEY."""
    obs = dict(world.observation())
    obs[KEY] = around(world.env, np.array([world.i]))[0]
    return obs


def observe_batch(env: Any) -> dict:
    """The batched world's observation with the surroundings map of every world under KEY."""
    obs = env.observe()
    obs[KEY] = around(env)
    return obs


def faced(obs: dict[str, Any]) -> np.ndarray:
    """int64 [n, 2]: (cell id, mob id) of the cell the agent faces, from the local grid."""
    blocks, mobs = np.asarray(obs["blocks"]), np.asarray(obs["mobs"])
    if blocks.ndim == 3:
        blocks, mobs = blocks[None], mobs[None]
    n = blocks.shape[0]
    f = np.asarray(obs["facing"]).reshape(n).astype(np.int64)
    vec = np.array(spec.FACING_VECTORS)[f]                         # n, 3 (dx, dy, dz)
    R, level0 = spec.VIEW_RADIUS, spec.VIEW_LEVELS.index(0)
    li, zi, xi = level0 + vec[:, 1], R + vec[:, 2], R + vec[:, 0]
    e = np.arange(n)
    return np.stack([blocks[e, li, zi, xi], mobs[e, li, zi, xi]], axis=1).astype(np.int64)
