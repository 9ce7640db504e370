"""The select node: among the goals whose preconditions hold now, choose one."""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.context import AgentContext
from nodes.selectors import preconditions_hold, world_holds
from nodes.state import AgentState
from worlds.types import Goal


def finished_goals(state: AgentState) -> set[int]:
    """Indices of the current plan's goals that were executed successfully."""
    plan_no = len(state.get("plans", [])) - 1
    return {o["step"] for o in state.get("outcomes", []) if o["plan"] == plan_no and o["ok"]}


def select(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    ctx = runtime.context
    goals = [Goal.from_dict(g) for g in state.get("goals", [])]
    done = finished_goals(state)
    remaining = [i for i in range(len(goals)) if i not in done]
    if not remaining:
        return {"current": None, "selection": {"rule": "no goal left in the plan"}}
    inventory = state["inventory"] if "inventory" in state else ctx.world.inventory
    holds = world_holds(ctx.world)
    candidates = [i for i in remaining if preconditions_hold(goals[i], inventory, ctx.kb, holds)]
    history = {"outcomes": state.get("outcomes", [])} if getattr(ctx.selector, "reads_outcomes", False) else {}
    choice, why = ctx.selector.choose(goals, remaining, candidates, inventory, ctx, **history)
    return {"current": choice, "selection": {"selector": ctx.selector.name, "candidates": candidates, **why}}
