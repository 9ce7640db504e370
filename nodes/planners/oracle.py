"""The oracle planner: the shortest skill sequence from the game's recipe data, no LLM.

It re-plans from the current inventory after a failure (in a stochastic world a goal can
fail for no fault of the plan). It is the upper bound of a perfect planner in every report.
When the recipe data has no way to the task (from what is held, with the allowed skills),
it says so with the cause, and the episode ends at once with that cause.
"""
from __future__ import annotations

from nodes.planners.base import PlanRequest, PlanResult, goals_to_text, no_plan
from worlds.solver import Unreachable, solve


class OraclePlanner:
    name = "oracle"
    replans = True

    def plan(self, request: PlanRequest) -> PlanResult:
        try:
            goals = solve(request.kb, request.task.target, request.inventory,
                          allowed_skills=request.allowed_skills)
        except Unreachable as e:
            return no_plan(str(e))
        return PlanResult(goals_to_text(goals))
