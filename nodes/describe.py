"""The describe node: the outcome of the plan so far, as the DEPS descriptor words it.

"I succeeded on steps 1, 2, 3 but failed on step 4 "mine({'cobblestone':2}, null)": needs a
wooden_pickaxe or better. My inventory now has 10 planks, 4 stick." No LLM: the game's own
symbolic information, distilled to what the plan needs.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nodes.context import AgentContext
from nodes.state import AgentState
from worlds.types import Goal


def inventory_text(inventory: dict[str, int]) -> str:
    held = [f"{n} {item}" for item, n in sorted(inventory.items()) if n > 0]
    return ", ".join(held) if held else "nothing"


def _still_to_make(goal: Goal, gained: dict[str, int]) -> str:
    """ ", with 1 of its 5 planks still to make" when a failed goal made part of what it asked
    for, so that a re-plan can ask for the rest as written; "" otherwise."""
    if goal.action not in ("mine", "craft", "smelt") or len(goal.obj) != 1:
        return ""
    item, want = next(iter(goal.obj.items()))
    got = int(gained.get(item, 0))
    if not 0 < got < want:
        return ""
    return f" with {want - got} of its {want} {item} still to make"


def describe_outcomes(state: AgentState) -> str:
    plan_no = len(state["plans"]) - 1
    outcomes = [o for o in state.get("outcomes", []) if o["plan"] == plan_no]
    ok_steps = [str(o["step"] + 1) for o in outcomes if o["ok"] and o["step"] is not None]
    last = outcomes[-1]
    parts = []
    if ok_steps:
        parts.append(f"I succeeded on step{'s' if len(ok_steps) > 1 else ''} {', '.join(ok_steps)}")
    if last["step"] is None:
        parts.append(("but " if ok_steps else "") + last["error"])
    else:
        goal = Goal.from_dict(last["goal"])
        left = _still_to_make(goal, last.get("gained") or {})
        parts.append(
            f'{"but I" if ok_steps else "I"} failed on step {last["step"] + 1} "{goal.code()}"{left}: {last["error"]}'
        )
    text = " ".join(parts) + "."
    notes = state.get("parse_notes") or []
    if notes:
        text += " I could not follow parts of the plan: " + "; ".join(notes) + "."
    return text + f" My inventory now has {inventory_text(state.get('inventory', {}))}."


def recipe_hints(missing: dict | None, kb, depth: int = 3) -> str:
    """What the game's recipe book says about the missing items (tools included), and
    about what those are made of, down to `depth` levels."""
    from worlds.options import best_option, describe_option

    todo = [v if k == "tool" else k for k, v in (missing or {}).items()]
    hints, seen = [], set()
    for _ in range(depth):
        nxt = []
        for name in todo:
            canon = kb.canonical(name) if isinstance(name, str) else None
            if canon is None or canon in seen:
                continue
            seen.add(canon)
            opt = best_option(kb, canon)
            if opt is None:
                continue
            hints.append(describe_option(kb, opt))
            nxt += list(opt.inputs) + ([opt.tool] if opt.tool else [])
        todo = nxt
    return (" Recipe book: " + "; ".join(hints) + ".") if hints else ""


class GameDescriber:
    """The default describer: the game's own outcome, in the DEPS descriptor's words, plus
    (unless turned off) the recipe book's line for what is missing."""

    name = "game"

    def __init__(self, kb, recipe_hints: bool = True):
        self.kb, self.recipe_hints = kb, recipe_hints

    def describe(self, state: AgentState) -> str:
        text = describe_outcomes(state)
        if self.recipe_hints:
            text += recipe_hints(state["outcomes"][-1].get("missing"), self.kb)
        return text


def describe(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    return {"descriptions": [runtime.context.describer.describe(state)]}


def make_describer(kb: Any, settings: Any) -> GameDescriber:
    """The default describer, with or without the recipe book's line (--no-recipe-hints, or
    --knowledge none: no recipe facts anywhere in the planner's prompt)."""
    return GameDescriber(kb, recipe_hints=settings.recipe_hints and getattr(settings, "knowledge", "target") != "none")
