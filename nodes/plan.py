"""The plan node: the planner writes (or rewrites) the plan from the dialogue so far."""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.context import AgentContext
from nodes.loops import loop_cause
from nodes.planners.base import PlanRequest, no_plan
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
        gives=getattr(ctx.world, "gives", None),
    )
    result = ctx.planner.plan(request)
    cause = result.no_plan_cause()
    if cause is None and getattr(ctx.planner, "loop_guard", True):
        fuels = frozenset(ctx.kb.fuels())  # a refusal for want of fuel is acted on by any of them
        groups = ctx.kb.groups()  # and one for a group (log) by any member (oak_log)
        loop = loop_cause(request.plans, request.outcomes, result.text, fuels, groups)  # nodes/loops.py
        if loop:  # the block is not run a third time: the episode ends, the loop said as such
            result = no_plan(loop, result.usage)
            cause = loop
    return {"plans": [result.text], "plan_usage": result.usage or {}, "no_plan": cause}
