"""What the rider planner says to the LLM, and the record of each decision it keeps.

The messages (prompts/rider_step.txt, rider_revise.txt, rider_cot.txt) are built here and
only here, so that exploration data (training/collect.py) holds exactly what the planner
sends. Every rider plan carries one `# rider {...}` line (skipped by the parser): the
decision's inputs and choice, from which a later round (or the collector) rebuilds it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage

import prompts
from nodes.describe import inventory_text
from nodes.facts import facts_text, prompt_facts
from nodes.planners.rider.subtasks import Level, label_text
from worlds.options import best_option

RECORD = "# rider "
REPLY_VERBS = ("mine", "craft", "smelt", "kill", "equip", "harvest", "get")


def recipe_text(kb: Any, level: Level, knowledge: str = "target", missing: list[str] | tuple = ()) -> str:
    """The prompt's recipe line for the level's items and what the world said the level still
    lacks (--knowledge: none, target or tree; nodes/facts.py), "" for none."""
    lines = prompt_facts(kb, list(level), missing, knowledge)
    return "Recipe book: " + facts_text(lines) if lines else ""


def requirement_text(kb: Any, level: Level) -> str:
    """What the level's recipes consume and need ("3 planks, 2 stick, 1 crafting_table")."""
    parts = []
    for item in level:
        opt = best_option(kb, item)
        if opt is None:
            continue
        parts += [f"{n} {k}" for k, n in opt.inputs.items()]
        if opt.tool:
            parts.append(f"1 {opt.tool}")
    return ", ".join(parts) or "nothing"


def history_text(history: list[str]) -> str:
    return "; ".join(history) if history else "none yet"


def step_messages(
    kb: Any,
    shown: Level,
    inventory: dict[str, int],
    history: list[str],
    analysis: str = "",
    knowledge: str = "target",
    missing: list[str] | tuple = (),
) -> list[BaseMessage]:
    """The next-skill question (LLaMA-Rider appendix B.1's content, our words)."""
    msgs = prompts.chat(
        "rider_step",
        task=label_text(shown),
        inventory=inventory_text(inventory),
        history=history_text(history),
        recipe=recipe_text(kb, shown, knowledge, missing),
        analysis=f"My check of the recipe: {analysis.strip()}" if analysis.strip() else "",
    )
    last = msgs[-1]
    last.content = "\n".join(line for line in last.content.splitlines() if line.strip())
    return msgs


def revise_messages(
    base: list[BaseMessage], draft: str, skill: str, feedback: str, inventory: dict[str, int]
) -> list[BaseMessage]:
    """The question again, with the failed reply and why it failed in the same message, as appendix
    B.2 asks it in one prompt (our words); a separate assistant turn made the small model repeat itself."""
    turn = prompts.chat("rider_revise", draft=draft.strip(), skill=skill, feedback=feedback)[0]
    *head, question = base
    return [*head, HumanMessage(f"{turn.content}\n{question.content}")]


def cot_messages(kb: Any, shown: Level, inventory: dict[str, int]) -> list[BaseMessage]:
    """The requirement check asked before the skill (appendix B.3's idea, our words)."""
    return prompts.chat(
        "rider_cot",
        task=label_text(shown),
        requirement=requirement_text(kb, shown),
        inventory=inventory_text(inventory),
    )


def reply_text(skill: str) -> str:
    return f"Next skill: {skill}"


@lru_cache(maxsize=8)
def _grammar(nouns: tuple[str, ...]) -> str:
    alts = " | ".join(f'"{n}"' for n in nouns)
    verbs = " | ".join(f'"{v}"' for v in REPLY_VERBS)
    return "\n".join(['root ::= "Next skill: " verb " " noun', f"verb ::= {verbs}", f"noun ::= {alts}"])


def skill_grammar(names: frozenset[str]) -> str:
    """A GBNF grammar for one reply line: 'Next skill: VERB ITEM', the item one of `names` (the
    action space's items and mobs, in words, not ids); retrieval then maps it onto a skill."""
    return _grammar(tuple(sorted(n.replace("_", " ") for n in names)))


def as_chat(msgs: list[BaseMessage]) -> list[dict[str, str]]:
    roles = {"system": "system", "human": "user", "ai": "assistant"}
    return [{"role": roles[m.type], "content": str(m.content)} for m in msgs]


def record_line(record: dict[str, Any]) -> str:
    return RECORD + json.dumps(record, separators=(",", ":"), sort_keys=True)


def read_record(plan_text: str) -> dict[str, Any] | None:
    """The `# rider {...}` record of a plan, or None (another planner's plan, or none made)."""
    for line in plan_text.splitlines():
        if line.startswith(RECORD):
            try:
                return json.loads(line[len(RECORD) :])
            except json.JSONDecodeError:
                return None
    return None
