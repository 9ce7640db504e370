"""MineDojo's ids and masks, read from worlds/data/minedojo.json (copied from the minedojo
package by extract.py, which names the source): no minedojo import is needed here.

Names.  MineDojo plays Minecraft 1.11.2, whose item ids are the knowledge base's 1.11.2
names ("planks", "log", "crafting_table"); its inventory observation writes them with
spaces ("crafting table"), and "air" for an empty slot.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from worlds.base import WorldError

DATA = Path(__file__).resolve().parent.parent / "data" / "minedojo.json"

# indices into the MultiDiscrete action (NNActionSpaceWrapper's order)
MOVE, STRAFE, JUMP, PITCH, YAW, FN, CRAFT_ARG, SLOT_ARG = range(8)
NO_OP, USE, DROP, ATTACK, CRAFT, EQUIP, PLACE, DESTROY = range(8)


class MineDojoError(WorldError):
    """A name MineDojo does not have, or an action it would refuse: one line."""


@lru_cache(maxsize=1)
def data() -> dict:
    with open(DATA) as f:
        return json.load(f)


@lru_cache(maxsize=1)
def item_index() -> dict[str, int]:
    return {n: i for i, n in enumerate(data()["all_items"])}


@lru_cache(maxsize=1)
def craft_index() -> dict[str, int]:
    """item -> the craft argument id (action[6]): planks 29, stick 41, crafting_table 7..."""
    return {n: i for i, n in enumerate(data()["craft_smelt_items"])}


# minecraft-data 1.11.2 names the totem `totem`; the game's id (and MineDojo's) is totem_of_undying
RENAMED = {"totem": "totem_of_undying"}


@lru_cache(maxsize=1)
def _variants() -> dict[str, tuple[str, int]]:
    """The knowledge base's names for one id's metadata variants ("bone_meal" is dye:15 in
    1.11.2), from minecraft-data's 1.11.2 items, where MineDojo has only the id."""
    import minecraft_data

    from worlds.knowledge import load_kb, normalize

    kb = load_kb("1.11.2")
    known = set(kb.item_names())
    out = {}
    for it in minecraft_data("1.11.2").items_list:
        for v in it.get("variations") or []:
            name = normalize(v["displayName"])
            if name in known and name not in item_index() and it["name"] in item_index():
                out[name] = (it["name"], int(v["metadata"]))
    # the variants the knowledge base names from its own data where minecraft-data lists none
    # (recipe_patches.yaml `metadata_items`: the tall flowers of double_plant, 175:0-5)
    for name, base in kb.variant_items().items():
        meta = kb.metadata_of(name)
        if name not in out and name not in item_index() and base in item_index() and meta is not None:
            out[name] = (base, meta)
    return out


def to_minedojo(item: str) -> tuple[str, int]:
    """The knowledge base's 1.11.2 name -> (MineDojo's item id, variant)."""
    if item in item_index():
        return item, 0
    if item in RENAMED:
        return RENAMED[item], 0
    hit = _variants().get(item)
    if hit is None:
        raise MineDojoError(
            f"MineDojo has no item {item!r}; accepted: one of its {len(item_index())} "
            "item ids (worlds/data/minedojo.json)"
        )
    return hit


def from_minedojo(name: str, variant: int = 0) -> str:
    """MineDojo's item (as the observation writes it) and variant -> the knowledge base's name."""
    item = item_of(name)
    if int(variant) == 0 and item in item_index():
        return {v: k for k, v in RENAMED.items()}.get(item, item)  # the bare id (dye:0 reads as dye)
    for kb_name, (md, v) in _variants().items():
        if md == item and v == int(variant):
            return kb_name
    return {v: k for k, v in RENAMED.items()}.get(item, item)


def obs_name(item: str) -> str:
    """'crafting_table' -> 'crafting table' (how the inventory observation writes it)."""
    return item.replace("_", " ")


