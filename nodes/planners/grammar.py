"""A GBNF grammar for plans in the DEPS code form, with item, mob and tool names limited
to the knowledge base's. With llama.cpp it constrains a small model to write lines the
parser reads exactly, in the form the few-shot demonstrations show, while leaving which
goals to write entirely to the model.

Given the task's item, a plan ends with the first line that obtains it: lines before it may
not name it as what they make, and after it the plan is over. A plan therefore stops when it
is done instead of running on to the line cap, and every plan reaches for the task's item."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from worlds.types import ACTIONS

_TOOLISH = ("pickaxe", "_axe", "shovel", "sword", "shears", "crafting_table", "furnace", "bucket", "flint_and_steel")


def _alts(names: list[str] | tuple[str, ...], tails: dict[str, str] | None = None) -> str:
    """A GBNF expression matching exactly `names`, written as a trie (shared prefixes once):
    the same language as `"a" | "b" | ...`, but llama.cpp's grammar sampler then follows a few
    live branches per character instead of one per name (with the knowledge base's ~400 item
    names the same plans came 15% faster, issue 21). With `tails`, each name is followed by its
    own tail (a GBNF expression), so that what comes after a name can depend on the name."""
    trie: dict = {}
    for name in dict.fromkeys(names):
        node = trie
        for ch in name:
            node = node.setdefault(ch, {})
        node[""] = (tails or {}).get(name, "")  # the end of a name, and what must follow it
    return _trie_expr(trie)


def _lit(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _trie_expr(node: dict) -> str:
    ends, tail = "" in node, node.get("", "")
    branches = []
    for ch in sorted(k for k in node if k):
        text, child = ch, node[ch]
        while len(child) == 1 and "" not in child:  # a chain with no fork or end: one literal
            ((nxt, child),) = child.items()
            text += nxt
        rest = _trie_expr(child)
        branches.append(f"{_lit(text)} {rest}".strip())
    if ends and tail:  # a name ends here, followed by its own tail
        branches.append(tail)
    elif ends and branches:  # the name may stop here: the rest is optional
        return "(" + " | ".join(branches) + ")?"
    if not branches:
        return ""
    return branches[0] if len(branches) == 1 else "(" + " | ".join(branches) + ")"


MAX_STEPS = 16  # goals a plan may have


def plan_vocabulary(kb: Any) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The names a plan may use: items (generic groups included), mobs, and tools or platforms."""
    items = tuple(sorted(set(kb.item_names()) | set(kb.groups())))
    return items, tuple(sorted(kb.mobs())), tuple(n for n in items if n.endswith(_TOOLISH))


@dataclass(frozen=True)
class LineFacts:
    """What the knowledge base lets each kind of line say (`--recipe-grammar`): the items a craft
    line may make, each with the names its materials may take (from the item's recipes, their
    accepted alternatives, variants and groups); the items a smelt line may make, each with the
    furnace inputs that give it; and the items a mine line may gather (a block drops them, or an
    interaction with the world yields them). Which of these to write, how many and in what order
    is still the model's to decide."""

    craft: tuple[tuple[str, tuple[str, ...]], ...]
    smelt: tuple[tuple[str, tuple[str, ...]], ...]
    mine: tuple[str, ...]


def line_facts(kb: Any, items: tuple[str, ...]) -> LineFacts:
    vocab = set(items)

    def spellings(names: set[str]) -> tuple[str, ...]:
        out = set()
        for n in names:
            out |= {n, *kb.variants(n)} | ({g} if (g := kb.group_of(n)) else set())
        return tuple(sorted(out & vocab))

    craft, smelt, mine = [], [], []
    for item in items:
        recipes = kb.recipes(item)
        if recipes:
            mats = {m for r in recipes for m in r.ingredients} | {
                a for r in recipes for v in r.accepts.values() for a in v
            }
            if names := spellings(mats):
                craft.append((item, names))
        if inputs := spellings({s.input for s in kb.smelting(item)}):
            smelt.append((item, inputs))
        if any(kb.mine_sources(v) or kb.interactions(v) for v in {item, *kb.variants(item)}):
            mine.append(item)
    return LineFacts(tuple(craft), tuple(smelt), tuple(mine))


def _tag(k: int) -> str:
    """A rule-name suffix of letters only for the k-th material set (a, b, ..., z, ba, ...)."""
    out = ""
    while True:
        out = "abcdefghijklmnopqrstuvwxyz"[k % 26] + out
        k //= 26
        if not k:
            return out


FactRules = tuple[list[str], dict[str, str], dict[str, str], frozenset[str]]


def _fact_rules(facts: LineFacts) -> FactRules:
    """The rules shared by every kind of line under the recipe grammar: one tail per distinct set of
    craft materials and of furnace inputs; per item, the name of the tail that follows it; and the
    items a mine line may gather."""
    rules: list[str] = []
    craft_tail: dict[str, str] = {}
    smelt_tail: dict[str, str] = {}
    for kind, table, tails in (("cm", facts.craft, craft_tail), ("sm", facts.smelt, smelt_tail)):
        seen: dict[tuple[str, ...], str] = {}
        for item, names in table:
            if names not in seen:
                tag = seen[names] = kind + _tag(len(seen))
                if kind == "cm":  # each material one of the recipe's, the station or tool free
                    rules += [
                        f'{tag} ::= "\':" num "}}, {{" {tag}obj (", " {tag}obj){{0,4}} "}}, " tool ")"',
                        f'{tag}obj ::= "\'" {_alts(names)} "\':" num',
                    ]
                else:  # one furnace input that gives the item
                    rules.append(f'{tag} ::= "\':" num "}}, {{\'" {_alts(names)} "\':" num "}}, \'furnace\')"')
            tails[item] = seen[names]
    return rules, craft_tail, smelt_tail, frozenset(facts.mine)


