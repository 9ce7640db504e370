"""A digest of the batched grid world's whole trajectory (issue 21): every array and random
stream of `BatchGridWorld`, and every observation, reward, end flag and event, over a fixed
stream of actions, for batches of worlds started at dawn, at dusk and near the night's end. A change made for speed
alone must leave it as it was (tests/test_grid_trajectory.py holds the recorded digest).

    python -m experiments.grid_hash [--worlds 64] [--steps 300]
"""

from __future__ import annotations

import argparse
import hashlib
from typing import Any

import numpy as np

from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.spec import PRIMITIVES

SKIP = {"kb", "vocab", "rules"}  # fixed tables, not state
MOBS = ["cow", "sheep", "pig", "chicken", "spider", "zombie"]
START = ("day", "night", 0.93)  # dawn; dusk; the night's end, so that the sunrise burns its hostiles


def _update(h: Any, v: Any) -> None:
    if isinstance(v, np.ndarray):
        h.update(repr((v.dtype.str, v.shape)).encode())
        h.update(np.ascontiguousarray(v).tobytes())
    elif isinstance(v, np.random.Generator):
        h.update(repr(v.bit_generator.state).encode())
    elif isinstance(v, dict):
        for k in sorted(v, key=repr):
            h.update(repr(k).encode())
            _update(h, v[k])
    elif isinstance(v, (list, tuple)):
        h.update(f"[{len(v)}".encode())
        for x in v:
            _update(h, x)
    else:
        h.update(repr(v).encode())


def state_digest(env: BatchGridWorld, h: Any) -> None:
    """Every attribute of the batch (its arrays, random streams, lists), in name order; the
    private ones (a leading underscore: fixed sizes, caches of views) aside."""
    for name in sorted(vars(env)):
        if name not in SKIP and not name.startswith("_"):
            h.update(name.encode())
            _update(h, getattr(env, name))


def edge_layout(seed: int, size: int = 12) -> dict:
    """A small map whose ground is one above bedrock, with holes, pillars, water and a crowd of
    mobs up to its rim: the mobs' reads past the map's edge and below its floor (VOID)."""
    rng = np.random.default_rng(seed)
    blocks = []
    for x, z in rng.integers(0, size, (30, 2)).tolist():
        kind = ("air", "stone", "water", "dirt")[int(rng.integers(4))]
        blocks += [[x, 1, z, kind]] if kind in ("air", "water") else [[x, 2, z, kind], [x, 3, z, kind]]
    mobs = [[x, 2, z, m] for (x, z), m in zip(rng.integers(0, size, (24, 2)).tolist(), MOBS * 4)]
    mobs += [[0, 2, z, "zombie"] for z in (0, size // 2, size - 1)] + [[size - 1, 2, 0, "cow"]]
    return {"ground": 1, "blocks": blocks, "mobs": mobs, "agent": [int(rng.integers(size)), 2, 0]}


def trajectory_digest(worlds: int = 64, steps: int = 300, every: int = 10) -> str:
    """sha1 of a day, a night and a night's-end batch, and small low maps at night, each stepped `steps` times each with a fixed stream: the
    bench's random primitives 0..9 without an item in most steps, and every primitive with a random
    item now and then; the full state is hashed every `every` steps and at the end."""
    h = hashlib.sha1()
    for k, start in enumerate((*START, "edge")):
        if start == "edge":  # a quarter of the worlds on small low maps, from dusk
            env = BatchGridWorld(worlds // 4, size=(12, 12))
            env.reset([0] * env.n, [{"layout": edge_layout(i), "time_of_day": "night"} for i in range(env.n)])
        else:
            env = BatchGridWorld(worlds)
            env.reset([i % 16 for i in range(worlds)], {"time_of_day": start})
        _update(h, env.observe())
        rng = np.random.default_rng(1234 + k)
        for t in range(steps):
            n = env.n
            if t % 7 == 6:  # every primitive, with an item index (some out of range)
                a = np.stack([rng.integers(0, len(PRIMITIVES), n), rng.integers(-1, env.vocab.n_items + 1, n)], axis=1)
            else:
                a = np.stack([rng.integers(0, 10, n), np.full(n, -1)], axis=1)
            obs, rew, term, trunc, info = env.step(a)
            _update(h, obs)
            _update(h, (rew, term, trunc, info))
            if t % every == 0 or t == steps - 1:
                state_digest(env, h)
    return h.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worlds", type=int, default=64)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--every", type=int, default=10, help="hash the full state every this many steps")
    a = ap.parse_args()
    print(trajectory_digest(a.worlds, a.steps, a.every))


if __name__ == "__main__":
    main()
