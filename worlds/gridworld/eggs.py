"""Eggs: chickens lay them, they lie on the ground until they despawn, and the agent picks
one up by coming within reach of it (worlds/data/gridworld.yaml `eggs:`, with sources).

State (owned by BatchGridWorld): egg_pos int64 [n, E, 3], egg_age int64 [n, E] (-1: no egg),
lay_in int64 [n, MAX_MOBS] (steps until the mob in that slot lays, if it is a chicken).
Their own random stream (`egg_rng`), so the map's and the mobs' draws are the same as
before eggs were laid.  Eggs are not in the observation arrays (spec.py is frozen): the
scripted expert reads `egg_pos`; `ground_items` is what it and `goal_distance` ask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld.spec import game_data

MAX_EGGS = 16


def _data() -> dict:
    return game_data()["eggs"]


def init(env: Any) -> None:
    n, m = env.n, env.mob_kind.shape[1]
    env.egg_pos = np.zeros((n, MAX_EGGS, 3), np.int64)
    env.egg_age = np.full((n, MAX_EGGS), -1, np.int64)
    env.lay_in = np.zeros((n, m), np.int64)
    env.egg_rng = np.random.default_rng(0)


def reset_one(env: Any, i: int, seed: int) -> None:
    """A world that has been running: timers mid-cycle, and some eggs already lying about."""
    d = _data()
    rng = np.random.default_rng([int(seed), 0xE66])
    env.egg_rng = np.random.default_rng([int(s) for s in env.seeds] + [0xE66])
    env.egg_age[i] = -1
    hi = int(d["lay_steps"][1])
    env.lay_in[i] = rng.integers(0, hi + 1, size=env.lay_in.shape[1])
    chicken = env.vocab.mob_id.get("chicken")
    mean = float(sum(d["lay_steps"])) / 2
    for s in np.nonzero(env.mob_kind[i] == chicken)[0] if chicken is not None else []:
        if rng.random() < float(d["despawn_steps"]) / mean:
            _lay(env, i, env.mob_pos[i, s], int(rng.integers(0, int(d["despawn_steps"]))))


def _lay(env: Any, i: int, at: np.ndarray, age: int = 0) -> None:
    free = np.nonzero(env.egg_age[i] < 0)[0]
    if free.size:
        env.egg_pos[i, free[0]] = at
        env.egg_age[i, free[0]] = age


def step(env: Any, cost: np.ndarray, events: dict) -> None:
    """Age and despawn eggs, let chickens lay, and give the agent the eggs within reach."""
    d = _data()
    np.add(env.egg_age, cost[:, None], out=env.egg_age, where=env.egg_age >= 0)
    env.egg_age[env.egg_age >= int(d["despawn_steps"])] = -1
    chicken = env.vocab.mob_id.get("chicken")
    if chicken is not None:
        env.lay_in -= cost[:, None]
        due = (env.mob_kind == chicken) & (env.lay_in <= 0)
        if due.any():
            for i, s in zip(*np.nonzero(due)):
                _lay(env, int(i), env.mob_pos[i, s])
        lo, hi = (int(x) for x in d["lay_steps"])
        reset = env.lay_in <= 0
        if reset.any():
            env.lay_in[reset] = env.egg_rng.integers(lo, hi + 1, size=int(reset.sum()))
    live = env.egg_age >= 0
    if not live.any():
        return
    r = int(d["pickup_reach"])
    rel = np.abs(env.egg_pos - env.pos[:, None, :])
    got = live & (rel[..., 0] <= r) & (rel[..., 2] <= r) & (rel[..., 1] <= 1) & ~env.dead[:, None]
    egg = env.vocab.item_id.get("egg")
    if egg is None:
        return
    for i in np.nonzero(got.any(axis=1))[0]:
        k = int(got[i].sum())
        env.egg_age[i][got[i]] = -1
        env.inv[i, egg] += k
        ev = events.setdefault(int(i), {})
        ev["gained"] = {**(ev.get("gained") or {}), "egg": (ev.get("gained") or {}).get("egg", 0) + k}


def ground_items(env: Any, i: int, item: str) -> list[tuple[int, int, int]]:
    """Positions of `item` lying on the ground in world i (eggs)."""
    if item != "egg":
        return []
    live = env.egg_age[i] >= 0
    return [(int(p[0]), int(p[1]), int(p[2])) for p in env.egg_pos[i][live]]
