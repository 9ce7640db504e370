"""Grid-world speed for `deps bench`: environment steps per second of one grid world and of
a numpy batch, as ratios against Crafter (danijar/crafter, the `bench` extra) stepped
side by side in the same process with random actions; where Crafter is not installed,
against the text world, and `crafter_available` says 0.

One step of a batch of n worlds counts as n environment steps, as in any vectorised env.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

BATCH = 256
BATCH_STEPS = 20  # batched steps a round (5,120 environment steps, 20 to 40 ms)
# Rounds per `repeat`, each side's best kept: a round is short (Crafter's 100 steps about 0.1 s, the
# batch's 20 steps a few hundredths), so a few rounds let one busy moment of a shared machine decide
# the ratio; 5 x 3 rounds take about 5 s in all (issue 21).
ROUNDS_PER_REPEAT = 5


def _rate(fn: Callable[[], int], repeat: int) -> float:
    """Best steps/s of `fn` (which returns how many env steps it took) over `repeat` runs."""
    best = 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        n = fn()
        best = max(best, n / max(time.perf_counter() - t0, 1e-9))
    return best


def grid_benchmarks(repeat: int = 3, progress: Callable[[str], None] = lambda s: None) -> dict[str, float]:
    from worlds.gridworld.batch import BatchGridWorld
    from worlds.gridworld.world import GridWorld
    from worlds.knowledge import load_kb

    kb = load_kb("1.11.2")
    rng = np.random.default_rng(0)
    single = GridWorld(kb)
    single.reset(seed=0)
    batch = BatchGridWorld(BATCH, kb)
    batch.reset([i % 16 for i in range(BATCH)])  # 16 maps, each generated once
    moves = 10  # primitives 0..9: noop, moves, faces, attack, use (no item: refused), jump_place

    def step_single() -> int:
        acts = rng.integers(0, moves, 500)
        for a in acts:
            single.env.step(np.array([[a, -1]]))
        return len(acts)

    def step_batch() -> int:
        for _ in range(BATCH_STEPS):
            batch.step(np.stack([rng.integers(0, moves, BATCH), np.full(BATCH, -1)], axis=1))
        return BATCH_STEPS * BATCH

    baseline, base_name = _crafter(rng)
    if baseline is None:
        baseline, base_name = _textworld(kb), "textworld"
    progress(f"bench: grid world single and batched ({BATCH}) vs. {base_name}")
    for fn in (baseline, step_single, step_batch):  # one untimed round each: all three past their first steps
        fn()
    r_base, r_single, r_batch = 0.0, 0.0, 0.0
    for _ in range(ROUNDS_PER_REPEAT * repeat):  # interleaved, so machine noise hits all three alike
        r_base = max(r_base, _rate(baseline, 1))
        r_single = max(r_single, _rate(step_single, 1))
        r_batch = max(r_batch, _rate(step_batch, 1))
    return {
        "grid_single_steps_per_s": round(r_single, 1),
        "grid_batched_steps_per_s": round(r_batch, 1),
        f"{base_name}_steps_per_s": round(r_base, 1),
        "crafter_available": 1.0 if base_name == "crafter" else 0.0,
        "grid_single_vs_baseline_ratio": round(r_single / r_base, 2),
        "grid_batched_vs_baseline_ratio": round(r_batch / r_base, 2),
    }


def _crafter(rng: np.random.Generator):
    try:
        import crafter
    except ImportError:
        return None, "crafter"
    env = crafter.Env(seed=0)
    env.reset()

    def step() -> int:
        for a in rng.integers(0, env.action_space.n, 100):
            _, _, done, _ = env.step(int(a))
            if done:
                env.reset()
        return 100

    return step, "crafter"


def _textworld(kb):
    from worlds.textworld import TextWorld

    world = TextWorld(kb)
    world.reset(seed=0, options={"max_steps": 10**9})

    def step() -> int:
        for _ in range(500):
            world.step({"action": "mine", "item": "log"})
        return 500

    return step
