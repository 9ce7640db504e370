"""The plan node: the planner writes (or rewrites) the plan from the dialogue so far."""
from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.context import AgentContext
from nodes.planners.base import PlanRequest
from nodes.state import AgentState
from worlds.context_tasks import world_state
from worlds.types import Task


def plan(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    ctx = runtime.context
    request = PlanRequest(
        task=Task(**state["task"]) if isinstance(state.get("task"), dict) else ctx.task,
        inventory=state["inventory"] if "inventory" in state else ctx.world.inventory,
        plans=state.get("plans", []),
        descriptions=state.get("descriptions", []),
        explanations=state.get("explanations", []),
        outcomes=state.get("outcomes", []),
        kb=ctx.kb,
        allowed_skills=ctx.settings.skills,
        recipe_hints=ctx.settings.recipe_hints,
        knowledge=ctx.settings.knowledge,
        seed=ctx.settings.seed,
        observation=world_state(ctx.world),
    )
    result = ctx.planner.plan(request)
    return {"plans": [result.text], "plan_usage": result.usage or {}, "no_plan": result.no_plan_cause()}
