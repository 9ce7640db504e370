"""1.11.2's metadata items in the grid world: lapis lazuli, cocoa beans, cactus green and the
other dyes are metadata of one item, `dye`, and the grid world's inventory vector (spec.py,
frozen: the learned policy reads it) has one slot for that item.  What a slot holds is
counted as the variant asked for, and a source gives a variant only when its drop names it
(lapis ore gives lapis_lazuli, not cocoa_beans), as the knowledge base says.  A recipe that
takes a variant as an input cannot be made here (the inventory cannot hold two variants
apart): coverage.py refuses such a route up front.
"""

from __future__ import annotations

from typing import Any


def shared_slot(env: Any, name: str) -> int | None:
    """The inventory slot that `name` shares with other metadata variants (dye's), else None."""
    variants = env.kb.variant_items() if hasattr(env.kb, "variant_items") else {}
    base = variants.get(name)
    if base is None and name not in set(variants.values()):
        return None
    return env.vocab.item_id.get(base or name)


def slot_count(env: Any, i: int, name: str) -> int | None:
    """How many of metadata item `name` world i holds (its shared slot, worn ones included),
    or None when `name` has a slot of its own."""
    slot = shared_slot(env, name)
    if slot is None:
        return None
    worn = int((env.equip[i] == slot + 1).sum())
    return int(env.inv[i, slot]) + worn


def variant_inputs(kb: Any, goal: Any) -> list[str]:
    """The metadata items (lapis_lazuli) that the recipe of a craft or smelt goal takes."""
    variants = kb.variant_items() if hasattr(kb, "variant_items") else {}
    if not variants or goal.action not in ("craft", "smelt"):
        return []
    return sorted({k for k in (goal.materials or {}) if k in variants})
