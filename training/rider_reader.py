"""A rider teacher whose every answer can be read off its own question (issue 23, part 2).

The oracle teacher (training/rider_teacher.py) answers with the recipe solver's next skill for
the whole task: from an empty inventory, "obtain 1 spruce_boat" is answered "mine spruce log".
Nothing in the question says so (the recipe line is the boat's), so a small model trained on
it can only memorise the answers of the items it was shown.  This teacher answers the question
that is asked:

- the skill that makes the sub-task shown, as its recipe-book line names it: the verb of the
  line and the shown item (for a kill, the mob of the line), whatever the inventory holds;
- but when the recipe line goes on past the sub-task's own fact (the items the world said the
  sub-task lacked at its last refusal, and it still lacks), the skill of the next line;
- when that skill is refused, the world's cause names what is missing, with its own recipe-book
  line, and the planner makes the missing item the sub-task shown (sub-task relabelling): so a
  revision is answered by the same rule, from the line the feedback just gave.

Held to this rule, the skills go depth first down the recipe tree, led by the world's refusals,
and a model that learns to copy the verb and the item of the line it is shown can do it for an
item it never saw.  Where the rule has no answer (the same skill was just refused for the same
sub-task, and the refusal named nothing the sub-task needs) the teacher falls back to the
solver's next skill for the sub-task.

    deps train llm-data --teacher reader ...   (training/llm_cli.py)
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage

from nodes.planners.base import PlanRequest
from nodes.planners.rider.planner import RiderPlanner
from nodes.planners.rider.prompt import read_record, reply_text
from training.rider_teacher import solver_reply
from worlds.options import best_option

NAME = "training.rider_reader:factory"


def direct_skill(kb: Any, item: str) -> str | None:
    """The skill that makes `item` itself, as its recipe-book line says (worlds/facts.py):
    'craft stick', 'mine cobblestone', 'smelt iron ingot', 'kill cow'; None when none does."""
    canon = kb.canonical(item) or item
    opt = best_option(kb, canon)
    if opt is None:
        return None
    noun = str(opt.source) if opt.kind == "kill" else canon
    return f"{opt.kind} {noun.replace('_', ' ')}"


class ReaderRider(RiderPlanner):
    name = "rider-reader"

    def propose(
        self,
        req: PlanRequest,
        msgs: list[BaseMessage],
        salt: int,
        total: dict[str, int],
        shown: Any = None,
        short: list[str] | None = None,
    ) -> str:
        level = dict(shown or req.task.target)
        item = (short or [next(iter(level))])[0]
        skill = direct_skill(req.kb, item)
        ran = [o for o in req.outcomes if o.get("goal")]
        records = [r for r in (read_record(p) for p in req.plans) if r is not None]
        repeated = bool(ran) and not ran[-1]["ok"] and records and records[-1].get("skill") == skill
        if skill is not None and not (repeated and records[-1].get("shown") == level):
            return reply_text(skill)
        return solver_reply(req, level)  # the rule has no answer here: the solver's next skill for the sub-task


def factory(settings: Any = None) -> ReaderRider:
    opts = settings.option("rider")
    return ReaderRider(None, revisions=opts.revisions, relabel=opts.relabel)


def reader_examples(
    kb: Any, row: dict[str, Any], source: str = "teacher:reader", keep: str = "rule"
) -> list[dict[str, Any]]:
    """The decisions of a stored rider episode as the planner asked them (the plain question, or
    the revision question after a refusal, rebuilt by the planner's own message code from the
    decision's record) with the answer given.  keep="rule": every answer the reader's rule gives,
    refused ones included, since the rule answers them too (the solver's fallback left out);
    keep="ran": the answers whose skill ran, of an episode that succeeded (the paper's way of
    learning from its own exploration)."""
    from nodes.planners.rider.prompt import as_chat, revise_messages, step_messages

    records = [r for r in (read_record(p) for p in row.get("plans") or []) if r is not None]
    if keep == "ran" and not row.get("success"):
        return []
    out = []
    for k, r in enumerate(records):
        shown = dict(r["shown"])
        short = list(r.get("short") or [])
        if keep == "rule" and r["skill"] != direct_skill(kb, (short or [next(iter(shown))])[0]):
            continue
        if keep == "ran" and k + 1 < len(records) and records[k + 1].get("revision"):
            continue  # refused: the world said no, and the next decision revised it
        knowledge = r.get("knowledge") or "target"
        msgs = step_messages(kb, shown, r["inventory"], r["history"], r.get("analysis") or "", knowledge, short)
        if r.get("revision") and r.get("feedback") and k > 0:
            prev = records[k - 1]
            msgs = revise_messages(msgs, prev["reply"], prev["skill"], r["feedback"], r["inventory"])
        out.append(
            {
                "messages": [*as_chat(msgs), {"role": "assistant", "content": reply_text(r["skill"])}],
                "task": str(row.get("task_id") or row.get("task")),
                "source": source,
                "format": "rider-step",
                "relabelled": shown != records[0]["stack"][0],
                "revision": bool(r.get("revision")),
                "step": k,
                "shown": shown,
                "target": dict(row.get("target") or records[0]["stack"][0]),
            }
        )
    return out
