"""Where the learned policy's batched inference spends its time on the CPU (issue 21, item 6):
torch's profiler over `GoalPolicy.act` on a batch of grid worlds, the surroundings map
(skills/learned/surround.py, numpy) timed beside it, and the batched world's own step.

    python -m experiments.policy_profile [--batch 256] [--steps 20]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile, record_function

from skills.learned.policy import GoalPolicy
from skills.learned.surround import KEY, around
from worlds.gridworld.batch import BatchGridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=256, help="worlds in the batch (default 256)")
    ap.add_argument("--steps", type=int, default=20, help="inference steps profiled (default 20)")
    a = ap.parse_args()
    kb = load_kb("1.11.2")
    torch.set_num_threads(1)  # as the learned controller runs it
    policy = GoalPolicy.load("controller", kb=kb, device="cpu")
    env = BatchGridWorld(a.batch, kb)
    obs = env.reset([i % 16 for i in range(a.batch)])
    codes = policy.codes([Goal("mine", {"log": 1}), Goal("kill", {"cow": 1})] * (a.batch // 2))
    rng = np.random.default_rng(0)
    acts = np.stack([rng.integers(0, 10, a.batch), np.full(a.batch, -1)], axis=1)
    policy.act({**obs, KEY: around(env)}, codes, greedy=False, rng=rng)  # warm
    t_map = t_act = t_env = 0.0
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(a.steps):
            t0 = time.perf_counter()
            with record_function("surroundings map (numpy)"):
                o = {**obs, KEY: around(env)}
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
        f"per batched step of {a.batch} worlds: surroundings map {1000 * t_map / n:.1f} ms, "
        f"policy.act {1000 * t_act / n:.1f} ms, world step {1000 * t_env / n:.1f} ms; "
        f"(map + act) / step = {(t_map + t_act) / t_env:.2f}"
    )
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=18))


if __name__ == "__main__":
    main()
