"""The DEPS loop as a LangGraph state graph.

    plan -> parse -> select -> execute --(goal done, plan goes on)--> select
                                  |------(task done / budget spent)-> END
                                  '------(goal failed)--> describe -> explain -> plan

Each node lives in its own module under `nodes/`; what they use (planner, selector,
controller, world, LLM) comes from the runtime context (nodes/context.py).
"""
from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph

from nodes.context import AgentContext
from nodes.describe import describe
from nodes.execute import execute
from nodes.explain import explain
from nodes.parse import parse
from nodes.plan import plan
from nodes.select import select
from nodes.state import AgentState


def after_execute(state: AgentState) -> Literal["select", "describe", "__end__"]:
    if state["status"] != "running":
        return END                      # success, or a budget ran out (failure_reason says which)
    if state["outcomes"][-1]["ok"]:
        return "select"                 # next goal of the same plan
    return "describe"                   # failure: describe it, explain it, re-plan


def build_graph(checkpointer=None):
    g = StateGraph(AgentState, context_schema=AgentContext)
    g.add_node("plan", plan)
    g.add_node("parse", parse)
    g.add_node("select", select)
    g.add_node("execute", execute)
    g.add_node("describe", describe)
    g.add_node("explain", explain)

    g.add_edge(START, "plan")
    g.add_edge("plan", "parse")
    g.add_edge("parse", "select")
    g.add_edge("select", "execute")
    g.add_conditional_edges("execute", after_execute, ["select", "describe", END])
    g.add_edge("describe", "explain")
    g.add_edge("explain", "plan")
    return g.compile(checkpointer=checkpointer)


def mermaid() -> str:
    return build_graph().get_graph().draw_mermaid()
