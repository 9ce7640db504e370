"""Sub-task relabelling for the rider planner (LLaMA-Rider section 4.1).

A task's sub-tasks are the items its recipe tree still needs (the knowledge base's
requirements, computed from the current inventory by the recipe solver). When the planner's
skill works on such an item, that item becomes the task the prompt shows, and stays so until
it is no longer needed: a stack, the episode's task at the bottom.

Each level is {item: count to hold}; the counts are recomputed from the inventory every
round, and a level is dropped (it is done) as soon as the level below no longer needs it.
"""

from __future__ import annotations

from typing import Any

from worlds.knowledge import tool_tier
from worlds.recipes import tool_kind
from worlds.solver import Unreachable, solve

Level = dict[str, int]


def needed(kb: Any, target: Level, inventory: dict[str, int]) -> dict[str, int] | None:
    """What is still to be made for `target` from `inventory`: {item: count} over the solver's
    plan (a kill counts as the mob's drops; tools and tables included). None when unreachable."""
    try:
        goals = solve(kb, target, inventory)
    except Unreachable:
        return None
    out: dict[str, int] = {}
    for g in goals:
        for name, n in g.obj.items():
            made = kb.mob_drops(name) if g.action == "kill" and kb.is_mob(name) else {name: 1}
            for item, per in made.items():
                out[item] = out.get(item, 0) + n * per
    return out


def refresh(kb: Any, stack: list[Level], inventory: dict[str, int], pinned: Any = ()) -> list[Level]:
    """The stack with finished levels dropped and the counts of the rest brought up to date. A
    `pinned` tool's level (push_tool) stays until the tool is held, whatever the solver's route."""
    out = [dict(stack[0])]
    for level in stack[1:]:
        item = next(iter(level))
        if item in pinned:
            if holds_tool(kb, inventory, item):
                break  # made (or a better one of its kind held): the level below goes on with it
            out.append(dict(level))
            continue
        need = needed(kb, out[-1], inventory)
        if need is None:  # the solver cannot tell: keep the level as it was
            out.append(dict(level))
            continue
        if need.get(item, 0) <= 0:
            break  # done: the level below needs no more of it
        out.append({item: kb.count(inventory, item) + need[item]})
    return out


def push(kb: Any, stack: list[Level], items: list[str], inventory: dict[str, int]) -> list[Level]:
    """The stack after the planner chose a skill that makes `items` (a kill: the mob's drops): a new
    level for the first of them the current task needs (and is not already on the stack), else unchanged."""
    same = [dict(level) for level in stack]
    need = needed(kb, stack[-1], inventory) or {}
    for item in items:
        if any(item in level for level in stack):
            return same
        if need.get(item, 0) > 0:
            return [*same, {item: kb.count(inventory, item) + need[item]}]
    return same


def holds_tool(kb: Any, inventory: dict[str, int], tool: str) -> bool:
    """Whether `inventory` holds `tool` or one of its kind of a tier as high (an iron pickaxe for a
    stone one), as a refusal that names a least tool is answered."""
    return kb.count(inventory, tool) > 0 or any(
        n > 0 and tool_kind(name) == tool_kind(tool) and tool_tier(name) >= tool_tier(tool)
        for name, n in inventory.items()
    )


def push_tool(kb: Any, stack: list[Level], tool: str, product: str, inventory: dict[str, int]) -> list[Level]:
    """The stack after the world refused the skill making `product` for want of `tool`: a level
    for the tool when the current task needs the product, though the solver's own route would get
    the product without it (string from spiders, where the planner chose cobwebs). The planner chose
    the route; the tool is what it lacks. The caller pins the tool (refresh) until it is held."""
    same = [dict(level) for level in stack]
    if any(tool in level for level in stack) or holds_tool(kb, inventory, tool):
        return same
    need = needed(kb, stack[-1], inventory) or {}
    if need.get(product, 0) > 0 or product in stack[-1]:
        return [*same, {tool: 1}]
    return same


def label_text(level: Level) -> str:
    return ", ".join(f"{n} {item}" for item, n in level.items())
