"""Where the learned policy's batched inference and the batched grid world's step spend their
time on the CPU (issue 21, item 6): torch's profiler over `GoalPolicy.act` on a batch of grid
worlds, the maps the network reads timed beside it (the surroundings map, skills/learned/surround.py,
and the goal's target map, sense.py, where the network reads one), and the batched world's step
split into its parts (CPU seconds of each, numpy).

    python -m experiments.policy_profile [--batch 256] [--steps 20] [--threads 1] [--device cpu]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile, record_function

from skills.learned import sense
from skills.learned.policy import GoalPolicy
from skills.learned.surround import KEY, around
from worlds.gridworld import batch
from worlds.gridworld.batch import BatchGridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

# the parts of BatchGridWorld.step, by the function that does each (what is left is the step's own code)
STEP_PARTS = (
    (batch, "step_mobs", "mobs (mobs.py)"),
    (BatchGridWorld, "observe", "observe"),
    (BatchGridWorld, "_attack", "attack"),
    (batch.eggs, "step", "eggs"),
    (BatchGridWorld, "_gravity", "gravity"),
    (BatchGridWorld, "_rare", "use, craft, smelt, equip"),
    (BatchGridWorld, "reached", "targets reached"),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=256, help="worlds in the batch (default 256)")
    ap.add_argument("--steps", type=int, default=20, help="inference steps profiled (default 20)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default 1, as the controller runs)")
    ap.add_argument("--device", default="cpu", help="where the network runs: cpu (default) or cuda")
    a = ap.parse_args()
    if a.batch < 2 or a.steps < 1 or a.threads < 1:
        ap.error("--batch must be at least 2, --steps and --threads at least 1")
    if a.device not in ("cpu", "cuda") or (a.device == "cuda" and not torch.cuda.is_available()):
        ap.error(f"--device {a.device!r} is not available here; accepted: cpu, or cuda where torch sees a GPU")
    kb = load_kb("1.11.2")
    torch.set_num_threads(a.threads)
    policy = GoalPolicy.load("controller", kb=kb, device=a.device)
    env = BatchGridWorld(a.batch, kb)
    obs = env.reset([i % 16 for i in range(a.batch)])
    goals = [Goal("mine", {"log": 1}), Goal("kill", {"cow": 1})] * (a.batch // 2)
    codes = policy.codes(goals)
    luts = [sense.lut(env, g) for g in goals] if getattr(policy.net.shape, "target", 0) else None
    rows = np.arange(a.batch)

    def maps(obs: dict) -> dict:
        o = {**obs, KEY: around(env)}
        return sense.add_to(o, env, rows, luts) if luts else o

    rng = np.random.default_rng(0)
    acts = np.stack([rng.integers(0, 10, a.batch), np.full(a.batch, -1)], axis=1)
    policy.act(maps(obs), codes, greedy=False, rng=rng)  # warm
    t_map = t_act = t_env = 0.0
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(a.steps):
            t0 = time.perf_counter()
            with record_function("surroundings and target maps" if luts else "surroundings map"):
                o = maps(obs)
            t1 = time.perf_counter()
            with record_function("policy.act"):
                policy.act(o, codes, greedy=False, rng=rng)
            t2 = time.perf_counter()
            with record_function("world.step"):
                obs, *_ = env.step(acts)
            t3 = time.perf_counter()
            t_map, t_act, t_env = t_map + t1 - t0, t_act + t2 - t1, t_env + t3 - t2
    n = a.steps
    print(
        f"per batched step of {a.batch} worlds: {'surroundings and target maps' if luts else 'surroundings map'} "
        f"{1000 * t_map / n:.1f} ms, "
        f"policy.act {1000 * t_act / n:.1f} ms ({a.device}), world step {1000 * t_env / n:.1f} ms; "
        f"(map + act) / step = {(t_map + t_act) / t_env:.2f}"
    )
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=18))
    step_parts(env, rng, max(50, 5 * n))


def step_parts(env: BatchGridWorld, rng: np.random.Generator, steps: int) -> None:
    """Print the CPU milliseconds per batched step of each part of the world's step."""
    moves = [np.stack([rng.integers(0, 10, env.n), np.full(env.n, -1)], axis=1) for _ in range(steps)]
    spent: Counter[str] = Counter()
    with _timed(STEP_PARTS, spent):
        t0 = time.process_time()
        for m in moves:
            env.step(m)
        total = time.process_time() - t0
    spent["the step's own code"] = total - sum(spent.values())
    print(f"the batched world's step, {1000 * total / steps:.2f} CPU-ms over {steps} steps of {env.n} worlds:")
    for name, s in spent.most_common():
        print(f"  {name:28s} {1000 * s / steps:6.3f} ms  {100 * s / total:5.1f} %")


@contextmanager
def _timed(parts: tuple[tuple[Any, str, str], ...], spent: Counter[str]) -> Iterator[None]:
    """Wrap each (owner, attribute) so that its CPU time adds up under its name; restored after."""
    saved = [(owner, attr, getattr(owner, attr)) for owner, attr, _ in parts]
    for (owner, attr, name), (_, _, fn) in zip(parts, saved):
        setattr(owner, attr, _clock(fn, name, spent))
    try:
        yield
    finally:
        for owner, attr, fn in saved:
            setattr(owner, attr, fn)


def _clock(fn: Callable, name: str, spent: Counter[str]) -> Callable:
    def timed(*args: Any, **kw: Any) -> Any:
        t0 = time.process_time()
        try:
            return fn(*args, **kw)
        finally:
            spent[name] += time.process_time() - t0

    return timed


if __name__ == "__main__":
    main()
