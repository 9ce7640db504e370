"""The order in which an eval's workers take its episodes (issue 21, item 4).

With several workers on a shared queue, the run ends when its last episode ends. An eval
whose longest episode is taken last waits on it alone while the other workers stand idle
(10 MT1 tasks at 2 workers: the chest, 81 s of 181 s of episodes, taken fifth). So when more
than one worker runs, episodes are handed out longest expected first, the classic rule for
a list schedule (Graham's LPT): a task's expected length is the recipe book's own estimate
of the environment steps its shortest plan takes (worlds/solver.py: steps_estimate), and a
task the recipe book has no plan for (a find task, an unreachable item) counts as its step
budget. A task's episodes stay together, and the order among equal estimates is the
suite's. Results are stored and reported in the suite's order whatever the order of work.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from worlds.types import Task


def expected_steps(task: Task, kb: Any, inventory: dict[str, int] | None = None) -> int:
    """Environment steps the oracle's plan for `task` is expected to take; its budget where
    there is no plan to estimate."""
    from worlds.solver import solve, steps_estimate
    from worlds.tasks import localize

    try:
        local = localize(task, kb)
        if not local.target:
            return int(task.max_steps or 0)
        start = dict(local.inventory)
        for name, n in (inventory or {}).items():  # the run's --inventory, as the episode resolves it
            if kb.canonical(name):
                start[kb.canonical(name)] = n
        return steps_estimate(kb, solve(kb, local.target, start))
    except Exception:  # noqa: BLE001 - an order is a hint: no estimate never stops an eval
        return int(task.max_steps or 0)


def longest_first(pending: Sequence[tuple[Task, int, int]], mc_version: str, inventory=None) -> list:
    """`pending` ((task, episode, seed) rows) reordered longest expected first; stable."""
    from worlds.knowledge import load_kb

    kb = load_kb(mc_version)
    cost: dict[str, int] = {}
    for task, _, _ in pending:
        if task.id not in cost:
            cost[task.id] = expected_steps(task, kb, inventory)
    return sorted(pending, key=lambda row: -cost[row[0].id])
