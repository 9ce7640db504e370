"""An agent's belongings and the game's inventory rules, shared by every world.

`Bag` holds the inventory (concrete item -> count), the equipment (slot -> item), the
furnace's fuel credit and the biome (which wood a generic `log` or `planks` becomes).
Its `plan_*` methods decide what a craft, smelt or equip would do, or refuse with the
precise cause; `apply_*` carry it out.  Worlds differ only in what they wrap around this:
the text world charges Table 18 step costs and success rates; the grid world asks for a
crafting table / furnace placed within reach instead of held, and charges its own steps.

Rules (the text world's, MC-TextWorld's): materials are consumed; a recipe that needs a
table needs one; smelting burns fuel fractionally (one coal smelts 8 items, the credit
carries over); equipping moves one item from the inventory to its slot, the old one back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from worlds.options import default_fuel, how_to_obtain, route_items, unit_costs
from worlds.recipes import Recipe, SmeltRecipe

SLOTS = (
    ("_helmet", "head"),
    ("_cap", "head"),
    ("_chestplate", "chest"),
    ("_tunic", "chest"),
    ("elytra", "chest"),
    ("_leggings", "legs"),
    ("_pants", "legs"),
    ("_boots", "feet"),
    ("shield", "offhand"),
)


@lru_cache(maxsize=1)
def biomes_data() -> dict:
    with open(Path(__file__).resolve().parent / "data" / "biomes.yaml") as f:
        return yaml.safe_load(f)


def slot_of(item: str) -> str:
    for suffix, slot in SLOTS:
        if item.endswith(suffix):
            return slot
    return "mainhand"


@dataclass
class Refusal:
    """Why an action cannot be done: the words and the data ({item: n}, {"tool": t}, {"fuel": 1})."""

    error: str
    missing: dict = field(default_factory=dict)


class Bag:
    def __init__(self, kb: Any, biome: str = "plains"):
        self.kb = kb
        self.items: dict[str, int] = {}
        self.equipment: dict[str, str] = {}
        self.fuel_credit = 0.0
        self.chance_credit: dict[str, float] = {}  # chance drops owed, per "source>item" (worlds/drops.py)
        self.biome = biome

    # ------------------------------------------------------------------ reading
    def held(self, name: str) -> int:
        """How many of name (any variant) are in the inventory or worn."""
        worn: dict[str, int] = {}
        for item in self.equipment.values():
            worn[item] = worn.get(item, 0) + 1
        return self.kb.count(self.items, name) + self.kb.count(worn, name)

    def has(self, name: str, count: int = 1) -> bool:
        return self.held(name) >= count

    def wood(self) -> str:
        b = biomes_data()
        return b["wood_of_biome"].get(self.biome, b["default"])

    def preferred_variant(self, variants: list[str]) -> str:
        wood = self.wood()
        if self.kb.era == "legacy":
            want = biomes_data()["legacy_log"].get(wood)
            return want if want in variants else variants[0]
        return next((v for v in variants if v.startswith(wood + "_")), variants[0])

    def concrete(self, name: str, what: str = "action") -> str:
        canon = self.kb.canonical(name)
        if canon is None:
            raise ValueError(f"{self.kb.unknown_reason(name)} (in the {what})")
        vs = self.kb.variants(canon)
        return canon if canon in vs or len(vs) == 0 else self.preferred_variant(vs)

    def concrete_held(self, name: str) -> str | None:
        canon = self.kb.canonical(name)
        if canon is None:
            return None
        return max((v for v in self.kb.variants(canon) if self.items.get(v)), key=lambda v: self.items[v], default=None)

    def shortfall(self, ingredients: dict[str, int], recipe: Recipe | None = None) -> dict[str, int]:
        """What is missing of `ingredients` ({name: lacking}); with `recipe`, the items its
        slots accept (blackstone for cobblestone) count too."""

        def have(k: str) -> int:
            return self.kb.count_for(self.items, recipe, k) if recipe else self.kb.count(self.items, k)

        return {k: n - have(k) for k, n in ingredients.items() if have(k) < n}

    # ------------------------------------------------------------------ changing
    def add(self, gained: dict[str, int]) -> None:
        for k, n in gained.items():
            self.items[k] = self.items.get(k, 0) + n

    def take(self, name: str, n: int) -> None:
        """Remove n of name (any of its variants: the most-held first)."""
        vs = sorted(self.kb.holders(name), key=lambda v: -self.items.get(v, 0))
        for v in vs:
            k = min(n, self.items.get(v, 0))
            if k:
                self.items[v] -= k
                n -= k
                if not self.items[v]:
                    del self.items[v]
            if n == 0:
                return

    # ------------------------------------------------------------------ crafting
    def plan_craft(self, item: str, has_table: bool, table_words: str = "a crafting_table") -> Recipe | Refusal:
        """The recipe a craft of `item` would use now, or why it cannot."""
        kb = self.kb
        generic = kb.recipes(item)
        if not generic:
            return Refusal(f"{item} cannot be crafted; obtain it by {how_to_obtain(kb, item)}")
        if all(any(item in route_items(kb, i) for i in r.ingredients) for r in generic):
            if not any(not self.shortfall(r.ingredients, r) for r in generic):
                made_of = ", ".join(sorted({i for r in generic for i in r.ingredients}))
                return Refusal(
                    f"{item} cannot be crafted from raw materials (only from {made_of}, itself made "
                    f"of {item}); obtain it by {how_to_obtain(kb, item)}"
                )
        if kb.is_generic(item):  # craft a concrete member: the first one whose recipe is met
            pref = self.preferred_variant(kb.variants(item))
            members = sorted(kb.variants(item), key=lambda v: v != pref)
            concrete = [r for v in members for r in kb.concrete_recipes(v)]
        else:
            concrete = generic
        for r in concrete:
            if not self.shortfall(r.ingredients, r) and (has_table or not r.needs_table):
                return r
        # nothing craftable: explain against the recipe closest to being met
        pool = generic + [r for r in concrete if r not in generic]
        r = min(
            pool,
            key=lambda r: (
                sum(self.shortfall(r.ingredients, r).values()) + (r.needs_table and not has_table),
                pool.index(r),
            ),
        )
        short = self.shortfall(r.ingredients, r)
        if not short and not (r.needs_table and not has_table):  # generic counts met, no single variant
            r = min(concrete, key=lambda r: sum(self.shortfall(r.ingredients, r).values()))
            short = self.shortfall(r.ingredients, r)
        parts = [f"needs {n} {k}, has {kb.count_for(self.items, r, k)}" for k, n in r.ingredients.items() if k in short]
        missing = dict(short)
        if r.needs_table and not has_table:
            parts.append(f"needs {table_words}")
            missing["crafting_table"] = 1
        return Refusal(f"cannot craft {item}: " + "; ".join(parts), missing)

    def apply_craft(self, r: Recipe) -> dict[str, int]:
        for k, n in r.ingredients.items():
            for f in sorted(r.fillers(k), key=lambda f: -self.kb.count(self.items, f)):  # mixed: most held first
                m = min(n, self.kb.count(self.items, f))
                self.take(f, m)
                n -= m
        gained = {r.output: r.count}
        self.add(gained)
        return gained

    # ------------------------------------------------------------------ smelting
    def pick_fuel(self, exclude: str | None = None, making: str | None = None) -> str | None:
        """The fuel a smelt burns when none is named (options.default_fuel)."""
        return default_fuel(self.kb, self.items, exclude, making)

    def plan_smelt(
        self, item: str, has_furnace: bool, fuel_name: str | None = None, furnace_words: str = "a furnace"
    ) -> tuple[SmeltRecipe, str | None] | Refusal:
        """(the furnace recipe, the fuel item to burn or None while credit lasts), or why not."""
        kb = self.kb
        recipes = kb.smelting(item)
        if not recipes:
            return Refusal(f"{item} cannot be smelted; obtain it by {how_to_obtain(kb, item)}")
        held = [r for r in recipes if kb.count(self.items, r.input) >= 1]
        parts, missing = [], {}
        if not has_furnace:
            parts.append(f"needs {furnace_words}")
            missing["furnace"] = 1
        if not held:
            uc = unit_costs(kb)
            r = min(recipes, key=lambda r: uc.get(r.input, float("inf")))
            parts.append(f"needs 1 {r.input}, has 0")
            missing[r.input] = 1
        fuel = None
        if self.fuel_credit < 1 - 1e-9:
            recipe_input = next((v for v in kb.variants(held[0].input) if self.items.get(v)), None) if held else None
            if fuel_name:
                fuel = self.concrete_held(fuel_name)
                if fuel is None or kb.fuel_value(fuel) <= 0:
                    fuel = None
                    parts.append(f"cannot burn {fuel_name}: not held or not a fuel")
                    missing["fuel"] = 1
                elif fuel == recipe_input and self.items.get(fuel, 0) < 2:
                    fuel = None
                    parts.append(f"needs 2 {fuel_name} to smelt one and burn one")
                    missing["fuel"] = 1
            else:
                fuel = self.pick_fuel(exclude=recipe_input, making=held[0].output if held else None)
                if fuel is None:
                    parts.append("needs fuel (coal, planks, log...)")
                    missing["fuel"] = 1
        if parts:
            return Refusal(f"cannot smelt {item}: " + "; ".join(parts), missing)
        return held[0], fuel

    def apply_smelt(self, r: SmeltRecipe, fuel: str | None) -> dict[str, int]:
        self.take(r.input, 1)
        if fuel is not None:
            self.take(fuel, 1)
            self.fuel_credit += self.kb.fuel_value(fuel)
        self.fuel_credit -= 1
        gained = {r.output: r.count}
        self.add(gained)
        return gained

    # ------------------------------------------------------------------ equipping
    def plan_equip(self, item: str) -> str | Refusal:
        """The concrete held item equipping `item` would wear, or why not."""
        held = self.concrete_held(item)
        if held is None:
            return Refusal(f"cannot equip {item}: needs 1 {item}, has 0", {item: 1})
        return held

    def apply_equip(self, held: str) -> None:
        slot = slot_of(held)
        self.take(held, 1)
        if slot in self.equipment:
            self.add({self.equipment[slot]: 1})
        self.equipment[slot] = held
