"""Learned-policy speed for `deps bench`: one batched inference step of pi(a | s, g) over a
batch of grid worlds (observation encoding included: the surroundings map, and the goal's
target map where the network reads one), as a ratio against the batched world's own step
over the same worlds, timed side by side.

The shipped controller's weights are used when present; otherwise a fresh network of the
same shape (the time does not depend on the weights). Each timed step is what the controller
does: the maps of the state the world is in (the target map counting again what the last step
changed, skills/learned/source_columns.py), the action, then the world's step; the first count
of each world's columns is made before the clock starts (once per world and goal).

The policy runs at the precision the controller picks (bf16 on a CPU with native bfloat16,
else fp32: skills/learned/policy.py); where that is bf16, the same net in fp32 is timed on the
same maps at each step, and `policy_fp32_vs_run_precision` is its time over the run's.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

BATCH = 256


def policy_benchmarks(repeat: int = 3, progress: Callable[[str], None] = lambda s: None) -> dict[str, float]:
    import torch

    from skills.learned import sense
    from skills.learned.features import net_shape
    from skills.learned.model import GoalNet
    from skills.learned.paths import LearnedError
    from skills.learned.policy import GoalPolicy
    from skills.learned.surround import KEY, around
    from worlds.gridworld.batch import BatchGridWorld
    from worlds.gridworld.spec import make_vocab
    from worlds.knowledge import load_kb
    from worlds.types import Goal

    kb = load_kb("1.11.2")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the learned controller runs it (skills/learned/policy.py)
    try:
        policy = GoalPolicy.load("controller", kb=kb, device="cpu")
        shipped = 1.0
    except LearnedError:
        policy = GoalPolicy(GoalNet(net_shape(make_vocab(kb))).eval(), kb, {"goals": []}, "cpu")
        shipped = 0.0
    progress(f"bench: learned policy, batched inference over {BATCH} worlds vs. their batched step")
    env = BatchGridWorld(BATCH, kb)
    obs = env.reset([i % 16 for i in range(BATCH)])
    goals = [Goal("mine", {"log": 1}), Goal("kill", {"cow": 1})] * (BATCH // 2)
    codes = policy.codes(goals)
    shape = policy.net.shape
    luts = [sense.lut(env, g) for g in goals] if getattr(shape, "target", 0) else None
    rows = np.arange(BATCH)

    def features(obs: dict) -> dict:
        """What the controller adds to the observation for this network (surround.py, sense.py)."""
        if not shape.around:
            return obs
        o = {**obs, KEY: around(env)}
        return sense.add_to(o, env, rows, luts, near=sense.near_rows(policy, codes)) if luts else o

    # the same net in fp32 beside it, where the policy runs in bf16 (skills/learned/policy.py: pick_precision)
    fp32 = None if policy.precision == "fp32" else GoalPolicy(policy.net, kb, policy.card, "cpu", precision="fp32")
    rng, rng32 = np.random.default_rng(0), np.random.default_rng(1)
    a = policy.act(features(obs), codes, greedy=False, rng=rng)  # warm: the target map's first count of each world
    t_pol, t_env, t_32 = float("inf"), float("inf"), float("inf")
    for _ in range(repeat):  # best of each over `repeat` runs of 5 steps, machine noise hitting both alike
        pol = env_t = p32 = 0.0
        for _ in range(5):  # as the controller runs: the maps of this step's state, the action, the step
            t0 = time.perf_counter()
            o = features(obs)  # the maps the net reads count as its cost
            tm = time.perf_counter()
            a = policy.act(o, codes, greedy=False, rng=rng)
            t1 = time.perf_counter()
            if fp32 is not None:  # the same maps, the same worlds, the other precision (its actions unused)
                fp32.act(o, codes, greedy=False, rng=rng32)
                p32 += (tm - t0) + time.perf_counter() - t1
            acts = np.stack([np.minimum(a, 9), np.full(BATCH, -1)], axis=1).astype(np.int64)
            t2 = time.perf_counter()
            obs, *_ = env.step(acts)
            pol, env_t = pol + t1 - t0, env_t + time.perf_counter() - t2
        t_pol, t_env, t_32 = min(t_pol, pol / 5), min(t_env, env_t / 5), min(t_32, p32 / 5 if fp32 else pol / 5)
    torch.set_num_threads(threads)
    return {
        "policy_batched_ms_per_step": round(1000 * t_pol, 3),
        "policy_vs_world_step_ratio": round(t_pol / t_env, 2),
        "policy_bf16": 1.0 if policy.precision == "bf16" else 0.0,
        "policy_fp32_vs_run_precision": round(t_32 / t_pol, 2),
        "policy_shipped_weights": shipped,
        "policy_batch": float(BATCH),
        "policy_target_map": 1.0 if luts else 0.0,
    }
