"""The recipe facts a planner's prompt carries (--knowledge none|target|tree), for one request.

Exact look-up first: the knowledge base's line for each name it knows (worlds/facts.py).
A name it does not know (a free-text task's words) is asked of MP5's knowledge memory when
the planner has one (nodes/planners/mp5/knowledge.py): the nearest stored fact.  Every LLM
planner (deps, dep, rider, mp5, and the DEPS baselines with --baseline-facts) takes its facts
from here, so the ablation flag means the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from worlds.facts import facts, facts_text, missing_names

__all__ = ["prompt_facts", "recipe_book", "failure_missing", "facts_text"]


def prompt_facts(
    kb: Any, targets: Iterable[str], missing: Iterable[str] = (), mode: str = "target", memory: Any = None
) -> list[str]:
    """The fact lines for `targets` and `missing` under `mode`; unknown names from `memory`."""
    if kb is None or mode == "none":
        return []
    targets, missing = list(targets), list(missing)
    lines = facts(kb, targets, missing, mode)
    unknown = [n for n in dict.fromkeys([*targets, *missing]) if kb.canonical(n) is None]
    if unknown and memory is not None:
        for hit in memory.nearest_facts(unknown):
            if hit and hit not in lines:
                lines.append(hit)
    return lines


def recipe_book(
    kb: Any, targets: Iterable[str], missing: Iterable[str] = (), mode: str = "target", memory: Any = None
) -> str:
    """The facts as one prompt sentence, "Recipe book: ...." ("" when there are none)."""
    lines = prompt_facts(kb, targets, missing, mode, memory)
    return f"Recipe book: {facts_text(lines)}." if lines else ""


def failure_missing(outcomes: list[dict], plan_no: int | None = None) -> list[str]:
    """What the world said was missing at the last failure (of plan `plan_no`, when given)."""
    for o in reversed(outcomes):
        if plan_no is not None and o.get("plan") != plan_no:
            continue
        if not o.get("ok"):
            return missing_names(o.get("missing"))
        if plan_no is None:
            return []
    return []
