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
from typing import Any

from worlds.costs import SkillCosts, default_costs
from worlds.drops import break_gains, kill_gains
from worlds.inventory import SLOTS, Bag, Refusal, slot_of  # noqa: F401  (the rules; slot_of re-exported)
from worlds.knowledge import KnowledgeBase
from worlds.options import how_to_obtain, mob_for, use_rate
from worlds.recipes import a
from worlds.types import ACTIONS

DEFAULT_MAX_STEPS = 12000


@dataclass
class Outcome:
    ok: bool
    error: str | None = None
    cost: int = 0
    gained: dict[str, int] = field(default_factory=dict)
    missing: dict = field(default_factory=dict)
    chance: bool = False  # failed by the controller's success rate, not by a rule

    def info(self) -> dict:
        """The step's `info` dict (a copy: the world keeps nothing the caller may change)."""
        return {
            "ok": self.ok,
            "error": self.error,
            "cost": self.cost,
            "gained": dict(self.gained),
            "missing": dict(self.missing),
            "chance": self.chance,
        }


def _fail(error: str, missing: dict | None = None, cost: int = 0) -> Outcome:
    return Outcome(False, error, cost, {}, missing or {})


def read_action(kb: KnowledgeBase, allowed: set[str] | frozenset[str], action: Any) -> tuple[str, str] | Outcome:
    """The skill and the item an action names (("kill_mob", mob) for a mob to kill), or its refusal
    in the world's words: every world that takes the text world's unit skills reads them so."""
    if not isinstance(action, dict) or action.get("action") not in ACTIONS:
        got = action.get("action") if isinstance(action, dict) else action
        return _fail(f"unknown action {got!r} (accepted: {', '.join(ACTIONS)})")
    skill = action["action"]
    if skill not in allowed:
        return _fail(f"skill '{skill}' is not allowed here (allowed: {', '.join(sorted(allowed))})")
    raw = str(action.get("item") or "").strip()
    if not raw:
        return _fail(f"{skill}: no item given")
    if skill == "kill" and kb.is_mob(raw):
        return "kill_mob", raw.lower()
    item = kb.canonical(raw)
    if item is None:
        return _fail(f"unknown {'mob or item' if skill == 'kill' else 'item'} '{raw}'")
    return skill, item


class DispatchStep:
    """Gymnasium's `step` for a world whose `_dispatch` turns one action into an Outcome (the
    text world and the Mineflayer world): the step budget, the cost, the reward on reaching
    the target and the truncation, the same in both."""

    steps: int
    max_steps: int

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
        return self._obs(), reward, done, truncated, out.info()

    def _dispatch(self, action: dict) -> Outcome:
        raise NotImplementedError

    def _obs(self) -> dict:
        raise NotImplementedError

    def target_reached(self) -> bool:
        raise NotImplementedError


