"""Eggs: chickens lay them, and they lie on the ground (ground.py) until they despawn or the
agent picks one up (worlds/data/gridworld.yaml `eggs:`, with sources).

State (owned by BatchGridWorld): lay_in int64 [n, MAX_MOBS] (steps until the mob in that
slot lays, if it is a chicken).  Their own random stream (`egg_rng`), so the map's and the
mobs' draws are the same as before eggs were laid.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld import ground
from worlds.gridworld.spec import game_data


def _data() -> dict:
    return game_data()["eggs"]


def init(env: Any) -> None:
    env.lay_in = np.zeros((env.n, env.mob_kind.shape[1]), np.int64)
    env.egg_rng = np.random.default_rng(0)


def reset_one(env: Any, i: int, seed: int) -> None:
    """A world that has been running: timers mid-cycle, and some eggs already lying about."""
    d = _data()
    rng = np.random.default_rng([int(seed), 0xE66])
    env.egg_rng = np.random.default_rng([int(s) for s in env.seeds] + [0xE66])
    hi = int(d["lay_steps"][1])
    env.lay_in[i] = rng.integers(0, hi + 1, size=env.lay_in.shape[1])
    chicken, egg = env.vocab.mob_id.get("chicken"), env.vocab.item_id.get("egg")
    mean = float(sum(d["lay_steps"])) / 2
    despawn = int(game_data()["ground"]["despawn_steps"])
    for s in np.nonzero(env.mob_kind[i] == chicken)[0] if chicken is not None and egg is not None else []:
        if rng.random() < despawn / mean:
            ground.drop(env, i, env.mob_pos[i, s], egg, int(rng.integers(0, despawn)))


def step(env: Any, cost: np.ndarray) -> None:
    """Let the chickens that are due lay an egg where they stand."""
    chicken, egg = env.vocab.mob_id.get("chicken"), env.vocab.item_id.get("egg")
    if chicken is None or egg is None:
        return
    env.lay_in -= cost[:, None]
    reset = env.lay_in <= 0  # (the drops below leave the timers as they are)
    due = (env.mob_kind == chicken) & reset
    if due.any():
        for i, s in zip(*np.nonzero(due)):
            ground.drop(env, int(i), env.mob_pos[i, s], egg)
    lo, hi = (int(x) for x in _data()["lay_steps"])
    if reset.any():
        env.lay_in[reset] = env.egg_rng.integers(lo, hi + 1, size=int(reset.sum()))
