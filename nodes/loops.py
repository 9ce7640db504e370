"""The loop guard: a planner that proposes, a third time, a goal block that already failed
twice in this episode is stopped, and the episode ends with the failure described as a loop
(issue 23: "a failing episode never proposes an identical goal block more than twice"; since
2026-11-29 the failures counted are those the episode has not acted on, below).

A goal block is a plan's goal lines with comments, record lines (`# rider {...}`) and
spacing left out, so two plans that differ only in their step comments are the same block.
A plan failed when a goal of it failed for a rule of the world (a missing material, tool or
station), or when it had no goal that could run; a failure by the controller's success rate
(the world says "try again") does not count, nor does a plan whose goals all ran.  The oracle keeps its
own rule (nodes/planners/oracle.py: the same failure twice, with the same cause) and says
so with `loop_guard = False`.

A failure the episode has since acted on does not count either: one whose refusal named an
item missing (`needs 1 log, has 0`) and after which a goal gained that item. A long episode
asks for `craft planks` with no log held once on the way down and again when its planks run
out; after the next `mine log`, a third `craft planks` is the way on, not a loop. A refusal
for want of fuel is acted on once a later goal gained an item that burns, and one that named a
group (from 1.13 on `log`) once a later goal gained any of its members (`oak_log`). A failure that
named nothing missing, or a tool or fuel that no later goal gained, still counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from worlds.facts import missing_names

Groups = Mapping[str, Iterable[str]] | None  # a group's name -> its members (KnowledgeBase.groups())

_SPACE = re.compile(r"\s+")


def goal_block(text: str) -> tuple[str, ...]:
    """The plan's goal lines, comments and spacing left out."""
    lines = []
    for line in str(text).splitlines():
        code = line.split("#", 1)[0]
        code = _SPACE.sub("", code)
        if code:
            lines.append(code)
    return tuple(lines)


def failed_plans(outcomes: list[dict]) -> dict[int, dict]:
    """Plan number -> its last outcome, for the plans whose goal failed for a rule, or that had
    no goal to run. A plan whose goals all ran without the task's item being held is not a
    failed block (a one-skill planner ends every plan so)."""
    last: dict[int, dict] = {}
    ran: set[int] = set()
    for o in outcomes:
        if o.get("plan") is not None:
            last[int(o["plan"])] = o
            if o.get("step") is not None:
                ran.add(int(o["plan"]))
    return {
        p: o
        for p, o in last.items()
        if not o.get("ok") and not o.get("chance") and (o.get("step") is not None or p not in ran)
    }


def acted_on(failure: dict, later: list[dict], fuels: frozenset[str] = frozenset(), groups: Groups = None) -> bool:
    """Whether a goal that ran after `failure` gained an item the failure named missing (any of
    `fuels` for a refusal that wanted fuel; any member of a group it named, `groups`: an oak log
    for "needs 1 log" from 1.13 on)."""
    missing = failure.get("missing") or {}
    names = set(missing_names(missing)) | (set(fuels) if "fuel" in missing else set())
    names |= {m for n in names for m in (groups or {}).get(n, ())}
    return bool(names) and any(o.get("ok") and names & set(o.get("gained") or {}) for o in later)


def standing_failures(
    outcomes: list[dict], fuels: frozenset[str] = frozenset(), groups: Groups = None
) -> dict[int, dict]:
    """failed_plans, less the failures the episode has since acted on."""
    at = {id(o): k for k, o in enumerate(outcomes)}
    failed = failed_plans(outcomes).items()
    return {p: o for p, o in failed if not acted_on(o, outcomes[at[id(o)] + 1 :], fuels, groups)}


def loop_cause(
    plans: list[str], outcomes: list[dict], text: str, fuels: frozenset[str] = frozenset(), groups: Groups = None
) -> str | None:
    """Why proposing `text` now is a loop (its goal block failed in two earlier plans, for causes
    the episode has not acted on since; `fuels`: the items that burn, `groups`: each group's
    members, the knowledge base's), else None."""
    block = goal_block(text)
    if not block:
        return None
    failed = standing_failures(outcomes, fuels, groups)
    same = [r for r, p in enumerate(plans) if r in failed and goal_block(p) == block]
    if len(same) < 2:
        return None
    shown = "; ".join(block[:3]) + (f"; ... ({len(block)} goals)" if len(block) > 3 else "")
    rounds = ", ".join(str(r + 1) for r in same)
    last = failed[same[-1]].get("error") or "it failed"
    return (
        f"the planner is looping: it proposed a third time the goal block that failed in plans {rounds} "
        f"({shown}); last failure: {last}"
    )
