"""`deps bench`: performance measured as ratios against a baseline run side by side, in
the same process, interleaved, so machine noise hits both alike. No timed assertions in
tests: these numbers are for people and for tracking over time."""

from __future__ import annotations

import time
from collections.abc import Callable

BENCH_TASKS = ("CraftWoodenPickaxe", "CraftStonePickaxe", "CraftIronPickaxe", "ObtainDiamond")


def _timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _side_by_side(a: Callable, b: Callable, repeat: int) -> tuple[float, float]:
    """Best-of-`repeat` times of a and b, run alternately."""
    ta, tb = [], []
    for _ in range(repeat):
        ta.append(_timed(a))
        tb.append(_timed(b))
    return min(ta), min(tb)


def run_benchmarks(
    repeat: int = 3, progress: Callable[[str], None] = lambda s: None, live_llm: bool = False
) -> dict[str, float]:
    """Every figure, side by side in one run. `live_llm`: measure loop_overhead_share against a
    live episode of the local model (else against its recorded latency, evaluation/bench/llm_share.py)."""
    from agent.runner import run_episode
    from evaluation.bench.plain_loop import plain_episode
    from nodes.parse import GoalParser
    from nodes.planners.base import goals_to_text
    from nodes.settings import RunSettings
    from worlds.knowledge import load_kb
    from worlds.solver import solve
    from worlds.tasks import find_task

    kb = load_kb("1.11.2")
    tasks = [find_task(t) for t in BENCH_TASKS]
    settings = RunSettings(planner="oracle")
    metrics: dict[str, float] = {}

    # 1. the graph's overhead: an oracle episode through LangGraph vs. the same episode played by the
    # same nodes in a plain loop (evaluation/bench/plain_loop.py): same world, parts and planner calls
    def direct() -> None:
        for task in tasks:
            plain_episode(task, settings, kb)

    def graph() -> None:
        for task in tasks:
            run_episode(task, settings, kb=kb)

    progress("bench: oracle episodes, graph vs. plain loop")
    t_direct, t_graph = _side_by_side(direct, graph, 5 * repeat)  # short runs: best of more, under load
    metrics["episode_plain_loop_s"] = round(t_direct / len(tasks), 5)
    metrics["episode_graph_s"] = round(t_graph / len(tasks), 5)
    metrics["graph_overhead_ratio"] = round(t_graph / t_direct, 2)

    # 1b. the graph's time as a share of an episode with the local LLM (evaluation/bench/llm_share.py)
    from evaluation.bench.llm_share import loop_overhead_share

    metrics.update(
        loop_overhead_share((t_graph - t_direct) / len(tasks), t_direct / len(tasks), live=live_llm, progress=progress)
    )

    # 2. the parser: exact code-form parsing vs. the embedding fallback, per plan
    code_plan = goals_to_text(solve(kb, {"diamond": 1}, {}))
    free_plan = "\n".join(
        f"step {i}: {line.split('# step')[1].split(':', 1)[1].strip()}"
        for i, line in enumerate(code_plan.splitlines(), 1)
    )
    parser = GoalParser(kb)
    parser.parse(free_plan)  # warm: load the embedding model and the library's vectors once
    progress("bench: parser, exact vs. embedding")
    t_exact, t_free = _side_by_side(lambda: parser.parse(code_plan), lambda: parser.parse(free_plan), repeat)
    metrics["parse_exact_ms"] = round(1000 * t_exact, 3)
    metrics["parse_embedding_ms"] = round(1000 * t_free, 3)
    metrics["parse_embedding_vs_exact_ratio"] = round(t_free / t_exact, 2)

    # 3. the oracle search: diamond from nothing vs. wooden pickaxe from nothing (scaling with depth)
    progress("bench: oracle search depth")
    t_small, t_big = _side_by_side(
        lambda: solve(kb, {"wooden_pickaxe": 1}, {}), lambda: solve(kb, {"diamond": 1}, {}), repeat
    )
    metrics["solve_diamond_ms"] = round(1000 * t_big, 3)
    metrics["solve_diamond_vs_wooden_pickaxe_ratio"] = round(t_big / t_small, 2)

    # 4. the grid world: steps/s single and batched, against Crafter (evaluation/bench/grid.py)
    from evaluation.bench.grid import grid_benchmarks

    metrics.update(grid_benchmarks(repeat, progress))

    # 5. the learned policy: batched inference per step against the batched world's step (evaluation/bench/policy.py)
    from evaluation.bench.policy import policy_benchmarks

    metrics.update(policy_benchmarks(repeat, progress))

    # 6. tokens per success: the DEPS planner against the naive growing dialogue (evaluation/bench/tokens.py)
    from evaluation.bench.tokens import token_benchmarks

    metrics.update(token_benchmarks(progress))
    return metrics
