"""An oracle teacher for the rider planner: the same questions, answered with the recipe
solver's next skill instead of an LLM's (no LLM is opened).

    deps eval --suite plan4mc --tasks log,stone,mob --planner training.rider_teacher:factory \\
        --out runs/rider/teacher --collect data/rider-teacher

Its episodes go through the rider's whole loop (records, sub-task relabelling), so
`--collect` turns them into rider-step examples exactly like exploration's, labelled
`source: teacher:oracle` (LLaMA-Rider learns from its own exploration; this is the separate,
labelled teacher source the issue allows, to compare with it).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage

from nodes.planners.base import PlanRequest
from nodes.planners.rider.planner import RiderPlanner
from nodes.planners.rider.prompt import reply_text
from worlds.solver import Unreachable, solve

NAME = "training.rider_teacher:factory"


def solver_reply(req: PlanRequest, target: dict[str, int]) -> str:
    """The recipe solver's next skill towards `target` from the request's inventory, as a reply
    ("" when it has none)."""
    try:
        goals = solve(req.kb, target, req.inventory, allowed_skills=req.allowed_skills)
    except Unreachable:
        return ""
    if not goals:
        return ""
    g = goals[0]
    return reply_text(f"{g.action} {next(iter(g.obj)).replace('_', ' ')}")


class OracleRider(RiderPlanner):
    name = "rider-oracle"

    def propose(
        self,
        req: PlanRequest,
        msgs: list[BaseMessage],
        salt: int,
        total: dict[str, int],
        shown: Any = None,
        short: Any = None,
    ) -> str:
        return solver_reply(req, dict(req.task.target))


def factory(settings: Any = None) -> OracleRider:
    opts = settings.option("rider")
    return OracleRider(None, revisions=opts.revisions, relabel=opts.relabel)