def item_of(obs_item: str) -> str:
    """'crafting table' -> 'crafting_table'."""
    return str(obs_item).replace(" ", "_")


def craft_kind(item: str) -> str:
    """'hand', 'table' or 'smelt': where MineDojo's craft action makes `item`."""
    i = craft_index().get(item)
    if i is None:
        raise MineDojoError(
            f"MineDojo cannot craft or smelt {item!r}; accepted: one of its "
            f"{len(craft_index())} craft/smelt items (worlds/data/minedojo.json)"
        )
    d = data()
    if i < d["n_hand_craft"]:
        return "hand"
    return "table" if i < d["n_hand_craft"] + d["n_table_craft"] else "smelt"


@lru_cache(maxsize=1)
def _recipe_matrix() -> np.ndarray:
    """MineDojo's get_recipes_matrix(): the first recipe of each craft/smelt item."""
    d, idx = data(), item_index()
    m = np.zeros((len(d["craft_smelt_items"]), len(d["all_items"])))
    for r, item in enumerate(d["craft_smelt_items"]):
        for k, v in d["first_recipe"][item]["ingredients"].items():
            m[r, idx[k]] += v
    return m


def inventory_vector(names: Any, quantities: Any) -> np.ndarray:
    vec = np.zeros(len(data()["all_items"]))
    idx = item_index()
    for name, q in zip(names, quantities):
        vec[idx[item_of(name)]] += q
    return vec


def masks(inventory: dict, nearby_table: bool, nearby_furnace: bool) -> dict[str, np.ndarray]:
    """MineDojo's ARMasksWrapper.observation, over the same tables (the minedojo test checks
    that both give the same masks on every observation of the stand-in)."""
    d = data()
    names = np.asarray(inventory["name"])
    have = inventory_vector(names, inventory["quantity"])
    craft = ~np.any((have - _recipe_matrix()) < 0, axis=1)
    h, t = d["n_hand_craft"], d["n_table_craft"]
    craft[h : h + t] &= bool(nearby_table)
    craft[h + t :] &= bool(nearby_furnace)
    occupied = names != "air"
    place = occupied & np.isin(names, np.array(d["placeable"]))
    equip = occupied.copy()
    equip[0] = bool(equip[0] and names[0] in d["non_mainhand"])
    kinds = np.ones(8, bool)
    kinds[DROP] = names[0] != "air"
    kinds[CRAFT] = bool(craft.any()) and not bool(occupied.all())
    kinds[EQUIP], kinds[PLACE], kinds[DESTROY] = bool(equip.any()), bool(place.any()), bool(occupied.any())
    return {
        "action_type": kinds,
        "action_arg": np.array([0, 0, 0, 0, 1, 1, 1, 1], bool)[:, None],
        "equip": equip,
        "place": place,
        "destroy": occupied,
        "craft_smelt": craft,
    }


def mask_refusal(action: Any, m: dict) -> str | None:
    """Why MineDojo's masks forbid `action` (None: allowed)."""
    a = [int(x) for x in action]
    fn = a[FN]
    names = data()["fn_actions"]
    if fn == CRAFT and not m["craft_smelt"][a[CRAFT_ARG]]:
        return f"MineDojo's mask forbids crafting {data()['craft_smelt_items'][a[CRAFT_ARG]]} now"
    if not m["action_type"][fn]:
        return f"MineDojo's mask forbids the {names[fn]} action now"
    if fn in (EQUIP, PLACE, DESTROY) and not m[names[fn]][a[SLOT_ARG]]:
        return f"MineDojo's mask forbids {names[fn]} from slot {a[SLOT_ARG]} now"
    return None


def action_valid(action: Any) -> bool:
    """MultiDiscrete(nvec).contains, without gym: eight whole numbers within their ranges."""
    a = np.asarray(action)
    nvec = np.asarray(data()["action_nvec"])
    return a.shape == nvec.shape and np.issubdtype(a.dtype, np.integer) and bool(((a >= 0) & (a < nvec)).all())
