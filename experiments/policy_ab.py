"""The learned policy's step before and after, side by side in one process (issue 21, item 6):
the surroundings map, the goal's target map and the network's act over a batch of grid worlds,
each by an older tree's skills/learned modules and by this tree's, on the same worlds at the
same step, against the batched world's own step, in CPU seconds (a shared machine's load hits
both alike). Each step checks that both give the same maps and the same sampled actions.

    git archive 029ffa5 skills | tar -x -C /tmp/before
    python -m experiments.policy_ab --base /tmp/before [--steps 30] [--batch 256]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import torch

from skills.learned import sense, surround
from skills.learned.policy import GoalPolicy
from worlds.gridworld.batch import BatchGridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

PARTS = ("surroundings map", "target map", "act (network)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="a folder holding the older tree's skills/learned/")
    ap.add_argument("--steps", type=int, default=30, help="steps timed after 5 unrecorded ones (default 30)")
    ap.add_argument(
        "--batch", type=int, default=256, help="worlds in the batch (default 256; 1: the controller's case)"
    )
    a = ap.parse_args(argv)
    base = Path(a.base) / "skills" / "learned"
    if not all((base / f).is_file() for f in ("sense.py", "surround.py", "model.py")):
        ap.error(f"--base {a.base!r} holds no skills/learned/sense.py, surround.py and model.py")
    if a.steps < 1 or a.batch < 1:
        ap.error("--steps and --batch must be at least 1")
    torch.set_num_threads(1)  # as the learned controller runs it
    kb = load_kb("1.11.2")
    new = GoalPolicy.load("controller", kb=kb, device="cpu")
    old_net = _module(base / "model.py", "model").GoalNet(new.net.shape).eval()
    old_net.load_state_dict(new.net.state_dict())
    old = GoalPolicy(old_net, kb, new.card, "cpu", keep_readings=hasattr(old_net, "read_all"))
    old_sense, old_surround = _module(base / "sense.py", "sense"), _module(base / "surround.py", "surround")
    env = BatchGridWorld(a.batch, kb)
    obs = env.reset([i % 16 for i in range(a.batch)])
    goals = [(Goal("mine", {"log": 1}), Goal("kill", {"cow": 1}))[i % 2] for i in range(a.batch)]
    codes, luts, rows = new.codes(goals), [sense.lut(env, g) for g in goals], np.arange(a.batch)
    trees = {
        "before": (old_surround.around, old_sense.target_map, old, np.random.default_rng(0)),
        "after": (surround.around, sense.target_map, new, np.random.default_rng(0)),
    }
    spent = {(t, p): 0.0 for t in trees for p in PARTS}
    world = 0.0
    for step in range(5 + a.steps):
        maps, acts = {}, {}
        for name, (around, target_map, policy, rng) in trees.items():
            t0 = time.process_time()
            m = around(env)
            t1 = time.process_time()
            t = target_map(env, rows, luts)
            t2 = time.process_time()
            acts[name] = policy.act({**obs, surround.KEY: sense.pack(m, t)}, codes, greedy=False, rng=rng)
            t3 = time.process_time()
            maps[name] = (m, t)
            if step >= 5:
                for part, s in zip(PARTS, (t1 - t0, t2 - t1, t3 - t2)):
                    spent[name, part] += s
        same = all(np.array_equal(x, y) for x, y in zip(maps["before"], maps["after"]))
        if not same or not np.array_equal(acts["before"], acts["after"]):
            print(f"policy_ab: error: the trees differ at step {step}: maps or actions", file=sys.stderr)
            return 1
        move = np.stack([np.minimum(acts["after"], 9), np.full(a.batch, -1)], axis=1).astype(np.int64)
        t0 = time.process_time()
        obs, *_ = env.step(move)
        world += (time.process_time() - t0) * (step >= 5)
    n = a.steps
    print(f"CPU ms per batched step of {a.batch} worlds, {n} steps (the same maps and actions at every step):")
    for part in PARTS:
        print(
            f"  {part:18s} before {1000 * spent['before', part] / n:7.2f}   after {1000 * spent['after', part] / n:7.2f}"
        )
    print(f"  {'world step':18s} {1000 * world / n:7.2f}")
    for name in trees:
        total = sum(spent[name, p] for p in PARTS)
        print(f"  policy / world step, {name}: {total / world:.1f} ({1000 * total / n:.1f} ms)")
    return 0


def _module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_before_{name}", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # a dataclass looks its module up there
    spec.loader.exec_module(mod)
    return mod


if __name__ == "__main__":
    sys.exit(main())
