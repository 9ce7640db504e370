"""The runtime context of one episode (LangGraph 1.x `context_schema`).

Everything a node needs that is not episode state: the settings, the knowledge base, the
world, and the swappable parts, each typed by the Protocol it must satisfy. Nodes receive
it as `runtime.context`; nothing here is checkpointed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from nodes.planners.base import Planner
from nodes.selectors import Selector
from nodes.settings import RunSettings
from nodes.state import AgentState
from skills.controller import Controller
from worlds.base import World
from worlds.knowledge import KnowledgeBase
from worlds.types import Goal, Task


class Explainer(Protocol):
    name: str

    def explain(self, failed: str, error: str, inventory: dict[str, int]) -> tuple[str, dict]:
        """Why the goal `failed` (code form) failed: (explanation, LLM usage)."""
        ...


class Describer(Protocol):
    def describe(self, state: AgentState) -> str:
        """The outcome of the plan so far, in words the planner reads (DEPS's descriptor)."""
        ...


class Parser(Protocol):
    def parse(self, text: str) -> tuple[list[Goal], list[str]]:
        """Plan text -> (goals, notes on what could not be mapped)."""
        ...


@dataclass
class AgentContext:
    settings: RunSettings
    task: Task  # localized to the knowledge base's version
    kb: KnowledgeBase
    world: World
    planner: Planner
    parser: Parser
    selector: Selector
    controller: Controller
    explainer: Explainer
    describer: Describer
    max_rounds: int = 12  # re-planning rounds allowed (0 for plan-once planners)
    llm: Any = None  # the open LLM handle (agent.llm), for parts that ask for it
