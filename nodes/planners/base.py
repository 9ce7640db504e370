"""The planner interface: one call per (re-)plan.

A planner gets a `PlanRequest` (the task, what the agent holds, the dialogue so far) and
returns a `PlanResult` (the plan as text in the DEPS code form, plus LLM usage). Anything
with a `plan(request)` method is a planner; so is a plain function `request -> str`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from worlds.types import Goal, Task


@dataclass
class PlanRequest:
    task: Task
    inventory: dict[str, int]
    plans: list[str]  # earlier plans, oldest first
    descriptions: list[str]  # what happened to each earlier plan
    explanations: list[str]  # why it failed, per the explainer
    outcomes: list[dict] = field(default_factory=list)  # every executed goal so far, with its result
    kb: Any = None  # worlds.knowledge.KnowledgeBase
    allowed_skills: tuple[str, ...] | None = None
    recipe_hints: bool = False  # the describer's switch (--no-recipe-hints); planners read `knowledge`
    knowledge: str = "target"  # recipe facts in the prompt: none | target | tree (worlds/facts.py)
    seed: int = 0  # the episode's seed (sampling seeds derive from it)
    observation: dict[str, Any] = field(default_factory=dict)  # the world's context_state(), normalised
    gives: Any = None  # goal -> bool where the world builds less than the recipe book knows (World.gives)

    @property
    def round(self) -> int:
        return len(self.plans)


@dataclass
class PlanResult:
    text: str
    usage: dict[str, int] = field(default_factory=dict)  # {calls, tokens_in, tokens_out}
    impossible: str | None = None  # the cause, when the planner knows no plan can reach the task

    def no_plan_cause(self) -> str | None:
        """Why no plan is possible: `impossible`, or a plan whose first line says so
        ("no plan is possible: <cause>", or "# no plan: <cause>"); None for a real plan.
        The graph ends the episode at once with this cause (nodes/execute.py)."""
        if self.impossible:
            return self.impossible
        first = next((ln.strip() for ln in str(self.text).splitlines() if ln.strip()), "")
        m = _NO_PLAN.match(first)
        return (m.group(1).strip() or "the planner gave no reason") if m else None


_NO_PLAN = re.compile(r"^#?\s*no plan(?: is possible)?\s*:\s*(.*)$", re.IGNORECASE)


def no_plan(cause: str, usage: dict[str, int] | None = None) -> PlanResult:
    """The answer of a planner that knows no plan exists: the episode ends with `cause`."""
    return PlanResult(f"# no plan is possible: {cause}", dict(usage or {}), impossible=cause)


class Planner(Protocol):
    name: str
    replans: bool  # False for plan-once planners (zero-shot): the episode ends at the first failure

    def plan(self, request: PlanRequest) -> PlanResult: ...


def goals_to_text(goals: list[Goal]) -> str:
    """A plan in the DEPS code form, one goal a line with its step comment."""
    lines = []
    for k, g in enumerate(goals, 1):
        comment = f"  # step {k}: {g.text}" if g.text else f"  # step {k}"
        lines.append(g.code() + comment)
    return "\n".join(lines)


class FunctionPlanner:
    """Wraps a user's function `request -> str | list[Goal]` as a planner."""

    replans = True

    def __init__(self, fn: Callable[[PlanRequest], Any], name: str | None = None):
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "custom")

    def plan(self, request: PlanRequest) -> PlanResult:
        out = self.fn(request)
        if isinstance(out, PlanResult):
            return out
        if isinstance(out, list):
            return PlanResult(goals_to_text(out))
        return PlanResult(str(out))
