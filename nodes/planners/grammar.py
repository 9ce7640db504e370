"""A GBNF grammar for plans in the DEPS code form, with item, mob and tool names limited
to the knowledge base's. With llama.cpp it constrains a small model to write lines the
parser reads exactly, in the form the few-shot demonstrations show, while leaving which
goals to write entirely to the model.

Given the task's item, a plan ends with the first line that obtains it: lines before it may
not name it as what they make, and after it the plan is over. A plan therefore stops when it
is done instead of running on to the line cap, and every plan reaches for the task's item."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from worlds.types import ACTIONS

_TOOLISH = ("pickaxe", "_axe", "shovel", "sword", "shears", "crafting_table", "furnace", "bucket", "flint_and_steel")


def _alts(names: list[str] | tuple[str, ...]) -> str:
    """A GBNF expression matching exactly `names`, written as a trie (shared prefixes once):
    the same language as `"a" | "b" | ...`, but llama.cpp's grammar sampler then follows a few
    live branches per character instead of one per name (with the knowledge base's ~400 item
    names the same plans came 15% faster, issue 21)."""
    trie: dict = {}
    for name in dict.fromkeys(names):
        node = trie
        for ch in name:
            node = node.setdefault(ch, {})
        node[""] = {}  # the end of a name
    return _trie_expr(trie)


def _lit(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _trie_expr(node: dict) -> str:
    ends = "" in node
    branches = []
    for ch in sorted(k for k in node if k):
        text, child = ch, node[ch]
        while len(child) == 1 and "" not in child:  # a chain with no fork or end: one literal
            ((nxt, child),) = child.items()
            text += nxt
        rest = _trie_expr(child)
        branches.append(f"{_lit(text)} {rest}".strip())
    if not branches:
        return ""
    if ends:  # the name may stop here: the rest is optional
        return "(" + " | ".join(branches) + ")?"
    return branches[0] if len(branches) == 1 else "(" + " | ".join(branches) + ")"


MAX_STEPS = 16  # goals a plan may have


def plan_vocabulary(kb: Any) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The names a plan may use: items (generic groups included), mobs, and tools or platforms."""
    items = tuple(sorted(set(kb.item_names()) | set(kb.groups())))
    return items, tuple(sorted(kb.mobs())), tuple(n for n in items if n.endswith(_TOOLISH))


def _lines(p: str, items: tuple[str, ...], mobs: tuple[str, ...], *, equip: bool = True) -> list[str]:
    """The rules of one kind of line, named `p`line: what it makes is one of `items`, or what a
    kill of one of `mobs` drops (`equip`: equipping one of `items` is such a line too)."""
    verbs = [a for a in ACTIONS if (mobs if a == "kill" else items) and (equip or a != "equip")]
    rules = [f'{p}line ::= ({" | ".join(p + a for a in verbs)}) "  # step " [1-9] [0-9]? ": " comment "\\n"']
    if items:
        rules += [
            f'{p}mine ::= "mine({{" {p}obj "}}, " tool ")"',
            f'{p}craft ::= "craft({{" {p}obj "}}, " mats ", " tool ")"',
            f'{p}smelt ::= "smelt({{" {p}obj "}}, " mats ", \'furnace\')"',
            f'{p}obj ::= "\'" {p}item "\':" num',
            f"{p}item ::= {_alts(items)}",
        ]
        if equip:
            rules.append(f'{p}equip ::= "equip({{" {p}obj "}}, null)"')
    if mobs:
        rules += [f'{p}kill ::= "kill({{" "\'" {p}mob "\':" num "}}, " tool ")"', f"{p}mob ::= {_alts(mobs)}"]
    return rules


@lru_cache(maxsize=16)
def _grammar(
    items: tuple[str, ...],
    mobs: tuple[str, ...],
    tools: tuple[str, ...],
    max_steps: int,
    final_items: tuple[str, ...] = (),
    final_mobs: tuple[str, ...] = (),
) -> str:
    shared = [
        'mats ::= "null" | "{" obj (", " obj){0,4} "}"',
        'tool ::= "null" | "\'" toolname "\'"',
        "num ::= [1-9] [0-9]?",
        "comment ::= [^\\n]{0,60}",
        f"toolname ::= {_alts(tools)}",
    ]
    if not (final_items or final_mobs):
        return "\n".join([f"root ::= line{{1,{max_steps}}}", *_lines("", items, mobs), *shared])
    others = tuple(n for n in items if n not in final_items)
    other_mobs = tuple(m for m in mobs if m not in final_mobs)
    return "\n".join(
        [
            f"root ::= wayline{{0,{max_steps - 1}}} doneline",
            *_lines("way", others, other_mobs),
            *_lines("done", final_items, final_mobs, equip=False),
            'obj ::= "\'" item "\':" num',
            f"item ::= {_alts(items)}",
            *shared,
        ]
    )


def code_form_grammar(kb: Any, max_steps: int = MAX_STEPS, target: dict[str, int] | None = None) -> str:
    """The grammar; with a one-item `target`, the plan's last line is the first that makes it."""
    items, mobs, tools = plan_vocabulary(kb)
    if not target or len(target) != 1:
        return _grammar(items, mobs, tools, max_steps)
    name = next(iter(target))
    finals = {kb.canonical(name) or name, *kb.variants(name)}
    final_items = tuple(n for n in items if n in finals)
    final_mobs = tuple(m for m in mobs if m in set(kb.mob_sources(name)))
    if not final_items and not final_mobs:  # a name the grammar cannot write: no end to force
        return _grammar(items, mobs, tools, max_steps)
    return _grammar(items, mobs, tools, max_steps, final_items, final_mobs)
