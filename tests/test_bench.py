"""`deps bench`'s baseline for the graph's overhead is fair: the plain loop plays the very episode
the graph plays (same world, parts, planner calls and state), so the ratio is LangGraph's own cost;
and the runner's cuts for unobserved runs keep what an observer sees."""

from __future__ import annotations

import pytest

from agent.graph import build_graph
from agent.runner import langchain_listens, run_episode
from evaluation.bench import BENCH_TASKS
from evaluation.bench.plain_loop import NEXT, plain_episode
from nodes.settings import RunSettings
from tests.test_graph import KB
from worlds.tasks import find_task


def _played(result: dict) -> dict:
    """What an episode did, without its wall time and thread id."""
    return {k: v for k, v in result.items() if k not in ("wall_s", "thread")}


@pytest.mark.parametrize("task", BENCH_TASKS)
def test_the_plain_loop_plays_the_graphs_episode(task):
    settings = RunSettings(planner="oracle")
    plain = plain_episode(find_task(task), settings, KB)
    assert plain["success"] and plain["rounds"] == 0
    assert _played(plain) == _played(run_episode(find_task(task), settings, kb=KB))


def test_the_plain_loop_replans_as_the_graph_does():
    # stray drops make goals fail: describe, explain and plan run again, in both alike
    settings = RunSettings(planner="oracle", random_drop=True, seed=1)
    plain = plain_episode(find_task("CraftStonePickaxe"), settings, KB)
    assert plain["rounds"] > 0 and len(plain["plans"]) == plain["rounds"] + 1
    assert _played(plain) == _played(run_episode(find_task("CraftStonePickaxe"), settings, kb=KB))


def test_the_plain_loop_follows_the_graphs_fixed_edges():
    fixed = {(e.source, e.target) for e in build_graph().get_graph().edges if not e.conditional}
    assert fixed - {("__start__", "plan")} == set(NEXT.items())


def test_a_run_collector_still_sees_the_episodes_name_and_tags():
    from langchain_core.tracers.context import collect_runs

    assert not langchain_listens()  # nobody listens here: the run carries no labels
    with collect_runs() as runs:
        assert langchain_listens()
        result = run_episode(find_task("CraftWoodenPickaxe"), RunSettings(planner="oracle"), kb=KB)
    root = next(r for r in runs.traced_runs if r.parent_run_id is None)
    assert root.name == "deps:CraftWoodenPickaxe" and "planner:oracle" in root.tags
    assert root.extra["metadata"]["thread"] == result["thread"]


def test_the_cpu_comparison_runs_both_alike_and_refuses_a_bad_round_count(capsys):
    from evaluation.bench.graph_cpu import cpu_side_by_side, main

    calls = {"a": 0, "b": 0}
    a, b = cpu_side_by_side(lambda: calls.update(a=calls["a"] + 1), lambda: calls.update(b=calls["b"] + 1), 5)
    assert calls == {"a": 5, "b": 5} and a >= 0 and b >= 0
    for bad in (["0"], ["many"], ["3", "4"]):
        assert main(bad) == 2
        assert capsys.readouterr().err.count("\n") == 1
