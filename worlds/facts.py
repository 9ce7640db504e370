"""Recipe facts for a planner's prompt: what the knowledge base says about an item, in the
item names of the version and the words the worlds' own messages use.

One line per item, the cheapest way the knowledge base knows (worlds/options.py), saying
what it is made from and on what (a crafting_table, a furnace and its fuel), or which
block drops it and the least harvest tool ("or better" where a better tool also works),
or which mob drops it:

    craft 1 wooden_pickaxe from 3 planks + 2 stick on a crafting_table
    mine 1 stone with a wooden_pickaxe or better (drops 1 cobblestone)
    smelt 1 iron_ore into 1 iron_ingot in a furnace, fuel: planks
    kill 1 cow (drops 1 leather)

The names are the ones a craft or a mine in the text world asks for and names when it
fails: `spruce_planks` for a spruce boat at 1.16.5, `planks` at 1.11.2 (where planks are
one item whatever the wood, and the world takes any); tests/test_facts.py checks every
item with a single recipe against the world's refusal.  A generic name (log, planks, wool) is stated
as such: the world picks the member.

How much is given (`--knowledge`): "none" no facts; "target" the task's item and each item
the world reported missing; "tree" every item on the cheapest way to the task's item, the
item first and then what it is made of, breadth first (so never in the order a plan would
do them).  Facts, never a plan: no counts summed over the task, no order of steps.
Bounded: at most MAX_LINES lines ("target") or MAX_TREE_LINES ("tree"); the measured token
bound is in docs/knowledge-in-prompts.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from worlds.options import best_option, describe_option
from worlds.recipes import MineSource

if TYPE_CHECKING:  # pragma: no cover
    from worlds.knowledge import KnowledgeBase

MODES = ("none", "target", "tree")
MAX_LINES = 6  # "target": the task's items and the missing ones
MAX_TREE_LINES = 12  # "tree": the way down from the task's item


def fact(kb: KnowledgeBase, name: str) -> str | None:
    """The recipe book's line for `name`, or None when the knowledge base does not know the name."""
    canon = kb.canonical(name)
    if canon is None:
        return None
    opt = best_option(kb, canon)
    if opt is None:
        why = kb.unmodelled(canon)
        return f"{canon} cannot be obtained here" + (f" ({why[0]} is not modelled)" if why else "")
    line = describe_option(kb, opt)
    if kb.is_generic(canon) and isinstance(opt.source, MineSource):  # "log": the world picks the biome's member
        block = opt.source.block
        line = line.replace(block, kb.group_of(block) or block).replace(opt.source.item, canon)
    return line


def missing_names(missing: dict | None) -> list[str]:
    """The items a world's refusal names as missing ({"planks": 2}, {"tool": "stone_pickaxe"});
    fuel is not an item name."""
    out = []
    for k, v in (missing or {}).items():
        name = v if k == "tool" else k
        if k != "fuel" and isinstance(name, str):
            out.append(name)
    return out


def _way_down(kb: KnowledgeBase, name: str) -> list[str]:
    """`name`, then what its cheapest way uses (inputs, the tool or station, fuel), breadth first."""
    order, queue, seen = [], [name], set()
    while queue:
        n = queue.pop(0)
        canon = kb.canonical(n) or n
        if canon in seen:
            continue
        seen.add(canon)
        order.append(canon)
        opt = best_option(kb, canon)
        if opt is None:
            continue
        queue += opt.uses()
    return order


def fact_names(
    kb: KnowledgeBase, targets: Iterable[str], missing: Iterable[str] = (), mode: str = "target"
) -> list[str]:
    """The names whose facts a prompt carries, in the order given, each once."""
    if mode not in MODES:
        raise ValueError(f"unknown knowledge mode {mode!r}; accepted: {', '.join(MODES)}")
    if mode == "none":
        return []
    names: list[str] = []
    for t in targets:
        names += _way_down(kb, t) if mode == "tree" else [t]
    names += list(missing)
    out: list[str] = []
    for n in names:
        key = kb.canonical(n) or n
        if key not in out:
            out.append(key)
    return out[: MAX_TREE_LINES if mode == "tree" else MAX_LINES]


def facts(kb: KnowledgeBase, targets: Iterable[str], missing: Iterable[str] = (), mode: str = "target") -> list[str]:
    """The fact lines for `targets` (the task's items, or the sub-task's) and `missing`
    (what the world reported missing), as `mode` says; names the knowledge base does not
    know are left out (nodes/facts.py asks MP5's knowledge memory about those)."""
    lines = [fact(kb, n) for n in fact_names(kb, targets, missing, mode)]
    return [line for line in lines if line]


def facts_text(lines: list[str]) -> str:
    """The lines as one prompt sentence ("" when there are none)."""
    return "; ".join(lines)
