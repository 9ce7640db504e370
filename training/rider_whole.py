"""Rider next-skill turns over the whole game, from the rider's oracle teacher run through
the real graph (training/whole_game.py picks the tasks).

The teacher here stumbles now and then: at a seeded share of its fresh decisions it names the
last skill of the oracle's plan (most often the task's own item, which cannot be made yet),
as the untrained model does. The world refuses it with its own cause, the rider planner builds
its feedback-revision question from that refusal (nodes/planners/rider/prompt.py), and the
teacher answers it with the recipe solver's next skill. So the revision turns in the data are
real failures, asked exactly as the planner asks them.

    examples = rider_examples(tasks, kb)   # plain next-skill turns + revision turns
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable
from typing import Any

from langchain_core.messages import BaseMessage

from nodes.planners.base import PlanRequest
from nodes.planners.rider.prompt import as_chat, read_record, reply_text, revise_messages, step_messages
from training.rider_teacher import OracleRider
from worlds.solver import Unreachable, solve
from worlds.types import Task

NAME = "training.rider_whole:factory"
STUMBLE_PCT = 25  # share of fresh decisions (in %) where the teacher names a skill that cannot run yet


def _coin(*parts: Any) -> int:
    return int(hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest(), 16) % 100


class StumblingOracleRider(OracleRider):
    name = "rider-oracle-stumbling"
    loop_guard = False  # its one-skill plans repeat by design (nodes/loops.py); the solver never loops

    def __init__(self, *args: Any, stumble_pct: int = STUMBLE_PCT, **kw: Any):
        super().__init__(*args, **kw)
        self.stumble_pct = stumble_pct

    def propose(
        self,
        req: PlanRequest,
        msgs: list[BaseMessage],
        salt: int,
        total: dict[str, int],
        shown: Any = None,
        short: Any = None,
    ) -> str:
        ran = [o for o in req.outcomes if o.get("goal")]
        revising = bool(ran) and not ran[-1]["ok"]
        if not revising and _coin(req.task.id, req.seed, len(req.plans)) < self.stumble_pct:
            try:
                goals = solve(req.kb, dict(req.task.target), req.inventory, allowed_skills=req.allowed_skills)
            except Unreachable:
                goals = []
            if len(goals) >= 2:
                g = goals[-1]
                return reply_text(f"{g.action} {next(iter(g.obj)).replace('_', ' ')}")
        return super().propose(req, msgs, salt, total, shown, short)


def factory(settings: Any = None) -> StumblingOracleRider:
    opts = settings.option("rider")
    return StumblingOracleRider(None, revisions=opts.revisions, relabel=opts.relabel)


def revision_examples(kb: Any, row: dict[str, Any], source: str = "teacher:oracle") -> list[dict[str, Any]]:
    """The feedback-revision turns of a stored rider episode whose revised skill ran: the
    planner's own revision question (rebuilt from its records) and the skill that ran."""
    records = [r for r in (read_record(p) for p in row.get("plans") or []) if r is not None]
    success = bool(row.get("success"))
    out = []
    for k, r in enumerate(records):
        if k == 0 or not r.get("revision") or not r.get("feedback"):
            continue
        ran = records[k + 1]["revision"] == 0 if k + 1 < len(records) else success
        if not ran:
            continue
        prev = records[k - 1]
        base = step_messages(kb, r["shown"], r["inventory"], r["history"], r.get("analysis") or "")
        msgs = revise_messages(base, prev["reply"], prev["skill"], r["feedback"], r["inventory"])
        out.append(
            {
                "messages": [*as_chat(msgs), {"role": "assistant", "content": reply_text(r["skill"])}],
                "task": str(row.get("task")),
                "source": source,
                "format": "rider-step",
                "relabelled": r["shown"] != records[0]["stack"][0],
                "revision": True,
                "step": k,
                "shown": dict(r["shown"]),
            }
        )
    return out


MAX_ROUNDS = 6  # 60 skills an episode: enough for most items; a longer one still gives its sub-tasks


def teacher_rows(
    tasks: Iterable[Task],
    kb: Any,
    *,
    mc_version: str = "1.11.2",
    seed: int = 0,
    progress: bool = False,
    max_rounds: int = MAX_ROUNDS,
    planner: str = NAME,
) -> list[dict[str, Any]]:
    """One stumbling-teacher episode per task, through the real graph: the stored rows
    (their plans carry the rider's `# rider {...}` records), each with its task's target and
    start-inventory variant."""
    from agent.runner import run_episode
    from nodes.settings import RunSettings

    settings = RunSettings(planner=planner, mc_version=mc_version, seed=seed, max_rounds=max_rounds)
    rows = []
    tasks = list(tasks)
    for n, task in enumerate(tasks, 1):
        row = run_episode(task, settings, kb=kb)
        rows.append(
            {
                "task": task.id,
                "task_id": task.id,
                "target": dict(task.target),
                "variant": task.group,
                "success": bool(row["success"]),
                "plans": row["plans"],
                "seed": seed,
                "episode": 0,
            }
        )
        if progress and n % 50 == 0:
            print(f"rider teacher: {n}/{len(tasks)} episodes", file=sys.stderr)
    return rows


def examples_from_rows(kb: Any, rows: Iterable[dict[str, Any]], teacher: str = "oracle") -> list[dict[str, Any]]:
    """The rider examples of stored teacher rows, their prompts rebuilt by the planner's own
    message code from each decision's record (so they carry today's prompt): the oracle's as the
    collector keeps them, the reader's every question as it was asked (training/rider_reader.py)."""
    from training.collect import episode_examples
    from training.rider_reader import reader_examples

    out: list[dict[str, Any]] = []
    for row in rows:
        got = (
            reader_examples(kb, row)
            if teacher == "reader"
            else episode_examples(kb, row, "teacher:oracle") + revision_examples(kb, row)
        )
        for e in got:
            e["target"] = dict(row["target"])
            e["variant"] = row.get("variant")
            out.append(e)
    return out


def rider_examples(
    tasks: Iterable[Task], kb: Any, *, mc_version: str = "1.11.2", seed: int = 0, progress: bool = False
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Rider examples (plain turns as the collector keeps them, and revision turns) from one
    teacher episode per task; also {episodes, successes}."""
    rows = teacher_rows(tasks, kb, mc_version=mc_version, seed=seed, progress=progress)
    info = {"episodes": len(rows), "successes": sum(r["success"] for r in rows)}
    return examples_from_rows(kb, rows), info
