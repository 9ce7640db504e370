"""Before and after, side by side in one process (issue 21, item 6): the batched grid world's
step, the surroundings map and the policy's act, each from an older tree and from this one,
interleaved round by round, in CPU seconds (so that a shared machine's load hits both alike).

    git archive 9afba2a worlds skills | tar -x -C /tmp/before
    python -m experiments.speed_ab --base /tmp/before [--rounds 5] [--batch 256]

The older tree's batch, rules, eggs, surround and policy modules are loaded beside the working
ones (the rest is shared); the policy's network and weights are the shipped ones for both.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import torch

from skills.learned import surround
from skills.learned.policy import GoalPolicy
from worlds.gridworld.batch import BatchGridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="a folder holding the older tree's worlds/ and skills/")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds, best of each kept (default 5)")
    ap.add_argument("--batch", type=int, default=256, help="worlds in the batch (default 256)")
    a = ap.parse_args()
    base = Path(a.base)
    if not (base / "worlds/gridworld/batch.py").is_file() or not (base / "skills/learned/surround.py").is_file():
        ap.error(f"--base {a.base!r} holds no worlds/gridworld/batch.py and skills/learned/surround.py")
    if a.rounds < 1 or a.batch < 2:
        ap.error("--rounds must be at least 1 and --batch at least 2")
    torch.set_num_threads(1)  # as the learned controller runs it
    old = _older(base)
    kb = load_kb("1.11.2")
    policy = GoalPolicy.load("controller", kb=kb, device="cpu")
    trees = {
        "before": (old["batch"].BatchGridWorld(a.batch, kb), old["surround"].around, old["policy"].GoalPolicy),
        "after": (BatchGridWorld(a.batch, kb), surround.around, GoalPolicy),
    }
    rng = np.random.default_rng(0)
    moves = [np.stack([rng.integers(0, 10, a.batch), np.full(a.batch, -1)], axis=1) for _ in range(40)]
    codes = policy.codes([Goal("mine", {"log": 1}), Goal("kill", {"cow": 1})] * (a.batch // 2))
    best: dict[tuple[str, str], float] = {}
    for world, _, _ in trees.values():
        world.reset([i % 16 for i in range(a.batch)])
    for _ in range(a.rounds):
        for name, (world, around, cls) in trees.items():
            for part, ms in _one_round(world, around, cls(policy.net, kb, policy.card, "cpu"), moves, codes).items():
                best[name, part] = min(best.get((name, part), float("inf")), ms)
    same = np.array_equal(old["surround"].around(trees["after"][0]), surround.around(trees["after"][0]))
    for name in trees:
        s, m, p = best[name, "step"], best[name, "map"], best[name, "act"]
        print(f"{name:6s} step {s:.3f} ms  map {m:.2f} ms  act {p:.2f} ms  (map + act) / step {(m + p) / s:.1f}")
    print(
        f"step {best['before', 'step'] / best['after', 'step']:.2f}x, map {best['before', 'map'] / best['after', 'map']:.2f}x"
        f" faster; the two maps of one state are {'the same' if same else 'DIFFERENT'}"
    )


def _one_round(world, around, pol, moves: list[np.ndarray], codes: np.ndarray) -> dict[str, float]:
    """CPU milliseconds of one batched step (the mean over `moves`), one map and one act."""
    it = iter(moves)
    obs = {**world.observe(), surround.KEY: around(world)}
    draw = np.random.default_rng(1)
    return {
        "step": _cpu_ms(lambda: world.step(next(it)), len(moves)),
        "map": _cpu_ms(lambda: around(world), 5),
        "act": _cpu_ms(lambda: pol.act(obs, codes, greedy=False, rng=draw), 5),
    }


def _cpu_ms(fn: Callable[[], object], n: int) -> float:
    t0 = time.process_time()
    for _ in range(n):
        fn()
    return 1000 * (time.process_time() - t0) / n


def _older(base: Path) -> dict[str, ModuleType]:
    """The older tree's modules under their own names, wired to each other where they import."""
    mods = {
        name: _load(f"before_{name}", base / rel)
        for name, rel in (
            ("rules", "worlds/gridworld/rules.py"),
            ("eggs", "worlds/gridworld/eggs.py"),
            ("surround", "skills/learned/surround.py"),
            ("policy", "skills/learned/policy.py"),
        )
    }
    batch = _load("before_batch", base / "worlds/gridworld/batch.py")
    batch.eggs, batch.make_rules = mods["eggs"], mods["rules"].make_rules  # type: ignore[attr-defined]
    return {**mods, "batch": batch}


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    main()
