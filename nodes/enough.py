"""Whether a goal that fell short still leaves enough for the rest of its plan.

A planner's counts are often off. "mine 1 log; craft 5 planks from it; craft a boat from 5
planks" asks one log for five planks: the craft makes 4, the world refuses the fifth (needs 1
log, has 0), and with the 3 planks held before, 7 are held where the boat wants 5. Re-planning
there gives the planner a failure that does not matter, and a small model answers it with the
same plan, round after round (the held-out birch boat, 2026-12-05: 30 rounds, 115 planks).

So a goal that failed counts as done when every item it was for is held in at least the amount
the plan's goals still to run use of it, and that amount is above zero: a goal nothing later
uses is not judged here. What a goal uses is the world's own recipe for what it makes (the
recipe whose ingredients the plan named, else the first), scaled by the crafts it takes, one
of a smelt's input per output, and one of the tool or station it names. The outcome keeps the
world's refusal and says what was held and used (`short`). `--short-goals replan` restores the
paper's rule, where any failed goal is described, explained and planned again.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from worlds.types import Goal


def uses(goal: Goal, kb: Any) -> dict[str, int]:
    """Item -> how many of it `goal` consumes or must hold (its tool or station: 1)."""
    need: dict[str, int] = {}

    def add(item: str, n: int) -> None:
        need[item] = need.get(item, 0) + n

    if goal.action == "craft":
        for item, n in goal.obj.items():
            r = kb.recipe_named(item, goal.materials)
            if r is None:
                continue
            crafts = math.ceil(n / max(r.count, 1))
            for ing, m in r.ingredients.items():
                add(ing, crafts * m)
    elif goal.action == "smelt":
        for item, n in goal.obj.items():
            rs = kb.smelting(item)
            r = next((r for r in rs if r.input in goal.materials), rs[0] if rs else None)
            if r is not None:
                add(r.input, math.ceil(n / max(r.count, 1)))
    if goal.tool:
        need[goal.tool] = max(need.get(goal.tool, 0), 1)
    return need


def enough_for_rest(goal: Goal, rest: Iterable[Goal], inventory: dict[str, int], kb: Any) -> dict[str, list[int]]:
    """{item: [held, used later]} for each item `goal` was for, when every one of them is held in
    at least the amount the goals `rest` use of it and that amount is above zero; {} otherwise.
    An item counts toward a use it fills (its group's name: `planks` for oak planks)."""
    if goal.action not in ("mine", "craft", "smelt") or not goal.obj:  # a kill names its mob, not its drops
        return {}
    later: dict[str, int] = {}
    for g in rest:
        for item, n in uses(g, kb).items():
            later[item] = later.get(item, 0) + n
    found: dict[str, list[int]] = {}
    for item in goal.obj:
        names = [u for u in later if u == item or item in kb.holders(u)]
        if not names:
            return {}
        for u in names:
            held = kb.count(inventory, u)
            if held < later[u]:
                return {}
            found[u] = [held, later[u]]
    return found


def outcome_state(o: dict) -> str:
    """An outcome as the progress line and the trace's timeline say it: "ok", "FAILED: <the
    world's cause>", or for a goal done short, "ok, short but enough (7 planks held, 5 used
    later): <the world's cause>"."""
    if not o["ok"]:
        return f"FAILED: {o['error']}"
    if o.get("short"):
        held = ", ".join(f"{h} {item} held, {n} used later" for item, (h, n) in o["short"].items())
        return f"ok, short but enough ({held}): {o['error']}"
    return "ok"
