"""1.11.2's metadata items in the grid world: lapis lazuli, cocoa beans, cactus green and the
other dyes are metadata of one item, `dye`, and the grid world's inventory vector (spec.py,
frozen: the learned policy reads it) has one slot for that item, which holds their sum.

Which variants that sum is made of is kept beside it, as the game keeps them apart
(`env.variant_held`, [n, V]: not in the observation arrays): a source gives a variant only
when its drop names it (lapis ore gives lapis_lazuli, not cocoa_beans), and a recipe takes the
variant it names (a lapis block nine lapis lazuli, purple dye lapis lazuli and rose red), while a
recipe asking for any dye (stained glass) takes whichever is held.  The inventory the planners
see, `has`, and the crafting bag name the variants.  A slot count that fell without a variant
named (an untracked loss) takes the difference from the largest variants; one that rose (an
untracked gain) is held as the base item, which fills only a recipe asking for any.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def shared_slot(env: Any, name: str) -> int | None:
    """The inventory slot that `name` shares with other metadata variants (dye's), else None."""
    variants = env.kb.variant_items() if hasattr(env.kb, "variant_items") else {}
    base = variants.get(name)
    if base is None and name not in set(variants.values()):
        return None
    return env.vocab.item_id.get(base or name)


def init(env: Any) -> None:
    variants = env.kb.variant_items() if hasattr(env.kb, "variant_items") else {}
    env.variant_names = tuple(sorted(variants))
    env.variant_col = {name: j for j, name in enumerate(env.variant_names)}
    env.variant_slot = np.array([env.vocab.item_id[variants[n]] for n in env.variant_names], np.int64)
    env.variant_held = np.zeros((env.n, len(env.variant_names)), np.int64)


def reset_one(env: Any, i: int) -> None:
    env.variant_held[i] = 0


def gain(env: Any, i: int, name: str, k: int) -> None:
    """World i was given k of `name`; a metadata variant's count is kept (its slot already rose)."""
    j = env.variant_col.get(name)
    if j is not None:
        env.variant_held[i, j] += k


def _settle(env: Any, i: int) -> None:
    """Variant counts no more than their slot holds (a loss no variant was named for)."""
    for slot in set(env.variant_slot.tolist()):
        cols = np.nonzero(env.variant_slot == slot)[0]
        over = int(env.variant_held[i, cols].sum()) - slot_total(env, i, slot)
        while over > 0:
            j = cols[int(np.argmax(env.variant_held[i, cols]))]
            k = min(over, int(env.variant_held[i, j]))
            env.variant_held[i, j] -= k
            over -= k


def slot_total(env: Any, i: int, slot: int) -> int:
    return int(env.inv[i, slot]) + int((env.equip[i] == slot + 1).sum())


def expand(env: Any, i: int, items: dict[str, int]) -> dict[str, int]:
    """`items` (a slot's base name with its total) with the variants it holds named, the rest as the base."""
    if not env.variant_names:
        return items
    _settle(env, i)
    out = dict(items)
    for j in np.nonzero(env.variant_held[i])[0]:
        base = env.vocab.items[int(env.variant_slot[j])]
        k = int(env.variant_held[i, j])
        out[env.variant_names[j]] = k
        out[base] = out.get(base, 0) - k
    return {name: k for name, k in out.items() if k > 0}


def fold(env: Any, i: int, items: dict[str, int]) -> dict[str, int]:
    """`items` as the inventory vector holds them: each variant added into its slot's base name; the
    variants' counts are kept beside it."""
    if not env.variant_names:
        return items
    env.variant_held[i] = 0
    out: dict[str, int] = {}
    for name, k in items.items():
        j = env.variant_col.get(name)
        if j is not None:
            env.variant_held[i, j] = k
            name = env.vocab.items[int(env.variant_slot[j])]
        out[name] = out.get(name, 0) + k
    return out


def slot_count(env: Any, i: int, name: str) -> int | None:
    """How many of metadata item `name` world i holds: a variant's own count, the base's whole
    slot (worn ones included); None when `name` has a slot of its own."""
    slot = shared_slot(env, name)
    if slot is None:
        return None
    j = env.variant_col.get(name)
    if j is None:
        return slot_total(env, i, slot)
    _settle(env, i)
    return int(env.variant_held[i, j])
