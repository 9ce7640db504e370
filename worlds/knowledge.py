"""The Minecraft knowledge base: items, crafting, smelting, mining and mob drops of one
game version, from the `minecraft_data` package (see worlds/mcdata.py for what it holds
per version) plus the hand-written tables in worlds/data/ (each names its source),
among them the items got by using a held item on a mob or a block (interactions.yaml:
a bucket on a cow gives a milk bucket; done with the `mine` skill, the bucket consumed).

Names.  Concrete names are the version's item ids ("oak_planks" in 1.19.2, "planks" in
1.11.2).  Generic names (groups.yaml) stand for several: "planks" in 1.19.2 is every wood
type's planks, "log" in 1.11.2 is log + log2.  Recipes state an ingredient generically
when the game accepts any member (stick <- 2 planks).  Aliases (aliases.yaml) and
display names ("Wooden Pickaxe") resolve through `canonical`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import cache, cached_property
from pathlib import Path

import yaml

from worlds import mcdata
from worlds.cooking import load_cooking
from worlds.recipes import MineSource, Recipe, SmeltRecipe, a, as_generic, generalize, merge_alternatives

VERSIONS = ("1.11.2", "1.16.5", "1.19.2")
DATA = Path(__file__).resolve().parent / "data"
TOOL_TIERS = {"wooden": 0, "golden": 0, "stone": 1, "iron": 2, "diamond": 3, "netherite": 4}
TOOL_KINDS = ("pickaxe", "axe", "shovel", "shears", "sword", "hoe")
TIER_NAMES = {-1: "hand", 0: "wooden", 1: "stone", 2: "iron", 3: "diamond", 4: "netherite"}

__all__ = [
    "KnowledgeBase",
    "load_kb",
    "VERSIONS",
    "Recipe",
    "SmeltRecipe",
    "MineSource",
    "Interaction",
    "AmbiguousName",
    "tool_tier",
    "normalize",
]


class AmbiguousName(ValueError):
    """A name from another version that stands for several items here; the message is one line,
    `candidates` the items it may be."""

    def __init__(self, message: str, candidates: tuple[str, ...] = ()):
        super().__init__(message)
        self.candidates = candidates


@dataclass(frozen=True)
class Interaction:
    """Using a held item on a mob or a block gives an item (data/interactions.yaml): the
    held item is consumed (a bucket becomes a milk bucket), the mob or block stays.  With
    no held item (`uses` None) the item is picked up where the mob left it (a chicken's egg)."""

    item: str  # what one use gives
    count: int
    source: str  # the mob or block it is used on
    on: str  # "mob" | "block"
    uses: str | None  # the held item, consumed, one per use; None: nothing is held
    skill: str  # the agent skill that does it: "mine"

    def describe(self, units: int = 1) -> str:
        """'mine 1 milk_bucket with a bucket (use it on a cow; the bucket is used up)'."""
        if self.uses is None:
            return f"{self.skill} {units * self.count} {self.item} (pick up what {self.where()} leaves)"
        held = a(self.uses) if units == 1 else f"{units} {self.uses}"
        each = "it" if units == 1 else "each"
        return (
            f"{self.skill} {units * self.count} {self.item} with {held} "
            f"(use {each} on {self.where()}; the {self.uses} is used up)"
        )

    def where(self) -> str:
        """'a cow', 'water'."""
        return a(self.source) if self.on == "mob" else self.source


@cache
def _data(name: str) -> dict:
    with open(DATA / name) as f:
        return yaml.safe_load(f) or {}


def normalize(name: str) -> str:
    """'Wooden Pickaxe' / 'minecraft:wooden_pickaxe' -> 'wooden_pickaxe'."""
    s = str(name).strip().lower()
    s = s.removeprefix("minecraft:")
    return re.sub(r"[\s\-]+", "_", s).strip("_")


def tool_tier(tool: str | None) -> int:
    """Harvest tier of a tool: wooden/golden 0, stone 1, iron 2, diamond 3, netherite 4;
    tools without a material (shears) 0; no tool -1."""
    if not tool:
        return -1
    return TOOL_TIERS.get(tool.split("_", 1)[0], 0)


def _tool_rank(tool: str) -> tuple:
    kind = tool.rsplit("_", 1)[-1]
    return (
        tool_tier(tool),
        TOOL_KINDS.index(kind) if kind in TOOL_KINDS else len(TOOL_KINDS),
        tool.startswith("golden"),
        tool,
    )  # wooden before golden: same tier, the usual one


def _counts(items: list[str] | dict[str, int]) -> dict[str, int]:
    """A data file's drop list as {item: count}: a list gives one of each."""
    return {str(i): int(n) for i, n in items.items()} if isinstance(items, dict) else {str(i): 1 for i in items}


def load_kb(version: str = "1.11.2") -> KnowledgeBase:
    """The knowledge base of `version` (cached)."""
    if version not in VERSIONS:
        raise ValueError(f"unknown Minecraft version {version!r}; accepted: {', '.join(VERSIONS)}")
    return _load_kb(version)


@cache
def _load_kb(version: str) -> KnowledgeBase:
    return KnowledgeBase(version)


class KnowledgeBase:
    def __init__(self, version: str):
        self.version = version
        self.era = "legacy" if mcdata.version_key(version) < (1, 13) else "modern"
        patches = _data("recipe_patches.yaml").get(version) or {}
        self._items = mcdata.load_items(version)
        for it in patches.get("add_items", []):
            self._items.setdefault(it["name"], dict(it))
        # metadata variants told apart (1.11.2 dyes): name -> the id's own name (lapis_lazuli -> dye)
        self._variants = {(int(v["id"]), int(v["metadata"])): v["name"] for v in patches.get("metadata_items", [])}
        self._variant_of: dict[str, str] = {}
        by_id = {it["id"]: name for name, it in self._items.items()}
        for v in patches.get("metadata_items", []):
            self._variant_of[v["name"]] = by_id[int(v["id"])]
            self._items.setdefault(
                v["name"],
                {
                    "id": f"{v['id']}:{v['metadata']}",
                    "displayName": v["displayName"],
                    "stackSize": self._items[by_id[int(v["id"])]]["stackSize"],
                },
            )
        self._groups = self._load_groups()
        self._group_of = {m: g for g, ms in self._groups.items() for m in ms}
        self._aliases = self._load_aliases()
        self._display: dict[str, str] = {}
        for name, it in self._items.items():
            self._display.setdefault(normalize(it["displayName"]), name)
        self._recipes = self._load_recipes(patches)
        self._load_mining()
        for name, info in self._blocks.items():  # the name the game shows on a placed block, as a user says it
            # ("daylight sensor": the daylight_detector item, 1.11.2), where no item, alias or plural has it
            if name in self._items and self.canonical(info["displayName"]) is None:
                self._display[normalize(info["displayName"])] = name
        self._load_mobs()
        self._load_smelting()
        self._load_interactions()
        self.cache: dict = {}  # derived planning tables (worlds/options.py)

    # ------------------------------------------------------------------ loading
    def _load_groups(self) -> dict[str, list[str]]:
        d = _data("groups.yaml")
        subst = {"wood": d["woods"], "overworld_wood": d["overworld_woods"], "color": d["colors"]}
        groups = {}
        for g, patterns in (d.get(self.era) or {}).items():
            members: list[str] = []
            for p in patterns:
                keys = [k for k in subst if "{" + k + "}" in p]
                names = [p.replace("{" + keys[0] + "}", v) for v in subst[keys[0]]] if keys else [p]
                members += [n for n in names if n in self._items and n not in members]
            if members:
                groups[g] = members
        return groups

    def _load_aliases(self) -> dict[str, str]:
        d = _data("aliases.yaml")
        flat = _data("flattening.yaml")["renames"]
        if self.era == "legacy":  # 1.13+ names understood at 1.11.2, where they name nothing else
            flat = {new: old for old, new in flat.items()}
        flat = {k: v for k, v in flat.items() if not self._known(k)}
        raw = {**flat, **(d.get("all") or {}), **(d.get(self.era) or {})}
        out = {}
        for name, target in raw.items():
            seen = set()
            while target in raw and target not in seen and not self._known(target):
                seen.add(target)
                target = raw[target]
            if self._known(target) and name != target:
                out[name] = target
        return out

    def _known(self, name: str) -> bool:
        return name in self._groups or name in self._items

    def _load_recipes(self, patches: dict) -> dict[str, list[Recipe]]:
        raw = mcdata.load_recipes(
            self.version,
            self._items,
            set(patches.get("metadata_any", [])),
            drop_metadata_specific=self.era == "legacy",
            variants=self._variants,
            any_variant_for=patches.get("any_variant_for") or {},
        )
        by_out: dict[str, dict[tuple, Recipe]] = {}

        def add(r: Recipe) -> None:
            if r.output in r.ingredients or r.output not in self._items:
                return  # repair / re-colour recipes make nothing new
            by_out.setdefault(r.output, {}).setdefault(r.key(), r)

        rename = patches.get("rename_ingredients") or {}
        for r in raw:
            ingredients: dict[str, int] = {}
            for k, n in r.ingredients:
                ingredients[rename.get(k, k)] = ingredients.get(rename.get(k, k), 0) + n
            add(Recipe(r.output, r.count, ingredients, not r.small))
        replaced = [r for r in patches.get("replace_recipes", [])]
        for r in replaced:
            by_out.pop(r["output"], None)
        for r in replaced + list(patches.get("add_recipes", [])):
            add(Recipe(r["output"], int(r["count"]), dict(r["ingredients"]), bool(r["needs_table"])))
        for src, dsts in (patches.get("copy_recipes") or {}).items():
            for rec in list(by_out.get(src, {}).values()):
                for dst in dsts:
                    add(Recipe(dst, rec.count, dict(rec.ingredients), rec.needs_table))
        return {out: merge_alternatives(generalize(list(rs.values()), self._group_of)) for out, rs in by_out.items()}

    def _load_mining(self) -> None:
        natural = _data("natural_blocks.yaml")["blocks"]
        fixes = _data("block_patches.yaml")
        self._blocks = mcdata.load_blocks(
            self.version,
            self._items,
            fixes.get("shears_only") or {},
            (fixes.get("tools") or {}).get(self.version) or {},
            self._variants,
        )
        for block, drops in ((fixes.get("drops") or {}).get(self.version) or {}).items():
            if block in self._blocks:
                self._blocks[block]["drops"] = dict(drops)
        for block, parts in ((fixes.get("block_variants") or {}).get(self.version) or {}).items():
            for name, part in parts.items() if block in self._blocks else ():  # a tall flower of double_plant
                self._blocks[name] = {**self._blocks[block], "drops": dict(part["drops"]), "displayName": part["name"]}
        self._chance: dict[str, dict[str, float]] = {}  # block -> {item: chance per break by hand}
        self._shears: dict[str, dict[str, int]] = {}  # block -> what breaking it with shears gives
        for block, info in self._blocks.items():
            chance = self._chance_rules(block, info["drops"], fixes.get("chance") or {})
            for item in chance:
                info["drops"].pop(item, None)
            if chance:
                self._chance[block] = chance
            for pattern, items in ((fixes.get("shears") or {}).get(self.era) or {}).items():
                if fnmatch(block, pattern):  # a list (one of each) or {item: count}
                    got = {i.replace("{block}", block): n for i, n in _counts(items).items()}
                    self._shears[block] = {i: n for i, n in got.items() if i in self._items}
                    break
        self._mine: dict[str, list[MineSource]] = {}
        for block, info in self._blocks.items():
            if not info["diggable"] or not any(fnmatch(block, p) for p in natural):
                continue
            tools = tuple(sorted(info["tools"], key=_tool_rank)) if info["tools"] else None
            low = tools[0] if tools else None
            for item, n in info["drops"].items():
                if item in self._items:
                    self._mine.setdefault(item, []).append(MineSource(block, item, n, tools, low, tool_tier(low)))
            for item, p in self._chance.get(block, {}).items():
                self._mine.setdefault(item, []).append(MineSource(block, item, 1, tools, low, tool_tier(low), p))
            if "shears" in self._items:
                for item, n in self._shears.get(block, {}).items():
                    self._mine.setdefault(item, []).append(
                        MineSource(block, item, n, ("shears",), "shears", tool_tier("shears"), 1.0, True)
                    )

    def _chance_rules(self, block: str, drops: dict[str, int], rules: dict) -> dict[str, float]:
        """{item: chance} of the first rule matching `block` (block_patches.yaml `chance`)."""
        for pattern, items in rules.items():
            if not fnmatch(block, pattern):
                continue
            out = {}
            for item_pattern, p in items.items():
                if item_pattern.startswith("+"):
                    if item_pattern[1:] in self._items:
                        out[item_pattern[1:]] = float(p)
                    continue
                for d in drops:
                    if fnmatch(d, item_pattern):
                        out[d] = float(p)
            return out
        return {}

    def _load_mobs(self) -> None:
        # 1.11.2 has no entity loot in minecraft-data: mcdata falls back to the nearest
        # version that has it (1.14.4) and the names are mapped back to 1.11 names here.
        self.loot_version, loot = mcdata.load_entity_loot(self.version)
        renames = (_data("aliases.yaml").get("legacy_renames") or {}) if self.era == "legacy" else {}
        entities = mcdata.load_entity_names(self.version)
        extra = _data("mob_drops.yaml").get(self.era) or {}
        self._mobs: dict[str, dict[str, int]] = {}
        self._mob_chance: dict[str, dict[str, float]] = {
            mob: {renames.get(i, i): float(p) for i, p in items.items() if renames.get(i, i) in self._items}
            for mob, items in (_data("mob_drops.yaml").get("chance") or {}).items()
            if mob in entities
        }
        self._huntable = {m: k for k, m in enumerate(_data("mobs.yaml")["huntable"])}  # the order: how common
        for mob in sorted(set(loot) | set(extra) | set(self._mob_chance)):
            if mob not in entities:
                continue
            drops = {}
            for item, n in {**loot.get(mob, {}), **extra.get(mob, {})}.items():
                item = renames.get(item, item)
                if item in self._items:
                    drops[item] = n
            if drops or mob in self._mob_chance:
                self._mobs[mob] = drops

    def _load_smelting(self) -> None:
        """Furnace recipes: 1.13+ from the data set (worlds/cooking.py) plus the few it lost,
        1.11.2 from the hand table (smelting.yaml says why); fuels from the hand table."""
        d = _data("smelting.yaml")
        here = mcdata.version_key(self.version)
        self._smelt: list[SmeltRecipe] = []
        seen: set[tuple[str, str]] = set()
        if self.era == "modern":
            for c in load_cooking(self.version, self._items, self._groups):
                self._smelt.append(SmeltRecipe(c.input, c.output, c.count, c.kinds))
                seen.add((c.input, c.output))
        for e in d["legacy" if self.era == "legacy" else "modern_gaps"]:
            if "since" in e and here < mcdata.version_key(str(e["since"])):
                continue
            if self._known(e["input"]) and e["output"] in self._items and (e["input"], e["output"]) not in seen:
                self._smelt.append(SmeltRecipe(e["input"], e["output"], int(e.get("count", 1))))
        self._fuels = {k: float(v) for k, v in d["fuels"].items() if self._known(k)}

    def _load_interactions(self) -> None:
        here = mcdata.version_key(self.version)
        self._interactions: dict[str, list[Interaction]] = {}
        for e in _data("interactions.yaml")["interactions"]:
            if e.get("era") not in (None, self.era):
                continue
            if "since" in e and here < mcdata.version_key(str(e["since"])):
                continue
            skill = str(e.get("skill", "mine"))
            if skill != "mine":  # the text world and the solver do interactions as `mine`
                raise ValueError(f"interactions.yaml: skill {skill!r} for {e['item']}; only 'mine' is supported")
            if ("mob" in e) == ("block" in e):
                raise ValueError(f"interactions.yaml: {e['item']} needs one of mob: or block:")
            on = "mob" if "mob" in e else "block"
            source = str(e[on])
            present = source in self.mobs() if on == "mob" else source in self._blocks
            uses = e.get("uses")
            if present and e["item"] in self._items and (uses is None or uses in self._items):
                self._interactions.setdefault(e["item"], []).append(
                    Interaction(e["item"], int(e.get("count", 1)), source, on, uses, skill)
                )

    # ------------------------------------------------------------------ names
    def canonical(self, name: str) -> str | None:
        if not name:
            return None
        key = normalize(name)
        cands = [key]
        for suffix, repl in (("ies", "y"), ("es", ""), ("s", "")):
            if key.endswith(suffix):
                cands.append(key[: -len(suffix)] + repl)
        for c in cands:
            for table in (self._groups, self._items):
                if c in table:
                    return c
            if c in self._aliases:
                return self._aliases[c]
            if c in self._display:
                return self._display[c]
        return None

    def translate(self, name: str, from_version: str) -> str | None:
        """`name` as written for Minecraft `from_version`, in this version's names (None:
        unknown here).  Across the 1.13 flattening the game's own table is used
        (data/flattening.yaml): the 1.11 grass block is grass_block at 1.16.5, never the
        plant; a 1.11 id that became several items raises AmbiguousName, one line."""
        old_era = "legacy" if mcdata.version_key(from_version) < (1, 13) else "modern"
        if old_era == self.era:
            return self.canonical(name)
        flat = _data("flattening.yaml")
        key = normalize(name)
        if old_era == "legacy":
            if key in flat["ambiguous"]:
                raise AmbiguousName(
                    f"{key!r} (Minecraft {from_version}) became several items in {self.version}: "
                    f"{', '.join(flat['ambiguous'][key])}; name one of them",
                    tuple(flat["ambiguous"][key]),
                )
            return self.canonical(flat["renames"].get(key, key))
        back = {new: old for old, new in flat["renames"].items()}
        return self.canonical(back.get(key, key))

    def unknown_reason(self, name: str) -> str:
        """Why `name` names nothing here, in words for a one-line refusal: an id from before
        the 1.13 flattening that became several items is said so, with the candidates."""
        key = normalize(name)
        amb = _data("flattening.yaml")["ambiguous"]
        if self.era == "modern" and key in amb:
            return (
                f"{key!r} is a Minecraft 1.11/1.12 id that became several items in {self.version}: "
                f"{', '.join(amb[key])}; name one of them"
            )
        return f"unknown item {key!r} in Minecraft {self.version}"

    def _name(self, name: str) -> str:
        return self.canonical(name) or name

    def variants(self, name: str) -> list[str]:
        n = self._name(name)
        if n in self._groups:
            return list(self._groups[n])
        return [n] if n in self._items else []

    def is_generic(self, name: str) -> bool:
        return self._name(name) in self._groups

    def group_of(self, item: str) -> str | None:
        return self._group_of.get(item)

    def matches(self, required: str, held: str) -> bool:
        """Does a held item (concrete name) satisfy a requirement (generic or concrete)?"""
        return held in self.variants(required) or held == required

    def holders(self, name: str) -> list[str]:
        """The inventory names that count as `name`: its variants, and for 1.11.2's metadata base
        item (dye) the base itself too, which a world with one slot for all of its variants (the
        grid world's cocoa beans) holds them under."""
        vs = self.variants(name) or [name]
        n = self._name(name)
        return [*vs, n] if n not in vs and n in self._variant_bases else vs

    @cached_property
    def _variant_bases(self) -> frozenset[str]:
        return frozenset(self._variant_of.values())

    def count(self, inventory: dict[str, int], name: str) -> int:
        return sum(int(inventory.get(v, 0)) for v in self.holders(name))

    def count_for(self, inventory: dict[str, int], recipe: Recipe, ingredient: str) -> int:
        """How many held items can fill `ingredient`'s slots of `recipe` (its accepted
        alternatives included: cobblestone and blackstone for a stone hoe)."""
        return sum(self.count(inventory, f) for f in recipe.fillers(ingredient))

    def is_item(self, name: str) -> bool:
        """A concrete item of this version (after aliases); generic names: `is_generic`."""
        return self._name(name) in self._items

    def item_names(self) -> list[str]:
        return sorted(self._items)

    def metadata_of(self, name: str) -> int | None:
        """The metadata value of a variant this version names apart (lilac: double_plant:1), else None."""
        if name not in self._variant_of:
            return None
        meta = str(self._items[name].get("id", "")).partition(":")[2]
        return int(meta) if meta.isdigit() else None

    def variant_items(self) -> dict[str, str]:
        """Metadata variants given their own names (1.11.2: lapis_lazuli -> dye), each with
        the item id it is a variant of; empty from 1.13 on, where every variant is an item."""
        return dict(self._variant_of)

    def groups(self) -> dict[str, list[str]]:
        return {g: list(ms) for g, ms in self._groups.items()}

    def display_name(self, name: str) -> str:
        it = self._items.get(self._name(name))
        return it["displayName"] if it else name

    # ------------------------------------------------------------------ recipes
    def recipes(self, item: str) -> list[Recipe]:
        n = self._name(item)
        if n in self._groups:
            rs = [r for m in self._groups[n] for r in self._recipes.get(m, [])]
            return as_generic(rs, n, self._group_of)
        return list(self._recipes.get(n, []))

    def recipe_named(self, item: str, materials: dict[str, int]) -> Recipe | None:
        """The recipe of `item` whose ingredients are the ones `materials` names (a plan's claim),
        else its first; None when nothing makes it."""
        rs = self.recipes(item)
        return next((r for r in rs if r.ingredients.keys() == materials.keys()), rs[0] if rs else None)

    def concrete_recipes(self, item: str) -> list[Recipe]:
        """Recipes producing exactly this concrete item (no group expansion of the output)."""
        return list(self._recipes.get(item, []))

    def smelting(self, item: str) -> list[SmeltRecipe]:
        vs = set(self.variants(item)) | {self._name(item)}
        return [s for s in self._smelt if s.output in vs]

    def smelt_recipes(self) -> list[SmeltRecipe]:
        """Every furnace recipe of this version."""
        return list(self._smelt)

    def fuels(self) -> dict[str, float]:
        return dict(self._fuels)

    def fuel_value(self, item: str) -> float:
        """Items smelted by one unit of a concrete item (0: not a fuel)."""
        if item in self._fuels:
            return self._fuels[item]
        g = self._group_of.get(item)
        return self._fuels.get(g, 0.0) if g else 0.0

    # ------------------------------------------------------------------ gathering
    def mine_sources(self, item: str) -> list[MineSource]:
        n = self._name(item)
        out = [s for v in (self.variants(n) or [n]) for s in self._mine.get(v, [])]
        return sorted(out, key=lambda s: (s.block != s.item, s.chance < 1, s.with_tool, s.tier, len(s.block), s.block))

    def interactions(self, item: str) -> list[Interaction]:
        """Ways to get item by using a held item on a mob or a block (interactions.yaml),
        in the data file's order: milk_bucket <- a bucket on a cow, or on a mooshroom."""
        n = self._name(item)
        return [i for v in (self.variants(n) or [n]) for i in self._interactions.get(v, [])]

    def blocks(self) -> list[str]:
        return sorted(self._blocks)

    def sources_to_mine(self, item: str) -> list[MineSource]:
        """The blocks a `mine` of `item` breaks: those that drop it, else, where `item` is itself a
        block that drops something ("mine stone"), that block for what it drops."""
        sources = self.mine_sources(item)
        if not sources and item in self._blocks and self.block_drops(item):
            sources = [s for d in self.block_drops(item) for s in self.mine_sources(d) if s.block == item]
        return sources

    def block_drops(self, block: str) -> dict[str, int]:
        """What breaking the block by hand (or its harvest tool) always gives."""
        info = self._blocks.get(block)
        return dict(info["drops"]) if info else {}

    def chance_drops(self, block: str) -> dict[str, float]:
        """{item: chance per break} the block gives besides (gravel: {flint: 0.1})."""
        return dict(self._chance.get(block, {}))

    def source_drops(self, source: MineSource) -> dict[str, int]:
        """What one break via `source` always gives: the shears' drop, or the block's drops."""
        return {source.item: source.count} if source.with_tool else self.block_drops(source.block)

    def mob_chance_drops(self, mob: str) -> dict[str, float]:
        """{item: chance per kill} of a mob's rare drops (zombie: carrot 1/120)."""
        return dict(self._mob_chance.get(normalize(mob), {}))

    def mob_chance_sources(self, item: str) -> list[tuple[str, float]]:
        """Huntable mobs that drop item (or a variant) only by chance, with the chance."""
        vs = set(self.variants(item)) or {item}
        return [
            (m, sum(p for i, p in ch.items() if i in vs))
            for m, ch in sorted(self._mob_chance.items(), key=lambda mc: self._huntable.get(mc[0], -1))
            if m in self._huntable and vs & set(ch)
        ]

    def harvest_tools(self, block: str) -> list[str] | None:
        b = block if block in self._blocks else self._name(block)
        if b not in self._blocks:
            srcs = self.mine_sources(b)
            if not srcs:
                raise KeyError(f"unknown block {block!r}")
            b = srcs[0].block
        tools = self._blocks[b]["tools"]
        return sorted(tools, key=_tool_rank) if tools else None

    def mobs(self) -> list[str]:
        """The mobs an agent can hunt (data/mobs.yaml) that drop something."""
        return sorted(m for m in self._mobs if m in self._huntable)

    def is_mob(self, name: str) -> bool:
        return normalize(name) in self._mobs

    def mob_drops(self, mob: str) -> dict[str, int]:
        return dict(self._mobs.get(normalize(mob), {}))

    def mob_sources(self, item: str) -> list[str]:
        """Huntable mobs (data/mobs.yaml) whose drops include item (or a variant of it), the most
        commonly met first (that file's order): where two cost the same, a route hunts the first,
        a spider for string rather than a cave spider of the mineshafts."""
        vs = set(self.variants(item))
        found = [m for m, drops in self._mobs.items() if m in self._huntable and vs & set(drops)]
        return sorted(found, key=self._huntable.__getitem__)

    def unmodelled(self, item: str) -> tuple[str, str] | None:
        """(feature, why) when `item` comes only from a part of the game the text world does
        not model (data/unmodelled.yaml): ("the Nether", "found only in the Nether ...")."""
        name = self._name(item)
        for f in _data("unmodelled.yaml")["features"]:
            if any(fnmatch(name, p) for p in f["items"]):
                return f["feature"], f["why"]
        return None

    def fuel_value_of(self, name: str) -> float:
        """Fuel value of a concrete or generic name."""
        return self._fuels.get(name) or self.fuel_value(name)
