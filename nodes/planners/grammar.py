"""A GBNF grammar for plans in the DEPS code form, with item, mob and tool names limited
to the knowledge base's. With llama.cpp it constrains a small model to write lines the
parser reads exactly, in the form the few-shot demonstrations show, while leaving which
goals to write entirely to the model."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from worlds.types import ACTIONS

_TOOLISH = ("pickaxe", "_axe", "shovel", "sword", "shears", "crafting_table", "furnace", "bucket",
            "flint_and_steel")


def _alts(names: list[str]) -> str:
    return " | ".join(f'"{n}"' for n in names)


def plan_vocabulary(kb: Any) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The names a plan may use: items (generic groups included), mobs, and tools or platforms."""
    items = tuple(sorted(set(kb.item_names()) | set(kb.groups())))
    return items, tuple(sorted(kb.mobs())), tuple(n for n in items if n.endswith(_TOOLISH))


@lru_cache(maxsize=8)
def _grammar(items: tuple[str, ...], mobs: tuple[str, ...], tools: tuple[str, ...], max_steps: int) -> str:
    return "\n".join([
        f"root ::= line{{1,{max_steps}}}",
        'line ::= call "  # step " [1-9] [0-9]? ": " comment "\\n"',
        "call ::= " + " | ".join(ACTIONS),   # one rule per action below
        'mine ::= "mine({" obj "}, " tool ")"',
        'craft ::= "craft({" obj "}, " mats ", " tool ")"',
        'smelt ::= "smelt({" obj "}, " mats ", \'furnace\')"',
        'kill ::= "kill({" "\'" mob "\':" num "}, " tool ")"',
        'equip ::= "equip({" obj "}, null)"',
        'obj ::= "\'" item "\':" num',
        'mats ::= "null" | "{" obj (", " obj){0,4} "}"',
        'tool ::= "null" | "\'" toolname "\'"',
        "num ::= [1-9] [0-9]?",
        "comment ::= [^\\n]{0,60}",
        f"item ::= {_alts(list(items))}",
        f"mob ::= {_alts(list(mobs))}",
        f"toolname ::= {_alts(list(tools))}",
    ])


def code_form_grammar(kb: Any, max_steps: int = 16) -> str:
    return _grammar(*plan_vocabulary(kb), max_steps)
