"""Items lying on the ground: the eggs chickens lay (eggs.py) and what decaying leaves drop
(decay.py).  They fall to rest on the first block that holds them, despawn after a while,
and the agent picks one up by coming within reach of it (worlds/data/gridworld.yaml
`ground:`, with sources).

State (owned by BatchGridWorld): ground_pos int64 [n, G, 3] (x, y, z), ground_item int64
[n, G] (item id), ground_age int64 [n, G] (steps on the ground; -1: the slot is free).
These are not in the observation arrays (spec.py is frozen): the scripted expert, the
learned policy's target map and `goal_distance` ask `ground_items`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld.spec import game_data

MAX_ITEMS = 64
UP = np.array([0, 1, 0], np.int64)


def _data() -> dict:
    return game_data()["ground"]


def init(env: Any) -> None:
    n = env.n
    env.ground_pos = np.zeros((n, MAX_ITEMS, 3), np.int64)
    env.ground_item = np.zeros((n, MAX_ITEMS), np.int64)
    env.ground_age = np.full((n, MAX_ITEMS), -1, np.int64)


def reset_one(env: Any, i: int) -> None:
    env.ground_age[i] = -1


def drop(env: Any, i: int, at: Any, item: int, age: int = 0) -> bool:
    """One `item` (an item id) put down at `at` in world i; False when no slot is free
    (the game caps nothing, but a full batch of 64 is far beyond what a task leaves about)."""
    free = np.nonzero(env.ground_age[i] < 0)[0]
    if not free.size:
        return False
    env.ground_pos[i, free[0]] = at
    env.ground_item[i, free[0]] = item
    env.ground_age[i, free[0]] = age
    return True


def age(env: Any, cost: np.ndarray) -> None:
    """Age every item by the step's cost; those on the ground their time are gone."""
    env.ground_age += (env.ground_age >= 0) * cost[:, None]  # (free slots add 0; numpy's where= is slower)
    despawn = int(_data()["despawn_steps"])
    if env.ground_age.max(initial=-1) >= despawn:  # (one pass where none is due)
        env.ground_age[env.ground_age >= despawn] = -1


def settle_and_pick_up(env: Any, events: dict) -> None:
    """Items with nothing under them fall (a leaf below them decayed); then the agent takes
    the ones within reach."""
    live = env.ground_age >= 0
    if not live.any():
        return
    # the live slots by flat index, their positions gathered with `take` (numpy's fancy row
    # gathers are several times slower, issue 21)
    G, pos3 = live.shape[1], env.ground_pos.reshape(-1, 3)
    f0 = np.flatnonzero(live)
    e0, s0 = np.divmod(f0, G)
    f = f0
    for _ in range(env.H):
        p = np.take(pos3, f, axis=0)
        below = env.cells_at(f // G, p - UP)
        fall = env.rules.passable[below] & (p[:, 1] > 0)
        if not fall.any():
            break
        f = f[fall]
        pos3[f, 1] -= 1
    r = int(_data()["pickup_reach"])
    rel = np.abs(np.take(pos3, f0, axis=0) - np.take(env.pos, e0, axis=0))  # the items lying about only
    near = (rel[:, 0] <= r) & (rel[:, 2] <= r) & (rel[:, 1] <= 1) & ~env.dead[e0]
    if not near.any():
        return
    got = np.zeros_like(live)
    got[e0[near], s0[near]] = True
    for i in np.unique(e0[near]):
        ev = events.setdefault(int(i), {})
        gained = dict(ev.get("gained") or {})
        for it in env.ground_item[i][got[i]].tolist():
            env.inv[i, it] += 1
            name = env.vocab.items[it]
            gained[name] = gained.get(name, 0) + 1
        env.ground_age[i][got[i]] = -1
        ev["gained"] = gained


def ground_items(env: Any, i: int, item: str) -> list[tuple[int, int, int]]:
    """Positions of `item` (or any of its variants) lying on the ground in world i."""
    if not (env.ground_age[i] >= 0).any():
        return []
    names = set(env.kb.variants(item) or [item]) | {item}
    ids = [env.vocab.item_id[x] for x in names if x in env.vocab.item_id]
    live = (env.ground_age[i] >= 0) & np.isin(env.ground_item[i], ids)
    return [(int(p[0]), int(p[1]), int(p[2])) for p in env.ground_pos[i][live]]
