"""The rare, per-world actions: craft, smelt, equip (MineDojo's functional actions), and
`use` (place a block, or use a held item on a block or a mob: a bucket on water or a cow, a hoe
on grass or dirt, seeds on farmland: crops.py).

The inventory rules are the text world's, through worlds/inventory.py's `Bag`; what the
grid world adds is space: a recipe that needs a table needs a crafting table PLACED within
reach, smelting a furnace placed within reach.  Each function acts on world `i` of a
BatchGridWorld and returns (ok, error, gained, missing, extra steps).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from worlds.gridworld import crops, metadata
from worlds.gridworld.pour import made
from worlds.gridworld.spec import EQUIP_SLOTS, FACING_VECTORS, game_data
from worlds.inventory import Bag, Refusal, slot_of

Result = tuple[bool, str | None, dict, dict, int]


def bag_of(env: Any, i: int) -> Bag:
    v = env.vocab
    bag = Bag(env.kb, biome=env.biome_name(i))
    row = env.inv[i]
    bag.items = metadata.expand(env, i, {v.items[j]: int(row[j]) for j in np.nonzero(row)[0]})
    bag.equipment = {EQUIP_SLOTS[s]: v.items[int(it) - 1] for s, it in enumerate(env.equip[i]) if it > 0}
    bag.fuel_credit = float(env.fuel[i])
    return bag


def store_bag(env: Any, i: int, bag: Bag) -> None:
    v = env.vocab
    env.inv[i] = 0
    for k, n in metadata.fold(env, i, bag.items).items():
        if n:
            env.inv[i, v.item_id[k]] = n
    env.equip[i] = 0
    for slot, it in bag.equipment.items():
        env.equip[i, EQUIP_SLOTS.index(slot)] = v.item_id[it] + 1
    env.fuel[i] = bag.fuel_credit


def within_reach(env: Any, i: int, cell_name: str) -> bool:
    r = int(game_data()["reach"])
    x, y, z = (int(c) for c in env.pos[i])
    box = env.cells[i, max(0, x - r) : x + r + 1, max(0, z - r) : z + r + 1, max(0, y - r) : y + r + 1]
    return bool((box == env.vocab.cell_id[cell_name]).any())


def plan_craft(env: Any, i: int, item: str, bag: Bag | None = None):
    """The recipe a craft would use now (the text world's rules), or a Refusal."""
    bag = bag or bag_of(env, i)
    return bag.plan_craft(
        item, within_reach(env, i, "crafting_table"), table_words="a crafting_table placed within reach"
    )


def plan_smelt(env: Any, i: int, item: str, fuel: str | None = None, bag: Bag | None = None):
    """(furnace recipe, fuel) a smelt would use now, or a Refusal."""
    bag = bag or bag_of(env, i)
    return bag.plan_smelt(item, within_reach(env, i, "furnace"), fuel, furnace_words="a furnace placed within reach")


def craft(env: Any, i: int, item: str) -> Result:
    bag = bag_of(env, i)
    r = plan_craft(env, i, item, bag)
    if isinstance(r, Refusal):
        return False, r.error, {}, r.missing, 0
    gained = bag.apply_craft(r)
    store_bag(env, i, bag)
    return True, None, gained, {}, 0


def smelt(env: Any, i: int, item: str, fuel: str | None = None) -> Result:
    bag = bag_of(env, i)
    plan = plan_smelt(env, i, item, fuel, bag)
    if isinstance(plan, Refusal):
        return False, plan.error, {}, plan.missing, 0
    gained = bag.apply_smelt(*plan)
    store_bag(env, i, bag)
    return True, None, gained, {}, int(game_data()["smelt_steps"]) - 1


def equip(env: Any, i: int, item: str) -> Result:
    bag = bag_of(env, i)
    held = bag.plan_equip(item)
    if isinstance(held, Refusal):
        return False, held.error, {}, held.missing, 0
    if slot_of(held) not in EQUIP_SLOTS:
        return False, f"cannot equip {held}", {}, {}, 0
    bag.apply_equip(held)
    store_bag(env, i, bag)
    return True, None, {}, {}, 0


def use(env: Any, i: int, item: str) -> Result:
    """Place `item` in the faced cell, or use it on the faced block or mob."""
    v, rules, kb = env.vocab, env.rules, env.kb
    iid = v.item_id.get(item)
    if iid is None or env.inv[i, iid] <= 0:
        return False, f"cannot use {item}: needs 1 {item}, has 0", {}, {item: 1}, 0
    at = env.pos[i] + np.array(FACING_VECTORS[int(env.facing[i])])
    cell = int(env.cells_at(np.array([i]), at[None])[0])
    mob = env.mob_at(i, at)
    makes = made(env, item, cell)
    if makes is not None and mob is None:  # a water bucket poured on lava: obsidian (pour.py)
        env.cells[i, at[0], at[2], at[1]] = makes
        return True, None, {}, {}, 0
    farmed = crops.use(env, i, item, at, cell) if mob is None else None  # a hoe tills, seeds are planted
    if farmed is not None:
        return farmed
    for way in _ways(kb, item):
        hit = (way.on == "mob" and mob is not None and v.mobs[mob] == way.source) or (
            way.on == "block" and v.block_of[cell] == way.source
        )
        if hit:
            env.inv[i, iid] -= 1
            gained = {way.item: way.count}
            env.inv[i, v.item_id[way.item]] += way.count
            return True, None, gained, {}, 0
    place = int(rules.place_cell[iid])
    if place >= 0:
        if not rules.passable[cell] or cell == v.cell_id["lava"] or mob is not None:
            return False, f"cannot place {item}: the faced cell is not free", {}, {}, 0
        env.cells[i, at[0], at[2], at[1]] = place
        env.inv[i, iid] -= 1
        return True, None, {}, {}, 0
    return False, f"{item} cannot be placed or used on what is in front", {}, {}, 0


def _ways(kb: Any, item: str) -> list:
    """Interactions (interactions.yaml) that consume `item` (a bucket: milk, water, lava)."""
    return [w for w in _all_ways(kb) if w.uses == item]


@cache
def _all_ways(kb: Any) -> tuple:
    return tuple(w for name in kb.item_names() for w in kb.interactions(name))
