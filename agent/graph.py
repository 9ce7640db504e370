"""The DEPS loop as a LangGraph state graph.

    plan -> parse -> select -> execute --(goal done, plan goes on)--> select
                                  |------(task done / budget spent)-> END
                                  '------(goal failed)--> describe -> explain -> plan

Each node lives in its own module under `nodes/`; what they use (planner, selector,
controller, world, LLM) comes from the runtime context (nodes/context.py).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command

from nodes.context import AgentContext
from nodes.describe import describe
from nodes.execute import execute
from nodes.explain import explain
from nodes.parse import parse
from nodes.plan import plan
from nodes.select import select
from nodes.state import AgentState


def after_execute(update: AgentState) -> Literal["select", "describe", "__end__"]:
    """Where the loop goes after a goal ran, read from execute's update (it always sets both)."""
    if update["status"] != "running":
        return END  # success, or a budget ran out (failure_reason says which)
    if update["outcomes"][-1]["ok"]:
        return "select"  # next goal of the same plan
    return "describe"  # failure: describe it, explain it, re-plan


def routed(node: Callable) -> Callable:
    """`node` (execute) returning its update with where to go next, as a LangGraph Command: a
    conditional edge would copy every channel of the state at each goal just to read two of them."""

    def execute(state: AgentState, runtime: Runtime) -> Command:
        update = node(state, runtime)
        return Command(update=update, goto=after_execute(update))

    return execute


NODES = {"plan": plan, "parse": parse, "select": select, "execute": execute, "describe": describe, "explain": explain}


def build_graph(checkpointer=None, *, wrap=None, context_schema=AgentContext, input_schema=None, interrupt_before=None):
    """The compiled loop. `wrap(node)` may decorate every node (agent/api.py builds the parts
    from a plain-data context that way); `context_schema` is what runs carry."""
    g = StateGraph(AgentState, context_schema=context_schema, input_schema=input_schema)
    for name, node in NODES.items():
        node = wrap(node) if wrap else node
        if name == "execute":  # it routes itself: select, describe or the end (after_execute)
            g.add_node(name, routed(node), destinations=("select", "describe", END))
        else:
            g.add_node(name, node)

    g.add_edge(START, "plan")
    g.add_edge("plan", "parse")
    g.add_edge("parse", "select")
    g.add_edge("select", "execute")
    g.add_edge("describe", "explain")
    g.add_edge("explain", "plan")
    return g.compile(checkpointer=checkpointer, interrupt_before=interrupt_before)


@lru_cache(maxsize=1)
def _loop():
    return build_graph()


def episode_graph(checkpointer=None):
    """The loop compiled once per process (compiling cost ~60 ms an episode, issue 21); with a
    checkpointer, a copy of it that carries that checkpointer. Safe to share across threads."""
    graph = _loop()
    return graph if checkpointer is None else graph.copy({"checkpointer": checkpointer})


def mermaid() -> str:
    return build_graph().get_graph().draw_mermaid()