def _lines(
    p: str, items: tuple[str, ...], mobs: tuple[str, ...], *, equip: bool = True, facts: FactRules | None = None
) -> list[str]:
    """The rules of one kind of line, named `p`line: what it makes is one of `items`, or what a
    kill of one of `mobs` drops (`equip`: equipping one of `items` is such a line too). With
    `facts` (_fact_rules), a line may only make what its verb can make, from materials a recipe names."""
    if facts is not None:
        _, craft_tail, smelt_tail, mined = facts
        by_verb = {
            "mine": [n for n in items if n in mined],
            "craft": [n for n in items if n in craft_tail],
            "smelt": [n for n in items if n in smelt_tail],
            "equip": list(items),
        }
    else:
        by_verb = dict.fromkeys(("mine", "craft", "smelt", "equip"), list(items))
    verbs = [a for a in ACTIONS if (mobs if a == "kill" else by_verb[a]) and (equip or a != "equip")]
    rules = [f'{p}line ::= ({" | ".join(p + a for a in verbs)}) "  # step " [1-9] [0-9]? ": " comment "\\n"']
    if facts is None and items:
        rules += [
            f'{p}mine ::= "mine({{" {p}obj "}}, " tool ")"',
            f'{p}craft ::= "craft({{" {p}obj "}}, " mats ", " tool ")"',
            f'{p}smelt ::= "smelt({{" {p}obj "}}, " mats ", \'furnace\')"',
        ]
    elif facts is not None:
        if by_verb["mine"]:
            rules.append(f'{p}mine ::= "mine({{\'" {_alts(by_verb["mine"])} "\':" num "}}, " tool ")"')
        if by_verb["craft"]:
            rules.append(f'{p}craft ::= "craft({{\'" {_alts(by_verb["craft"], craft_tail)}')
        if by_verb["smelt"]:
            rules.append(f'{p}smelt ::= "smelt({{\'" {_alts(by_verb["smelt"], smelt_tail)}')
    if items and (facts is None or equip):
        rules += [f'{p}obj ::= "\'" {p}item "\':" num', f"{p}item ::= {_alts(items)}"]
    if items and equip:
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
    facts: LineFacts | None = None,
) -> str:
    rules = _fact_rules(facts) if facts is not None else None
    shared = [
        *(rules[0] if rules is not None else ()),
        'mats ::= "null" | "{" obj (", " obj){0,4} "}"',
        'tool ::= "null" | "\'" toolname "\'"',
        "num ::= [1-9] [0-9]?",
        "comment ::= [^\\n]{0,60}",
        f"toolname ::= {_alts(tools)}",
    ]
    if not (final_items or final_mobs):
        return "\n".join([f"root ::= line{{1,{max_steps}}}", *_lines("", items, mobs, facts=rules), *shared])
    others = tuple(n for n in items if n not in final_items)
    other_mobs = tuple(m for m in mobs if m not in final_mobs)
    return "\n".join(
        [
            f"root ::= wayline{{0,{max_steps - 1}}} doneline",
            *_lines("way", others, other_mobs, facts=rules),
            *_lines("done", final_items, final_mobs, equip=False, facts=rules),
            'obj ::= "\'" item "\':" num',
            f"item ::= {_alts(items)}",
            *shared,
        ]
    )


def code_form_grammar(
    kb: Any, max_steps: int = MAX_STEPS, target: dict[str, int] | None = None, recipes: bool = False
) -> str:
    """The grammar; with a one-item `target`, the plan's last line is the first that makes it
    (under its own name, or its group's where the target is the group's default kind, as the
    world makes oak stairs of "wooden_stairs" with no wood to tell it otherwise); with
    `recipes`, each line also holds to the knowledge base's facts (LineFacts)."""
    items, mobs, tools = plan_vocabulary(kb)
    facts = _facts(kb, items) if recipes else None
    if not target or len(target) != 1:
        return _grammar(items, mobs, tools, max_steps, facts=facts)
    name = next(iter(target))
    finals = {kb.canonical(name) or name, *kb.variants(name)}
    if (group := kb.group_of(kb.canonical(name) or name)) and kb.variants(group)[:1] == [kb.canonical(name)]:
        finals.add(group)  # the group's default kind, what a line naming the group makes ("wooden_stairs")
    final_items = tuple(n for n in items if n in finals)
    final_mobs = tuple(m for m in mobs if m in set(kb.mob_sources(name)))
    if not final_items and not final_mobs:  # a name the grammar cannot write: no end to force
        return _grammar(items, mobs, tools, max_steps, facts=facts)
    return _grammar(items, mobs, tools, max_steps, final_items, final_mobs, facts)


@lru_cache(maxsize=4)
def _facts(kb: Any, items: tuple[str, ...]) -> LineFacts:
    return line_facts(kb, items)
