"""Leaf decay: leaves that no log reaches any more decay a while later and drop what breaking
them by hand would (an oak leaf's sapling or apple) on the ground, where ground.py lets them
fall and the agent pick them up (worlds/data/gridworld.yaml `leaf_decay:`, with sources).

When a log or a leaf is broken, the leaves around it are looked at again: a leaf decays when
no log lies within the version's range along a path of leaves (4 steps before Java Edition
1.13, 6 from it).  Each such leaf gets a time drawn from the random ticks that would reach
it.  State (owned by BatchGridWorld): decay_pos int64 [n, D, 3], decay_in int64 [n, D] (steps
left; -1: the slot is free).  Its own random stream (`decay_rng`), so the other draws of a
world are the same as before leaves decayed.  A log placed back beside a doomed leaf does
not save it (the game would look again; a task has no use for it).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from worlds.gridworld import ground
from worlds.gridworld.spec import AIR, game_data

MAX_DECAYING = 512  # leaves waiting to decay in one world: a felled tree has about 65


def _data() -> dict:
    return game_data()["leaf_decay"]


@cache
def _kinds(vocab: Any) -> tuple[np.ndarray, np.ndarray]:
    """(bool [C] log cells, bool [C] leaf cells) of the trees the world grows."""
    logs, leaves = np.zeros(len(vocab.cells), bool), np.zeros(len(vocab.cells), bool)
    for t in game_data()["trees"].values():
        logs[vocab.cell_id[t["log"]]] = True
        leaves[vocab.cell_id[t["leaves"]]] = True
    return logs, leaves


def tree_logs(vocab: Any) -> np.ndarray:
    """bool [C]: the cells that are a tree's logs."""
    return _kinds(vocab)[0]


def reach(kb: Any) -> int:
    """How far along leaves a log keeps them, in this knowledge base's version."""
    return int(_data()["range_legacy" if kb.era == "legacy" else "range_modern"])


def init(env: Any) -> None:
    env.decay_pos = np.zeros((env.n, MAX_DECAYING, 3), np.int64)
    env.decay_in = np.full((env.n, MAX_DECAYING), -1, np.int64)
    env.decay_rng = np.random.default_rng(0)


def reset_one(env: Any, i: int) -> None:
    env.decay_in[i] = -1
    env.decay_rng = np.random.default_rng([int(s) for s in env.seeds] + [0xDECA])


def on_break(env: Any, e: np.ndarray, at: np.ndarray, broken: np.ndarray) -> None:
    """Worlds e broke the cells `broken` at `at` [k, 3]: where one was a log or a leaf,
    the leaves it may have held up are looked at again."""
    logs, leaves = _kinds(env.vocab)
    hit = logs[broken] | leaves[broken]
    for i, p in zip(e[hit].tolist(), at[hit]):
        _look_again(env, int(i), p)


def _look_again(env: Any, i: int, p: np.ndarray) -> None:
    logs, leaves = _kinds(env.vocab)
    r = reach(env.kb)
    x0, x1 = max(0, p[0] - 2 * r), min(env.X, p[0] + 2 * r + 1)
    z0, z1 = max(0, p[2] - 2 * r), min(env.Z, p[2] + 2 * r + 1)
    y0, y1 = max(0, p[1] - 2 * r), min(env.H, p[1] + 2 * r + 1)
    box = env.cells[i, x0:x1, z0:z1, y0:y1]  # [x, z, y]
    leaf = leaves[box]
    if not leaf.any():
        return
    held = logs[box]
    for _ in range(r):  # one step along leaves at a time
        grown = held.copy()
        grown[1:] |= held[:-1]
        grown[:-1] |= held[1:]
        grown[:, 1:] |= held[:, :-1]
        grown[:, :-1] |= held[:, 1:]
        grown[:, :, 1:] |= held[:, :, :-1]
        grown[:, :, :-1] |= held[:, :, 1:]
        held = held | (grown & leaf)
    near = np.zeros_like(leaf)  # only the leaves the broken cell could have held up
    near[
        max(0, p[0] - r - x0) : p[0] + r + 1 - x0,
        max(0, p[2] - r - z0) : p[2] + r + 1 - z0,
        max(0, p[1] - r - y0) : p[1] + r + 1 - y0,
    ] = True
    doomed = np.argwhere(leaf & ~held & near) + np.array([x0, z0, y0])
    if not doomed.size:
        return
    doomed = doomed[:, [0, 2, 1]]  # (x, y, z)
    live = env.decay_in[i] >= 0
    if live.any():  # already waiting: keep their times
        waiting = {tuple(q) for q in env.decay_pos[i][live].tolist()}
        doomed = np.array([q for q in doomed.tolist() if tuple(q) not in waiting], np.int64).reshape(-1, 3)
    free = np.nonzero(~live)[0][: len(doomed)]
    doomed = doomed[: len(free)]
    env.decay_pos[i, free] = doomed
    env.decay_in[i, free] = env.decay_rng.geometric(1.0 / float(_data()["mean_steps"]), size=len(free))


def step(env: Any, cost: np.ndarray) -> None:
    """Count down; the leaves whose time has come turn to air and drop their chance items."""
    if not env.decay_in.size or env.decay_in.max() < 0:  # none waiting (one pass, no mask: about twice as fast)
        return
    live = env.decay_in >= 0
    np.subtract(env.decay_in, cost[:, None], out=env.decay_in, where=live)
    due = live & (env.decay_in <= 0)
    if not due.any():
        return
    _, leaves = _kinds(env.vocab)
    chance = env.rules.chance
    for i, s in zip(*np.nonzero(due)):
        env.decay_in[i, s] = -1
        x, y, z = (int(v) for v in env.decay_pos[i, s])
        c = int(env.cells[i, x, z, y])
        if not leaves[c]:
            continue  # broken by the agent meanwhile
        env.cells[i, x, z, y] = AIR
        for it, p in chance[c]:
            if env.decay_rng.random() < p:
                ground.drop(env, int(i), (x, y, z), it)
