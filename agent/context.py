"""The runtime context of one episode (LangGraph 1.x `context_schema`).

Everything a node needs that is not episode state: the settings, the knowledge base, the
world, and the swappable parts (planner, parser, selector, controller, explainer, LLM).
Nodes receive it as `runtime.context`; nothing here is checkpointed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.config import RunSettings
from agent.types import Task


@dataclass
class AgentContext:
    settings: RunSettings
    task: Task
    kb: Any                 # worlds.knowledge.KnowledgeBase
    world: Any              # a world with reset/step/inventory (worlds.textworld.TextWorld, ...)
    planner: Any            # nodes.planners.base.Planner
    parser: Any             # nodes.parse.GoalParser
    selector: Any           # nodes.selectors.Selector
    controller: Any         # skills.controller.Controller
    explainer: Any          # nodes.explain.Explainer
    llm: Any = None         # agent.llm.ChatModelHandle, or None for planners without an LLM
    max_rounds: int = 12    # re-planning rounds allowed (0 for plan-once planners)
    tracer: Any = None      # agent.trace.Tracer, or None
