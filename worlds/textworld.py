"""MC-TextWorld: Minecraft reduced to inventory, recipes and gathering rules, Gymnasium style.

State: inventory (concrete item -> count), equipment (slot -> item), biome, step counter,
furnace fuel credit.  Actions are dicts, one unit each:

    {"action": "mine",  "item": "cobblestone"}   # the world picks a block that drops it
    {"action": "mine",  "item": "milk_bucket"}   # or uses a held bucket on a cow (interactions.yaml)
    {"action": "craft", "item": "wooden_pickaxe"} # one batch of a recipe
    {"action": "smelt", "item": "iron_ingot", "fuel": "coal"}   # one item; fuel optional
    {"action": "kill",  "item": "cow"}            # a mob, or an item a mob drops ("beef")
    {"action": "equip", "item": "iron_helmet"}

Rules: materials are consumed; tools and platforms (pickaxe, crafting_table, furnace) are
required and kept; a container used on a mob or a block (a bucket on a cow) is consumed
and the filled one given (the cow stays).  Smelting burns fuel fractionally (one coal
smelts 8 items; the credit carries over).  Each unit costs env steps (worlds/data/skill_costs.yaml, from DEPS Table
18); with `stochastic=True` a unit whose preconditions hold still fails with the skill's
Table 18 failure rate (seeded), costing its steps and changing nothing.

A failed action changes nothing.  What it costs: nothing when the failure shows before
acting (unknown item, skill not allowed, materials/table/furnace/fuel missing: the
crafting screen tells at once); the unit's full cost when the attempt itself fails
(mining with too weak a tool breaks the block for no drop; a stochastic failure).
`info["error"]` says why in words, `info["missing"]` as data: {item: count} or
{"tool": "stone_pickaxe"} or {"fuel": 1}.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from agent.types import ACTIONS
from worlds.costs import SkillCosts, default_costs
from worlds.knowledge import KnowledgeBase
from worlds.options import best_option, default_fuel, is_use, route_items, use_rate
from worlds.recipes import a

DEFAULT_MAX_STEPS = 12000
SLOTS = (("_helmet", "head"), ("_cap", "head"), ("_chestplate", "chest"), ("_tunic", "chest"),
         ("elytra", "chest"), ("_leggings", "legs"), ("_pants", "legs"), ("_boots", "feet"),
         ("shield", "offhand"))


@lru_cache(maxsize=1)
def _biomes() -> dict:
    with open(Path(__file__).resolve().parent / "data" / "biomes.yaml") as f:
        return yaml.safe_load(f)


def slot_of(item: str) -> str:
    for suffix, slot in SLOTS:
        if item.endswith(suffix):
            return slot
    return "mainhand"


@dataclass
class Outcome:
    ok: bool
    error: str | None = None
    cost: int = 0
    gained: dict[str, int] = field(default_factory=dict)
    missing: dict = field(default_factory=dict)
    chance: bool = False  # failed by the controller's success rate, not by a rule


def _fail(error: str, missing: dict | None = None, cost: int = 0) -> Outcome:
    return Outcome(False, error, cost, {}, missing or {})


def how_to_get(kb: KnowledgeBase, item: str) -> str:
    """'mining diamond_ore with an iron_pickaxe or better' / 'smelting iron_ore in a furnace' / ..."""
    o = best_option(kb, item)
    if o is None:
        return "nothing in this world gives it"
    if is_use(o):
        return f"using {a(o.source.uses)} on {o.source.where()} (mine {o.name})"
    if o.kind == "mine":
        s = o.source
        tool = f" with {a(s.min_tool)}" + (" or better" if len(s.tools) > 1 else "") if s.min_tool else ""
        return f"mining {s.block}{tool}"
    if o.kind == "kill":
        return f"killing a {o.source}"
    if o.kind == "smelt":
        return f"smelting {o.source.input} in a furnace"
    mats = " + ".join(f"{n} {k}" for k, n in o.inputs.items())
    return f"crafting it from {mats}"


class TextWorld:
    def __init__(self, kb: KnowledgeBase, *, stochastic: bool = False,
                 allowed_skills: set[str] | None = None, costs: dict | SkillCosts | None = None):
        self.kb = kb
        self.stochastic = stochastic
        if allowed_skills:
            bad = sorted(set(allowed_skills) - set(ACTIONS))
            if bad:
                raise ValueError(f"unknown skill(s) {', '.join(bad)}; accepted: {', '.join(ACTIONS)}")
        self.allowed = set(allowed_skills) if allowed_skills else set(ACTIONS)
        self.costs = costs if isinstance(costs, SkillCosts) else (SkillCosts(costs) if costs else default_costs())
        self._inv: dict[str, int] = {}
        self.equipment: dict[str, str] = {}
        self.biome = "plains"
        self.steps = 0
        self.max_steps = DEFAULT_MAX_STEPS
        self.target: dict[str, int] = {}
        self.fuel_credit = 0.0
        self._rng = random.Random(0)

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        o = dict(options or {})
        self._rng = random.Random(seed)
        self.biome = o.get("biome") or "plains"
        self.steps = 0
        self.max_steps = int(o.get("max_steps") or DEFAULT_MAX_STEPS)
        self.fuel_credit = 0.0
        self.equipment = {}
        self._inv = {}
        for name, n in (o.get("inventory") or {}).items():
            if int(n) > 0:
                item = self._concrete(name, what="initial inventory")
                self._inv[item] = self._inv.get(item, 0) + int(n)
        self.target = {}
        for name, n in (o.get("target") or {}).items():
            canon = self.kb.canonical(name)
            if canon is None:
                raise ValueError(f"unknown item {name!r} in the target")
            self.target[canon] = int(n)
        return self._obs(), self._info(Outcome(True))

    def step(self, action: dict) -> tuple[dict, float, bool, bool, dict]:
        was_done = self.target_reached()
        if self.steps >= self.max_steps:
            out = _fail(f"the episode is over: {self.steps} of {self.max_steps} steps used")
        else:
            out = self._dispatch(action)
        self.steps += out.cost
        done = self.target_reached()
        reward = 1.0 if done and not was_done else 0.0
        truncated = self.steps >= self.max_steps and not done
        return self._obs(), reward, done, truncated, self._info(out)

    @property
    def inventory(self) -> dict[str, int]:
        return dict(self._inv)

    def has(self, name: str, count: int = 1) -> bool:
        return self._held(name) >= count

    def target_reached(self) -> bool:
        return bool(self.target) and all(self.has(k, n) for k, n in self.target.items())

    # ------------------------------------------------------------------ helpers
    def _obs(self) -> dict:
        return {"inventory": dict(self._inv), "equipment": dict(self.equipment),
                "biome": self.biome, "steps": self.steps}

    @staticmethod
    def _info(out: Outcome) -> dict:
        return {"ok": out.ok, "error": out.error, "cost": out.cost, "gained": dict(out.gained),
                "missing": dict(out.missing), "chance": out.chance}

    def _held(self, name: str) -> int:
        worn: dict[str, int] = {}
        for item in self.equipment.values():
            worn[item] = worn.get(item, 0) + 1
        return self.kb.count(self._inv, name) + self.kb.count(worn, name)

    def _wood(self) -> str:
        b = _biomes()
        return b["wood_of_biome"].get(self.biome, b["default"])

    def _preferred_variant(self, variants: list[str]) -> str:
        wood = self._wood()
        if self.kb.era == "legacy":
            want = _biomes()["legacy_log"].get(wood)
            return want if want in variants else variants[0]
        return next((v for v in variants if v.startswith(wood + "_")), variants[0])

    def _concrete(self, name: str, what: str = "action") -> str:
        canon = self.kb.canonical(name)
        if canon is None:
            raise ValueError(f"unknown item {name!r} in the {what}")
        vs = self.kb.variants(canon)
        return canon if canon in vs or len(vs) == 0 else self._preferred_variant(vs)

    def _add(self, gained: dict[str, int]) -> None:
        for k, n in gained.items():
            self._inv[k] = self._inv.get(k, 0) + n

    def _take(self, name: str, n: int) -> None:
        """Remove n of name (any of its variants: the most-held first)."""
        vs = sorted(self.kb.variants(name) or [name], key=lambda v: -self._inv.get(v, 0))
        for v in vs:
            k = min(n, self._inv.get(v, 0))
            if k:
                self._inv[v] -= k
                n -= k
                if not self._inv[v]:
                    del self._inv[v]
            if n == 0:
                return

    def _roll(self, out: Outcome, rate: float, skill: str) -> Outcome:
        """Stochastic worlds: the unit succeeds with the skill's Table 18 rate."""
        if self.stochastic and self._rng.random() >= rate:
            return Outcome(False, f"the {skill} attempt failed (controller success rate {rate:.2f}); try again",
                           out.cost, {}, {}, True)
        return out

    def _dispatch(self, action: dict) -> Outcome:
        if not isinstance(action, dict) or action.get("action") not in ACTIONS:
            got = action.get("action") if isinstance(action, dict) else action
            return _fail(f"unknown action {got!r} (accepted: {', '.join(ACTIONS)})")
        skill = action["action"]
        if skill not in self.allowed:
            return _fail(f"skill '{skill}' is not allowed here (allowed: {', '.join(sorted(self.allowed))})")
        raw = str(action.get("item") or "").strip()
        if not raw:
            return _fail(f"{skill}: no item given")
        if skill == "kill" and self.kb.is_mob(raw):
            return self._kill_mob(raw.lower())
        item = self.kb.canonical(raw)
        if item is None:
            return _fail(f"unknown {'mob or item' if skill == 'kill' else 'item'} '{raw}'")
        return getattr(self, "_" + skill)(item, action)

    # ------------------------------------------------------------------ skills
    def _mine(self, item: str, action: dict) -> Outcome:
        kb = self.kb
        sources = kb.mine_sources(item)
        if not sources and item in kb.blocks() and kb.block_drops(item):
            # "mine stone": break the named block, get what it drops (cobblestone)
            sources = [s for d in kb.block_drops(item) for s in kb.mine_sources(d) if s.block == item]
        if not sources and kb.interactions(item):
            return self._use(item)
        if not sources:
            return _fail(f"{item} cannot be mined (no natural block drops it); obtain it by {how_to_get(kb, item)}")
        if kb.is_generic(item):  # a log from this biome's trees
            pref = self._preferred_variant(kb.variants(item))
            sources = sorted(sources, key=lambda s: s.item != pref)
        usable = [s for s in sources if s.tools is None or any(self.has(t) for t in s.tools)]
        if not usable:
            s = min(sources, key=lambda s: s.tier)
            rate = self.costs.mine(s.block, needs_pickaxe=s.min_tool.endswith("pickaxe"))
            better = " or better" if len(s.tools) > 1 else ""
            return _fail(f"needs {a(s.min_tool)}{better} to mine {s.block}", {"tool": s.min_tool}, rate.cost)
        s = usable[0]
        rate = self.costs.mine(s.block, needs_pickaxe=bool(s.min_tool and s.min_tool.endswith("pickaxe")))
        out = self._roll(Outcome(True, None, rate.cost, kb.block_drops(s.block)), rate.success_rate, "mine")
        if out.ok:
            self._add(out.gained)
        return out

    def _use(self, item: str) -> Outcome:
        """Use a held item on a mob or a block ("mine milk_bucket": a bucket on a cow): the
        held item is consumed, the filled one given.  Without it nothing is tried."""
        kb = self.kb
        ways = sorted(kb.interactions(item), key=lambda i: use_rate(self.costs, i).cost)  # stable: data order
        usable = [i for i in ways if kb.count(self._inv, i.uses) >= 1]
        if not usable:
            i = ways[0]
            return _fail(f"needs {a(i.uses)} to get {item} from {i.where()}", {i.uses: 1})
        i = usable[0]
        rate = use_rate(self.costs, i)
        out = self._roll(Outcome(True, None, rate.cost, {i.item: i.count}), rate.success_rate, "mine")
        if out.ok:
            self._take(i.uses, 1)
            self._add(out.gained)
        return out

    def _shortfall(self, ingredients: dict[str, int]) -> dict[str, int]:
        return {k: n - self.kb.count(self._inv, k) for k, n in ingredients.items()
                if self.kb.count(self._inv, k) < n}

    def _craft(self, item: str, action: dict) -> Outcome:
        kb = self.kb
        generic = kb.recipes(item)
        if not generic:
            return _fail(f"{item} cannot be crafted; obtain it by {how_to_get(kb, item)}")
        if all(any(item in route_items(kb, i) for i in r.ingredients) for r in generic):
            if not any(not self._shortfall(r.ingredients) for r in generic):
                made_of = ", ".join(sorted({i for r in generic for i in r.ingredients}))
                return _fail(f"{item} cannot be crafted from raw materials (only from {made_of}, itself made "
                             f"of {item}); obtain it by {how_to_get(kb, item)}")
        if kb.is_generic(item):  # craft a concrete member: the first one whose recipe is met
            pref = self._preferred_variant(kb.variants(item))
            members = sorted(kb.variants(item), key=lambda v: v != pref)
            concrete = [r for v in members for r in kb.concrete_recipes(v)]
        else:
            concrete = generic
        has_table = self.has("crafting_table")
        for r in concrete:
            if not self._shortfall(r.ingredients) and (has_table or not r.needs_table):
                rate = self.costs.craft(r.needs_table)
                out = self._roll(Outcome(True, None, rate.cost, {r.output: r.count}), rate.success_rate, "craft")
                if out.ok:
                    for k, n in r.ingredients.items():
                        self._take(k, n)
                    self._add(out.gained)
                return out
        # nothing craftable: explain against the recipe closest to being met
        pool = generic + [r for r in concrete if r not in generic]
        r = min(pool, key=lambda r: (sum(self._shortfall(r.ingredients).values())
                                     + (r.needs_table and not has_table), pool.index(r)))
        short = self._shortfall(r.ingredients)
        if not short and not (r.needs_table and not has_table):  # generic counts met, no single variant
            r = min(concrete, key=lambda r: sum(self._shortfall(r.ingredients).values()))
            short = self._shortfall(r.ingredients)
        parts = [f"needs {n} {k}, has {kb.count(self._inv, k)}" for k, n in r.ingredients.items() if k in short]
        missing = dict(short)
        if r.needs_table and not has_table:
            parts.append("needs a crafting_table")
            missing["crafting_table"] = 1
        return _fail(f"cannot craft {item}: " + "; ".join(parts), missing)

    def pick_fuel(self, exclude: str | None = None) -> str | None:
        """The fuel a smelt burns when none is named (options.default_fuel)."""
        return default_fuel(self.kb, self._inv, exclude)

    def _smelt(self, item: str, action: dict) -> Outcome:
        kb = self.kb
        recipes = kb.smelting(item)
        if not recipes:
            return _fail(f"{item} cannot be smelted; obtain it by {how_to_get(kb, item)}")
        held = [r for r in recipes if kb.count(self._inv, r.input) >= 1]
        parts, missing = [], {}
        if not self.has("furnace"):
            parts.append("needs a furnace")
            missing["furnace"] = 1
        if not held:
            uc = kb.unit_costs()
            r = min(recipes, key=lambda r: uc.get(r.input, float("inf")))
            parts.append(f"needs 1 {r.input}, has 0")
            missing[r.input] = 1
        fuel = None
        if self.fuel_credit < 1 - 1e-9:
            recipe_input = next((v for v in kb.variants(held[0].input) if self._inv.get(v)), None) if held else None
            named = action.get("fuel")
            if named:
                fuel = self._concrete_held(named)
                if fuel is None or kb.fuel_value(fuel) <= 0:
                    fuel = None
                    parts.append(f"cannot burn {named}: not held or not a fuel")
                    missing["fuel"] = 1
                elif fuel == recipe_input and self._inv.get(fuel, 0) < 2:
                    fuel = None
                    parts.append(f"needs 2 {named} to smelt one and burn one")
                    missing["fuel"] = 1
            else:
                fuel = self.pick_fuel(exclude=recipe_input)
                if fuel is None:
                    parts.append("needs fuel (coal, planks, log...)")
                    missing["fuel"] = 1
        if parts:
            return _fail(f"cannot smelt {item}: " + "; ".join(parts), missing)
        r = held[0]
        rate = self.costs.smelt()
        out = self._roll(Outcome(True, None, rate.cost, {r.output: r.count}), rate.success_rate, "smelt")
        if out.ok:
            self._take(r.input, 1)
            if fuel is not None:
                self._take(fuel, 1)
                self.fuel_credit += kb.fuel_value(fuel)
            self.fuel_credit -= 1
            self._add(out.gained)
        return out

    def _concrete_held(self, name: str) -> str | None:
        canon = self.kb.canonical(name)
        if canon is None:
            return None
        return max((v for v in self.kb.variants(canon) if self._inv.get(v)),
                   key=lambda v: self._inv[v], default=None)

    def _kill(self, item: str, action: dict) -> Outcome:
        kb = self.kb
        mobs = kb.mob_sources(item)
        if not mobs:
            return _fail(f"no mob here drops {item}; obtain it by {how_to_get(kb, item)}")
        vs = set(kb.variants(item))
        mob = min(mobs, key=lambda m: (self.costs.kill(m).cost / max(1, sum(
            n for i, n in kb.mob_drops(m).items() if i in vs)), m))
        return self._kill_mob(mob)

    def _kill_mob(self, mob: str) -> Outcome:
        if mob not in self.kb.mobs():
            return _fail(f"there is no {mob} to hunt in this world (huntable: {', '.join(self.kb.mobs())})")
        rate = self.costs.kill(mob)
        out = self._roll(Outcome(True, None, rate.cost, self.kb.mob_drops(mob)), rate.success_rate, "kill")
        if out.ok:
            self._add(out.gained)
        return out

    def _equip(self, item: str, action: dict) -> Outcome:
        held = self._concrete_held(item)
        if held is None:
            return _fail(f"cannot equip {item}: needs 1 {item}, has 0", {item: 1})
        rate = self.costs.equip()
        out = self._roll(Outcome(True, None, rate.cost, {}), rate.success_rate, "equip")
        if out.ok:
            slot = slot_of(held)
            self._take(held, 1)
            if slot in self.equipment:
                self._add({self.equipment[slot]: 1})
            self.equipment[slot] = held
        return out
