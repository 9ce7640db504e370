"""Raw game tables read from the `minecraft_data` package (PrismarineJS minecraft-data).

Reads the JSON files the package ships, through its own `dataPaths.json` (the same
lookup `minecraft_data(version)` does, without loading the protocol tables we do not
need), and returns plain, name-keyed tables:

  items     name -> {id, displayName, stackSize}
  recipes   list of RawRecipe (output, count, ingredient counts, 2x2-or-not)
  blocks    name -> {drops: {item: n}, tools: [item names] | None}
  mobs      name -> {item: n}   (guaranteed drops of one kill)

What the package provides, per version we support (checked on minecraft-data 3.20):
  1.11.2  items/blocks/recipes/entities from pc/1.11; NO blockLoot, NO entityLoot.
          Block drops come from blocks.json `drops` (non-silk-touch drops, correct here).
          Entity loot falls back to the nearest version that has it (pc/1.14.4, the
          oldest), its names mapped back to 1.11 names (aliases.yaml `legacy_renames`).
  1.16.5  blocks/items/recipes pc/1.16.2, blockLoot and entityLoot pc/1.16.2.  Its
          blocks.json `drops` are the SILK-TOUCH drops (stone -> stone, coal_ore ->
          coal_ore), so the loot table's `noSilkTouch` drops override them.
  1.19.2  blocks/items pc/1.19.2, recipes/blockLoot/entityLoot pc/1.19.
Metadata variants (1.11 wool colours, planks wood types) are collapsed to the item id.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import cache

import minecraft_data

DATA_DIR = os.path.join(os.path.dirname(minecraft_data.__file__), "data", "data")
# rare drops (a zombie's iron ingot, 0.8 %) are not "what the mob drops"
MIN_DROP_CHANCE = 0.5


@dataclass(frozen=True)
class RawRecipe:
    output: str
    count: int
    ingredients: tuple[tuple[str, int], ...]  # sorted (name, n)
    small: bool  # fits the 2x2 inventory grid: no crafting table needed


def version_key(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split(".") if p.isdigit())


@cache
def _paths() -> dict[str, dict[str, str]]:
    with open(os.path.join(DATA_DIR, "dataPaths.json")) as f:
        return json.load(f)["pc"]


def _load(folder: str, category: str):
    with open(os.path.join(DATA_DIR, folder, f"{category}.json")) as f:
        return json.load(f)


def nearest_with(version: str, category: str) -> str:
    """The version closest to `version` whose data has `category` (e.g. entityLoot)."""
    target = version_key(version)
    have = [v for v, d in _paths().items() if category in d and all(p.isdigit() for p in v.split("."))]
    if not have:
        raise LookupError(f"minecraft-data has no {category} for any version")

    def dist(v: str) -> tuple:
        k = version_key(v)
        return (abs(_as_number(k) - _as_number(target)), k)

    return min(have, key=dist)


def _as_number(k: tuple[int, ...]) -> float:
    k = (k + (0, 0, 0))[:3]
    return k[0] * 10000 + k[1] * 100 + k[2]


def _entry(version: str, category: str) -> str | None:
    return _paths()[version].get(category)


def _folder(version: str, category: str) -> str:
    """The data folder of `category` for `version`; a version without it is an error."""
    folder = _entry(version, category)
    if folder is None:
        raise LookupError(f"minecraft-data has no {category} for {version}")
    return folder


def load_items(version: str) -> dict[str, dict]:
    return {
        it["name"]: {
            "id": it["id"],
            "displayName": it.get("displayName", it["name"]),
            "stackSize": it.get("stackSize", 64),
        }
        for it in _load(_folder(version, "items"), "items")
    }


def _id_names(version: str, items: dict[str, dict]) -> dict[int, str]:
    names = {b["id"]: b["name"] for b in _load(_folder(version, "blocks"), "blocks")}
    names.update({v["id"]: k for k, v in items.items()})  # items win over blocks
    return names


def _ref(x, names: dict[int, str]) -> str | None:
    if x is None:
        return None
    if isinstance(x, dict):
        x = x.get("id")
    if isinstance(x, list):  # some versions allow a list of alternatives: take the first
        x = x[0] if x else None
        return _ref(x, names)
    return names.get(x)


def _metadata_specific(cell, names: dict[int, str], metadata_any: set[str]) -> bool:
    if not isinstance(cell, dict) or cell.get("metadata") in (None, 0):
        return False
    id_ = cell.get("id")
    name = names.get(id_) if isinstance(id_, int) else None
    return name is None or name not in metadata_any


Variants = dict[tuple[int, int], str]  # (id, metadata) -> the variant's own name (dye:4 -> lapis_lazuli)


def _variant(cell, variants: Variants | None) -> str | None:
    """The own name of a metadata variant (pre-1.13 data), or None."""
    if variants and isinstance(cell, dict) and "id" in cell:
        return variants.get((cell["id"], cell.get("metadata") or 0))
    return None


def _variant_name(cell, names: dict[int, str], variants: Variants | None, loose: set[str]) -> str | None:
    """A cell's name: its variant's own name, unless its item is `loose` (any variant will do)."""
    v = _variant(cell, variants)
    return v if v and _ref(cell, names) not in loose else _ref(cell, names)


def load_recipes(
    version: str,
    items: dict[str, dict],
    metadata_any: set[str] | None = None,
    drop_metadata_specific: bool = False,
    variants: Variants | None = None,
    any_variant_for: dict[str, list[str]] | None = None,
) -> list[RawRecipe]:
    """All crafting recipes.  With `drop_metadata_specific` (pre-1.13 data), recipes that
    need one metadata variant of an ingredient (other than `metadata_any` items) are left
    out: with metadata collapsed they would accept every variant.  `variants` names the
    variants that are told apart ((351, 4) -> lapis_lazuli), as results and as ingredients,
    except in the outputs of `any_variant_for` (wool: [dye]: dyeing wool takes any dye)."""
    names = _id_names(version, items)
    metadata_any = metadata_any or set()
    any_for = any_variant_for or {}
    out: list[RawRecipe] = []
    for recipes in _load(_folder(version, "recipes"), "recipes").values():
        for r in recipes:
            res = r["result"]
            output = _variant(res, variants) or _ref(res, names)
            if output is None:
                continue
            count = res.get("count", 1) if isinstance(res, dict) else 1
            if "inShape" in r:
                rows = [row for row in r["inShape"] if any(c is not None for c in row)]
                cells = [c for row in rows for c in row if c is not None]
                width = max((len(row) for row in rows), default=0)
                small = len(rows) <= 2 and width <= 2
            else:
                cells = list(r.get("ingredients", []))
                small = len(cells) <= 4
            loose = set(any_for.get(output, ()))

            if drop_metadata_specific and any(
                _metadata_specific(c, names, metadata_any | loose) and not _variant(c, variants) for c in cells
            ):
                continue
            refs = [_variant_name(c, names, variants, loose) for c in cells]
            named = [n for n in refs if n is not None]
            if not refs or len(named) != len(refs):
                continue
            out.append(RawRecipe(output, count, tuple(sorted(Counter(named).items())), small))
    return out


def _tool_names(tools: dict | None, names: dict[int, str]) -> list[str] | None:
    if not tools:
        return None
    return sorted(n for n in (names.get(int(i)) for i in tools) if n)


def _shears_only(block: str, rules: dict[str, list[str]]) -> list[str] | None:
    """The items `block` drops only to shears or silk touch, per the first matching rule."""
    for pattern, only in rules.items():
        if fnmatch(block, pattern):
            return [o.replace("{block}", block) for o in only]
    return None


def load_blocks(
    version: str,
    items: dict[str, dict],
    shears_only: dict[str, list[str]] | None = None,
    tools: dict[str, list[str] | None] | None = None,
    variants: Variants | None = None,
) -> dict[str, dict]:
    """Blocks with their drops (without silk touch) and harvest tools.  `shears_only`
    (block pattern -> items dropped only to shears or silk touch) reads the loot tables that
    flag nothing (leaves, grass, crops: minecraft-data lists every alternative unflagged);
    `tools` replaces a block's harvest tools (None: any tool or the hand)."""
    names = _id_names(version, items)
    loot_folder = _entry(version, "blockLoot")
    loot = {}
    if loot_folder:
        loot = {e["block"]: e["drops"] for e in _load(loot_folder, "blockLoot")}
    blocks: dict[str, dict] = {}
    for b in _load(_folder(version, "blocks"), "blocks"):
        drops: dict[str, int] = {}
        no_silk = [d for d in loot.get(b["name"], []) if d.get("noSilkTouch")]
        only = _shears_only(b["name"], shears_only or {}) if loot.get(b["name"]) else None
        if no_silk:  # the loot table's non-silk-touch drops are right where blocks.json is not
            for d in no_silk:
                drops[d["item"]] = max(1, int((d.get("stackSizeRange") or [1])[0] or 1))
        elif only is not None:  # blocks.json has the silk-touch drop (oak_leaves) or none: the loot's others
            for d in loot[b["name"]]:
                if not d.get("silkTouch") and d["item"] not in only:
                    drops[d["item"]] = max(
                        drops.get(d["item"], 0), max(1, int((d.get("stackSizeRange") or [1])[0] or 1))
                    )
        else:
            for d in b.get("drops", []):
                if isinstance(d, dict) and "drop" in d:  # 1.11 form {drop: id|{id,metadata}, minCount, maxCount}
                    name = _variant(d["drop"], variants) or _ref(d["drop"], names)
                    n = max(1, int(d.get("minCount") or 1))
                else:
                    name, n = _ref(d, names), 1
                if name and name != "air":
                    drops[name] = max(drops.get(name, 0), n)
        harvest = _tool_names(b.get("harvestTools"), names)
        if tools and b["name"] in tools:
            given = tools[b["name"]]
            harvest = list(given) if given else None
        blocks[b["name"]] = {
            "drops": drops,
            "tools": harvest,
            "diggable": b.get("diggable", True),
            "displayName": b.get("displayName") or b["name"],
        }
    return blocks


def load_entity_loot(version: str) -> tuple[str, dict[str, dict[str, int]]]:
    """(the data version the loot came from, e.g. "1.14.4"; mob -> guaranteed drops)."""
    source = version if _entry(version, "entityLoot") else nearest_with(version, "entityLoot")
    folder = _folder(source, "entityLoot")
    mobs: dict[str, dict[str, int]] = {}
    for e in _load(folder, "entityLoot"):
        drops = {}
        for d in e["drops"]:
            if d.get("dropChance", 1) >= MIN_DROP_CHANCE:
                drops[d["item"]] = max(1, int((d.get("stackSizeRange") or [1])[0] or 1))
        mobs[e["entity"]] = drops
    return folder.split("/", 1)[-1], mobs


def load_entity_names(version: str) -> set[str]:
    return {e["name"] for e in _load(_folder(version, "entities"), "entities")}
