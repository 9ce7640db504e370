"""The oracle planner: the shortest skill sequence from the game's recipe data, no LLM.

It re-plans from the current inventory after a failure (in a stochastic world a goal can
fail for no fault of the plan). It is the upper bound of a perfect planner in every report.
It routes around what the world does not build, where the world says (`World.gives`: the grid
world has no dungeons, so mossy cobblestone is crafted from a vine).  When the recipe data has
no way to the task (from what is held, with the allowed skills), it says so with the cause,
and the episode ends at once with that cause.  It cannot learn from the world (a grid world
with no cocoa nearby): when the plan it would give again has already failed twice in a row at
the same goal with the same cause, it stops there and gives the world's cause instead of
re-planning to the round budget.
"""

from __future__ import annotations

from nodes.planners.base import PlanRequest, PlanResult, goals_to_text, no_plan
from worlds.solver import Unreachable, solve


class OraclePlanner:
    name = "oracle"
    replans = True
    loop_guard = False  # its own rule below (nodes/loops.py is for planners that can learn)

    def plan(self, request: PlanRequest) -> PlanResult:
        try:
            goals = solve(
                request.kb,
                request.task.target,
                request.inventory,
                allowed_skills=request.allowed_skills,
                gives=request.gives,
            )
        except Unreachable as e:
            return no_plan(str(e))
        text = goals_to_text(goals)
        cause = repeated_failure(request, text)
        if cause:
            return no_plan(f"the same plan failed twice at the same step, with the same cause: {cause}")
        return PlanResult(text)


def repeated_failure(request: PlanRequest, text: str) -> str | None:
    """The world's cause when `text` is the plan of each of the last two rounds and both
    failed at the same goal with the same error; else None."""
    if len(request.plans) < 2 or request.plans[-1] != text or request.plans[-2] != text:
        return None
    last = {}
    for o in request.outcomes:  # the last failure of each plan
        if not o.get("ok"):
            last[o.get("plan")] = o
    n = len(request.plans)
    a, b = last.get(n - 2), last.get(n - 1)
    if a and b and a.get("goal") == b.get("goal") and a.get("error") == b.get("error") and a.get("error"):
        return str(b["error"])
    return None
