"""The figures of a run, from its stored episode rows: success rates per group and per
task (std over tasks, as DEPS Table 2), tokens, steps, rounds, wall time."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from nodes.settings import RunSettings, redact_llm
from worlds.types import Task


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(float(x), nd)


def _tokens(row: dict[str, Any]) -> int:
    return int(row.get("tokens_in") or 0) + int(row.get("tokens_out") or 0)


def _stats(rows: list[dict[str, Any]], task_ids: list[str]) -> dict[str, Any]:
    """Metrics of a set of episodes. `std` is the sample std (n-1) over tasks of the
    per-task success rates: the convention of DEPS Table 2 (its ±, recomputed from the
    per-task Table 21, match the sample std, e.g. DEPS MT1 79.77 ± 8.5)."""
    n = len(rows)
    succ = [r for r in rows if r.get("success")]
    by_task: dict[str, list[dict]] = {}
    for r in rows:
        by_task.setdefault(r["task_id"], []).append(r)
    task_rates = [sum(1 for r in by_task[t] if r.get("success")) / len(by_task[t]) for t in task_ids if by_task.get(t)]
    std = statistics.stdev(task_rates) if len(task_rates) > 1 else (0.0 if task_rates else None)
    return {
        "success_rate": _r(len(succ) / n) if n else None,
        "n": n,
        "std": _r(std),
        "tasks": len(task_ids),
        "successes": len(succ),
        "tokens_in": sum(int(r.get("tokens_in") or 0) for r in rows),
        "tokens_out": sum(int(r.get("tokens_out") or 0) for r in rows),
        "tokens_per_success": _r(_mean([_tokens(r) for r in succ]), 1),
        "mean_env_steps": _r(_mean([float(r.get("env_steps") or 0) for r in rows]), 2),
        "mean_rounds": _r(_mean([float(r.get("rounds") or 0) for r in rows]), 3),
        "llm_calls": sum(int(r.get("llm_calls") or 0) for r in rows),
        "llm_failures": sum(1 for r in rows if r.get("llm_failed")),  # episodes ended by an LLM fault
        "wall_s": _r(sum(float(r.get("wall_s") or 0.0) for r in rows), 3),
    }


def goal_drivers(rows: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """Every goal each part drove over the episodes (the records' `drivers`: the learned
    controller's policy, expert or functional), sorted; {} when no record says."""
    out: dict[str, set[str]] = {}
    for r in rows:
        for who, goals in (r.get("drivers") or {}).items():
            out.setdefault(str(who), set()).update(goals)
    return {who: sorted(goals) for who, goals in sorted(out.items())}


def summarize(
    tasks: Sequence[Task],
    rows: Sequence[dict[str, Any]],
    settings: RunSettings,
    *,
    episodes: int,
    suite: str | None = None,
) -> dict[str, Any]:
    """The summary object of `deps eval --json` (docs/cli.md) from stored episode rows.

    Rates are fractions in [0, 1]. Per group: success_rate (mean over its episodes), n
    (episodes), std (sample std over the group's tasks of per-task success rates), tasks,
    successes, tokens_per_success (mean tokens in+out of a successful episode), ...
    Overall: success_rate (mean over episodes), tokens_in, tokens_out, wall_s (sums over
    episodes). `per_task` holds each task's figures (the rows of the report's per-task table).
    """
    wanted = {t.id for t in tasks}
    rows = [r for r in rows if r["task_id"] in wanted]
    groups: dict[str, list[Task]] = {}
    for t in tasks:
        groups.setdefault(t.group, []).append(t)
    by_group_rows: dict[str, list[dict]] = {g: [] for g in groups}
    task_group = {t.id: t.group for t in tasks}
    for r in rows:
        by_group_rows[task_group[r["task_id"]]].append(r)
    overall = _stats(rows, [t.id for t in tasks])
    per_task = {}
    for t in tasks:
        trows = [r for r in rows if r["task_id"] == t.id]
        st = _stats(trows, [t.id])
        per_task[t.id] = {
            "group": t.group,
            "target": dict(t.target),
            "success_rate": st["success_rate"],
            "n": st["n"],
            "successes": st["successes"],
            "tokens_per_success": st["tokens_per_success"],
            "mean_env_steps": st["mean_env_steps"],
            "mean_rounds": st["mean_rounds"],
        }
    s = settings
    return {
        "suite": suite,
        "planner": s.planner,
        "world": s.world,
        "episodes": int(episodes),
        "groups": {g: _stats(by_group_rows[g], [t.id for t in ts]) for g, ts in groups.items()},
        "success_rate": overall["success_rate"],
        "tokens_in": overall["tokens_in"],
        "tokens_out": overall["tokens_out"],
        "wall_s": overall["wall_s"],
        "n": overall["n"],
        "expected": len(tasks) * int(episodes),
        "missing": len(tasks) * int(episodes) - overall["n"],
        "tasks": len(tasks),
        "std": overall["std"],
        "successes": overall["successes"],
        "tokens_per_success": overall["tokens_per_success"],
        "llm_calls": overall["llm_calls"],
        "llm_failures": overall["llm_failures"],
        "llm": redact_llm(s.llm),
        "selector": s.selector,
        "controller": s.controller,
        "mc_version": s.mc_version,
        "max_rounds": s.max_rounds,
        "seed": s.seed,
        "drivers": goal_drivers(rows),
        "per_task": per_task,
    }
