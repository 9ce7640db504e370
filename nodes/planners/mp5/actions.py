"""MP5's action space (appendix Table 9) and how it maps onto this project's skills.

    find(THING)  move(THING)  mine(BLOCK, TOOL)  craft(ITEM, COUNT, PLATFORM)  fight(MOB, TOOL)
    equip(ITEM)  place(ITEM)  use(ITEM)  dig_down(LEVEL, TOOL)  dig_up(TOOL)

mine, craft (smelt when the platform is a furnace), fight (kill) and equip become goals of
the DEPS code form (worlds/types.py ACTIONS).  For a find sub-objective (a context task),
find and move become one `find` goal (worlds/types.py TRAVEL) carrying the sub-objective's
conditions: go until the thing is in reach while they all hold (skills/find.py); such a
task only runs on a world with space, the others refuse it up front.  Elsewhere find, move,
place, use, dig_down and dig_up are travel and set-up the grid world's skills do themselves
(they walk to their sources and place their tables), so they are kept in the plan as
comments and cost nothing here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from worlds.types import Goal

MP5_ACTIONS = ("find", "move", "mine", "craft", "fight", "equip", "place", "use", "dig_down", "dig_up")
TRAVEL = {"find", "move", "place", "use", "dig_down", "dig_up"}
_LINE = re.compile(r"^\s*(?:\d+[.)]\s*)?([a-z_\-]+)\s*\(([^()]*)\)")
_NULL = {"", "null", "none", "hand", "nothing"}


@dataclass
class Action:
    name: str
    args: list[str]

    def text(self) -> str:
        return f"{self.name}({', '.join(self.args)})"


def parse_actions(text: str) -> list[Action]:
    out = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m and m.group(1).replace("-", "_") in MP5_ACTIONS:
            args = [a.strip().strip("'\"").lower().replace(" ", "_") for a in m.group(2).split(",")]
            out.append(Action(m.group(1).replace("-", "_"), [a for a in args if a != ""]))
    return out


def _arg(a: Action, i: int) -> str | None:
    v = a.args[i] if len(a.args) > i else ""
    return None if v in _NULL else v


def _count(a: Action, i: int) -> int:
    try:
        return max(1, min(64, int(a.args[i])))
    except (IndexError, ValueError):
        return 1


def to_goals(actions: list[Action], sub: Any, kb: Any) -> list[Goal]:
    """The actions' skill goals; the one that makes the sub-objective's item asks for its count."""
    goals: list[Goal] = []
    for a in actions:
        if sub.action == "find" and a.name in ("find", "move") and a.args:
            thing = a.args[0]
            if not any(g.action == "find" and thing in g.obj for g in goals):  # find + move: one goal
                where = {k: str(v) for k, v in (sub.conditions or {}).items()} if thing == sub.item else {}
                goals.append(Goal("find", {thing: 1}, where=where, text=a.text()))
            continue
        if a.name in TRAVEL or not a.args:
            continue
        name = kb.canonical(a.args[0]) or a.args[0]
        wants_sub = name == sub.item or (a.name == "mine" and sub.item in kb.block_drops(name))
        if a.name == "mine":
            n = sub.count if wants_sub else 1
            goals.append(Goal("mine", {sub.item if wants_sub else name: n}, {}, _arg(a, 1), a.text()))
        elif a.name == "craft":
            platform = _arg(a, 2)
            n = sub.count if wants_sub else _count(a, 1)
            smelt = platform == "furnace" or (kb.smelting(name) and not kb.recipes(name))
            mats = dict(sub.materials) if wants_sub else {}
            goals.append(
                Goal("smelt" if smelt else "craft", {name: n}, mats, "furnace" if smelt else platform, a.text())
            )
        elif a.name == "fight":
            goals.append(Goal("kill", {name: sub.count if wants_sub else 1}, {}, _arg(a, 1), a.text()))
        elif a.name == "equip":
            goals.append(Goal("equip", {name: 1}, {}, None, a.text()))
    return goals


def reference_actions(sub: Any, kb: Any, in_view: bool = False) -> list[Action]:
    """The actions the recipe book implies for a sub-objective: what the patroller compares
    against, and the demonstration a test seeds the performer memory with.  `in_view`: the
    percipient saw the thing a find sub-objective is after."""
    item, tool = sub.item, sub.tool or "null"
    if sub.action == "find":  # in view already: move to it (MP5 4.2.2: no find first)
        return ([] if in_view else [Action("find", [item])]) + [Action("move", [item])]
    if sub.action == "mine":
        src = kb.mine_sources(item)
        block = src[0].block if src else item
        return [Action("find", [block]), Action("move", [block]), Action("mine", [block, tool])]
    if sub.action == "kill":
        return [Action("find", [item]), Action("move", [item]), Action("fight", [item, "null"])]
    if sub.action == "equip":
        return [Action("equip", [item])]
    platform = "furnace" if sub.action == "smelt" else tool
    return [Action("craft", [item, str(sub.count), platform])]


def _alts(names: list[str]) -> str:
    return " | ".join(f'"{n}"' for n in names)


@lru_cache(maxsize=256)
def _grammar(items: tuple[str, ...], mobs: tuple[str, ...], tools: tuple[str, ...]) -> str:
    fight = bool(mobs)
    return "\n".join(
        [
            "root ::= line{1,4}",
            'line ::= act "\\n"',
            "act ::= find | move | mine | craft | equip | place" + (" | fight" if fight else ""),
            'find ::= "find(" thing ")"',
            'move ::= "move(" thing ")"',
            'mine ::= "mine(" item ", " tool ")"',
            'craft ::= "craft(" item ", " num ", " platform ")"',
            *(['fight ::= "fight(" mob ", " tool ")"'] if fight else []),
            'equip ::= "equip(" item ")"',
            'place ::= "place(" item ")"',
            'platform ::= "null" | "crafting_table" | "furnace"',
            'tool ::= "null" | ' + _alts(list(tools)),
            "num ::= [1-9] [0-9]?",
            "thing ::= item" + (" | mob" if fight else ""),
            f"item ::= {_alts(list(items))}",
            *([f"mob ::= {_alts(list(mobs))}"] if fight else []),
        ]
    )


_WORD = re.compile(r"[a-z_]+")


def sub_vocabulary(sub: Any, kb: Any, holding: dict[str, int]) -> tuple[tuple[str, ...], ...]:
    """The names one sub-objective's actions may use: what it makes, its materials, the block
    it is mined from, what is held, and every name in the knowledge retrieved for it (fact and
    notes); tools and mobs the same way.  The knowledge memory grounds the small model, and a
    short grammar keeps llama.cpp's constrained sampling fast."""
    from nodes.planners.grammar import plan_vocabulary

    all_items, all_mobs, all_tools = plan_vocabulary(kb)
    known = set(all_items) | set(all_mobs)
    text = " ".join([sub.item, sub.fact or "", *sub.notes, *sub.materials, *holding, str(sub.tool or "")])
    named = {w for w in _WORD.findall(text.lower()) if w in known}
    named |= {s.block for s in kb.mine_sources(sub.item)} if sub.action == "mine" else set()
    items = sorted((named - set(all_mobs)) | {sub.item} - set(all_mobs) | {"crafting_table", "furnace"})
    mobs = sorted(named & set(all_mobs))
    return tuple(items), tuple(mobs), tuple(all_tools)


def action_grammar(kb: Any, sub: Any = None, holding: dict[str, int] | None = None) -> str:
    """GBNF for llama.cpp: MP5's action lines; with a sub-objective, only the names its
    knowledge and the inventory give (sub_vocabulary), else the knowledge base's names."""
    if sub is not None:
        return _grammar(*sub_vocabulary(sub, kb, holding or {}))
    from nodes.planners.grammar import plan_vocabulary

    return _grammar(*plan_vocabulary(kb))
