"""The baseline of `graph_overhead_ratio`: one episode played by the graph's own nodes in a plain
Python loop, with no LangGraph in between.

It does the work `agent.runner.run_episode` does apart from the graph: the same context (world,
planner, parser, selector, controller), the same start state, the same node functions in the
same order (`after_execute` routes), the state merged with the same reducers, and the same
record. So the two differ only by LangGraph's step machinery and the runner's tracing plumbing,
and `tests/test_bench.py` checks that both play the same episode.
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from langgraph.graph import END
from langgraph.runtime import Runtime

from agent.graph import NODES, after_execute
from agent.runner import _record, build_context
from nodes.settings import RunSettings
from nodes.state import AgentState
from worlds.types import Task

NEXT = {"plan": "parse", "parse": "select", "select": "execute", "describe": "explain", "explain": "plan"}


@lru_cache(maxsize=1)
def reducers() -> dict[str, Any]:
    """The state's reducers by field (`operator.add` for the growing lists), read from AgentState."""
    hints = get_type_hints(AgentState, include_extras=True)
    return {k: get_args(t)[1] for k, t in hints.items() if get_origin(t) is Annotated}


def merge(state: dict, update: dict) -> None:
    """Apply one node's update to `state` in place, as the graph's channels do."""
    fold = reducers()
    for key, value in update.items():
        state[key] = fold[key](state[key], value) if key in fold and key in state else value


def plain_episode(task: Task, settings: RunSettings, kb: Any = None) -> dict:
    """One episode without LangGraph (no LLM, tracer or checkpoint: what `deps bench` times)."""
    ctx = build_context(task, settings, None, kb)
    runtime = Runtime(context=ctx)
    state: dict = {"task": ctx.task.to_dict(), "inventory": ctx.world.inventory, "env_steps": 0}
    if callable(getattr(ctx.world, "snapshot", None)):
        state["world"] = ctx.world.snapshot()
    t0 = time.monotonic()
    node = "plan"
    while node != END:
        update = NODES[node](state, runtime)
        merge(state, update)
        node = after_execute(update) if node == "execute" else NEXT[node]
    finish = getattr(ctx.planner, "finish", None)
    if callable(finish):
        finish(state)
    return _record(ctx.task, state, time.monotonic() - t0, settings)