class TextWorld(DispatchStep):
    observation_space = {
        "inventory": "item -> count",
        "equipment": "slot -> item",
        "biome": "biome name",
        "steps": "environment steps used",
    }
    action_space = {"action": ACTIONS, "item": "an item (or mob for kill)", "fuel": "optional, for smelt"}

    # the agent's belongings live in self.bag (worlds/inventory.py, shared with the grid world)
    _inv = property(lambda self: self.bag.items, lambda self, v: setattr(self.bag, "items", v))
    equipment = property(lambda self: self.bag.equipment, lambda self, v: setattr(self.bag, "equipment", v))
    fuel_credit = property(lambda self: self.bag.fuel_credit, lambda self, v: setattr(self.bag, "fuel_credit", v))
    biome = property(lambda self: self.bag.biome, lambda self, v: setattr(self.bag, "biome", v))

    def __init__(
        self,
        kb: KnowledgeBase,
        *,
        stochastic: bool = False,
        allowed_skills: set[str] | None = None,
        costs: dict | SkillCosts | None = None,
    ):
        self.kb = kb
        self.stochastic = stochastic
        if allowed_skills:
            bad = sorted(set(allowed_skills) - set(ACTIONS))
            if bad:
                raise ValueError(f"unknown skill(s) {', '.join(bad)}; accepted: {', '.join(ACTIONS)}")
        self.allowed = set(allowed_skills) if allowed_skills else set(ACTIONS)
        self.costs = costs if isinstance(costs, SkillCosts) else (SkillCosts(costs) if costs else default_costs())
        self.bag = Bag(kb)  # inventory, equipment, fuel credit, biome (worlds/inventory.py)
        self.time_of_day = "day"  # an option for MP5's context tasks; nothing else reads it
        self.steps = 0
        self.max_steps = DEFAULT_MAX_STEPS
        self.target: dict[str, int] = {}
        self.fuel_credit = 0.0
        self._rng = random.Random(0)
        self._seed: int | None = None  # the RNG's seed
        self._draws = 0  # and how many numbers it gave

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        o = dict(options or {})
        self._rng = random.Random(seed)
        self._seed, self._draws = seed, 0
        self.biome = o.get("biome") or "plains"
        self.time_of_day = o.get("time_of_day") or "day"
        self.steps = 0
        self.max_steps = int(o.get("max_steps") or DEFAULT_MAX_STEPS)
        self.fuel_credit = 0.0
        self.bag.chance_credit = {}
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
                raise ValueError(f"{self.kb.unknown_reason(name)} (in the target)")
            self.target[canon] = int(n)
        return self._obs(), Outcome(True).info()

    @property
    def inventory(self) -> dict[str, int]:
        return dict(self._inv)

    def has(self, name: str, count: int = 1) -> bool:
        return self._held(name) >= count

    def context_state(self) -> dict:
        """What context tasks may ask (worlds/context_tasks.py): no space here, so no mobs or blocks in view."""
        return {"biome": self.biome, "time_of_day": self.time_of_day}

    def _draw(self) -> float:
        self._draws += 1
        return self._rng.random()

    def snapshot(self) -> dict:
        """What the episode has changed, as plain data: checkpointed with the graph's state so a
        run can be resumed or replayed from any step (`restore`)."""
        return {
            "inventory": dict(self._inv),
            "equipment": dict(self.equipment),
            "fuel_credit": self.fuel_credit,
            "steps": self.steps,
            "time_of_day": self.time_of_day,
            "rng": [self._seed, self._draws],
            "chance_credit": dict(self.bag.chance_credit),
        }

    def restore(self, snap: dict) -> None:
        self._inv, self.equipment = dict(snap["inventory"]), dict(snap["equipment"])
        self.fuel_credit, self.steps = float(snap["fuel_credit"]), int(snap["steps"])
        self.time_of_day = snap.get("time_of_day", self.time_of_day)
        self.bag.chance_credit = dict(snap.get("chance_credit") or {})
        self._seed, self._draws = snap["rng"]
        self._rng = random.Random(self._seed)
        for _ in range(self._draws):  # the same stream, from where the snapshot left it
            self._rng.random()

    def discard(self, items: dict[str, int]) -> None:
        """Remove held items (MP5's random drop, worlds/random_drop.py)."""
        for name, n in items.items():
            self._take(name, n)

    def target_reached(self) -> bool:
        return bool(self.target) and all(self.has(k, n) for k, n in self.target.items())

    # ------------------------------------------------------------------ helpers
    def _obs(self) -> dict:
        return {
            "inventory": dict(self._inv),
            "equipment": dict(self.equipment),
            "biome": self.biome,
            "steps": self.steps,
        }

    def _held(self, name: str) -> int:
        return self.bag.held(name)

    def _wood(self) -> str:
        return self.bag.wood()

    def _preferred_variant(self, variants: list[str]) -> str:
        return self.bag.preferred_variant(variants)

    def _concrete(self, name: str, what: str = "action") -> str:
        return self.bag.concrete(name, what)

    def _add(self, gained: dict[str, int]) -> None:
        self.bag.add(gained)

    def _take(self, name: str, n: int) -> None:
        """Remove n of name (any of its variants: the most-held first)."""
        self.bag.take(name, n)

    def _roll(self, out: Outcome, rate: float, skill: str) -> Outcome:
        """Stochastic worlds: the unit succeeds with the skill's Table 18 rate."""
        if self.stochastic and self._draw() >= rate:
            return Outcome(
                False,
                f"the {skill} attempt failed (controller success rate {rate:.2f}); try again",
                out.cost,
                {},
                {},
                True,
            )
        return out

    def _dispatch(self, action: dict) -> Outcome:
        read = read_action(self.kb, self.allowed, action)
        if isinstance(read, Outcome):
            return read
        skill, item = read
        return getattr(self, "_" + skill)(item, action) if skill != "kill_mob" else self._kill_mob(item)

    # ------------------------------------------------------------------ skills
    def _mine(self, item: str, action: dict) -> Outcome:
        kb = self.kb
        sources = kb.sources_to_mine(item)  # "mine stone" breaks the stone for what it drops (cobblestone)
        if not sources and kb.interactions(item):
            return self._use(item)
        if not sources:
            return _fail(f"{item} cannot be mined (no natural block drops it); obtain it by {how_to_obtain(kb, item)}")
        if kb.is_generic(item):  # a log from this biome's trees
            pref = self._preferred_variant(kb.variants(item))
            sources = sorted(sources, key=lambda s: s.item != pref)
        usable = [s for s in sources if s.harvested_with(self.has)]
        if not usable:
            s = min(sources, key=lambda s: s.tier)
            assert s.tools is not None and s.min_tool is not None  # a source without tools is usable
            rate = self.costs.mine(s.block, needs_pickaxe=s.needs_pickaxe)
            return _fail(f"needs {s.tool_need()} to mine {s.block}", {"tool": s.min_tool}, rate.cost)
        s = usable[0]
        rate = self.costs.mine(s.block, needs_pickaxe=s.needs_pickaxe)
        out = self._roll(Outcome(True, None, rate.cost, {}), rate.success_rate, "mine")
        if out.ok:  # the block's drops, its chance drops as expected (worlds/drops.py)
            out.gained = break_gains(kb, s, self.bag.chance_credit, self._draw if self.stochastic else None)
            self._add(out.gained)
        return out

    def _use(self, item: str) -> Outcome:
        """Use a held item on a mob or a block ("mine milk_bucket": a bucket on a cow): the
        held item is consumed, the filled one given.  Without it nothing is tried."""
        kb = self.kb
        ways = sorted(kb.interactions(item), key=lambda i: use_rate(self.costs, i).cost)  # stable: data order
        usable = [i for i in ways if i.uses is None or kb.count(self._inv, i.uses) >= 1]
        if not usable:
            i = ways[0]
            assert i.uses is not None  # a way that holds nothing is usable
            return _fail(f"needs {a(i.uses)} to get {item} from {i.where()}", {i.uses: 1})
        i = usable[0]
        rate = use_rate(self.costs, i)
        out = self._roll(Outcome(True, None, rate.cost, {i.item: i.count}), rate.success_rate, "mine")
        if out.ok:
            if i.uses is not None:
                self._take(i.uses, 1)
            self._add(out.gained)
        return out

    def _shortfall(self, ingredients: dict[str, int]) -> dict[str, int]:
        return self.bag.shortfall(ingredients)

    def _craft(self, item: str, action: dict) -> Outcome:
        r = self.bag.plan_craft(item, self.has("crafting_table"))  # rules: worlds/inventory.py
        if isinstance(r, Refusal):
            return _fail(r.error, r.missing)
        rate = self.costs.craft(r.needs_table)
        out = self._roll(Outcome(True, None, rate.cost, {r.output: r.count}), rate.success_rate, "craft")
        if out.ok:
            self.bag.apply_craft(r)
        return out

    def pick_fuel(self, exclude: str | None = None) -> str | None:
        """The fuel a smelt burns when none is named (options.default_fuel)."""
        return self.bag.pick_fuel(exclude)

    def _smelt(self, item: str, action: dict) -> Outcome:
        plan = self.bag.plan_smelt(item, self.has("furnace"), action.get("fuel"))  # worlds/inventory.py
        if isinstance(plan, Refusal):
            return _fail(plan.error, plan.missing)
        r, fuel = plan
        rate = self.costs.smelt()
        out = self._roll(Outcome(True, None, rate.cost, {r.output: r.count}), rate.success_rate, "smelt")
        if out.ok:
            self.bag.apply_smelt(r, fuel)
        return out

    def _concrete_held(self, name: str) -> str | None:
        return self.bag.concrete_held(name)

    def _kill(self, item: str, action: dict) -> Outcome:
        mob = mob_for(self.kb, self.costs, item)
        if mob is None:
            return _fail(f"no mob here drops {item}; obtain it by {how_to_obtain(self.kb, item)}")
        return self._kill_mob(mob)

    def _kill_mob(self, mob: str) -> Outcome:
        if mob not in self.kb.mobs():
            return _fail(f"there is no {mob} to hunt in this world (huntable: {', '.join(self.kb.mobs())})")
        rate = self.costs.kill(mob)
        out = self._roll(Outcome(True, None, rate.cost, {}), rate.success_rate, "kill")
        if out.ok:
            out.gained = kill_gains(self.kb, mob, self.bag.chance_credit, self._draw if self.stochastic else None)
            self._add(out.gained)
        return out

    def _equip(self, item: str, action: dict) -> Outcome:
        held = self.bag.plan_equip(item)
        if isinstance(held, Refusal):
            return _fail(held.error, held.missing)
        rate = self.costs.equip()
        out = self._roll(Outcome(True, None, rate.cost, {}), rate.success_rate, "equip")
        if out.ok:
            self.bag.apply_equip(held)
        return out


def make_world(settings: Any, kb: KnowledgeBase, task: Any) -> TextWorld:
    """The text world reset for `task` (the factory nodes/registry.py names): the task's inventory
    with the user's on top, its step budget and target."""
    world = TextWorld(
        kb,
        stochastic=settings.option("textworld").stochastic,
        allowed_skills=set(settings.skills) if settings.skills else None,
    )
    world.reset(
        seed=settings.seed,
        options={
            "inventory": {**task.inventory, **settings.inventory},
            "biome": task.biome,
            "max_steps": task.max_steps,
            "target": task.target,
        },
    )
    return world
