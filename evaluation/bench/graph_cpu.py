"""The graph's overhead in CPU time, for a loaded machine where `deps bench`'s wall-clock best
of N still swings: the bench's oracle episodes through the graph and through the plain loop
(evaluation/bench/plain_loop.py), interleaved, each round's CPU seconds, the medians compared.

    python -m evaluation.bench.graph_cpu [ROUNDS]     (default 40)
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable


def cpu_side_by_side(a: Callable[[], object], b: Callable[[], object], rounds: int) -> tuple[float, float]:
    """Median CPU seconds of a and b, run alternately `rounds` times."""
    ca, cb = [], []
    for _ in range(rounds):
        for fn, out in ((a, ca), (b, cb)):
            t0 = time.process_time()
            fn()
            out.append(time.process_time() - t0)
    return statistics.median(ca), statistics.median(cb)


def main(argv: list[str]) -> int:
    from agent.runner import run_episode
    from evaluation.bench import BENCH_TASKS
    from evaluation.bench.plain_loop import plain_episode
    from nodes.settings import RunSettings
    from worlds.knowledge import load_kb
    from worlds.tasks import find_task

    if len(argv) > 1 or (argv and not (argv[0].isdigit() and int(argv[0]) > 0)):
        print("usage: python -m evaluation.bench.graph_cpu [ROUNDS]  (a positive whole number)", file=sys.stderr)
        return 2
    rounds = int(argv[0]) if argv else 40
    kb = load_kb("1.11.2")
    tasks = [find_task(t) for t in BENCH_TASKS]
    settings = RunSettings(planner="oracle")

    def plain() -> None:
        for task in tasks:
            plain_episode(task, settings, kb)

    def graph() -> None:
        for task in tasks:
            run_episode(task, settings, kb=kb)

    graph(), plain()  # compile the graph and load what both load, outside the count
    t_plain, t_graph = cpu_side_by_side(plain, graph, rounds)
    n = len(tasks)
    print(
        f"CPU per episode, median of {rounds}: graph {1000 * t_graph / n:.2f} ms, "
        f"plain loop {1000 * t_plain / n:.2f} ms, ratio {t_graph / t_plain:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
