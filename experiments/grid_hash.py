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
    """Every attribute of the batch (its arrays, random streams, lists), in name order."""
    for name in sorted(vars(env)):
        if name not in SKIP:
            h.update(name.encode())
            _update(h, getattr(env, name))


def trajectory_digest(worlds: int = 64, steps: int = 300, every: int = 10) -> str:
    """sha1 of a day, a night and a night's-end batch, each stepped `steps` times each with a fixed stream: the
    bench's random primitives 0..9 without an item in most steps, and every primitive with a random
    item now and then; the full state is hashed every `every` steps and at the end."""
    h = hashlib.sha1()
    for k, start in enumerate(START):
        env = BatchGridWorld(worlds)
        env.reset([i % 16 for i in range(worlds)], {"time_of_day": start})
        _update(h, env.observe())
        rng = np.random.default_rng(1234 + k)
        for t in range(steps):
            if t % 7 == 6:  # every primitive, with an item index (some out of range)
                a = np.stack(
                    [rng.integers(0, len(PRIMITIVES), worlds), rng.integers(-1, env.vocab.n_items + 1, worlds)], axis=1
                )
            else:
                a = np.stack([rng.integers(0, 10, worlds), np.full(worlds, -1)], axis=1)
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
