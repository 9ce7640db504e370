"""The oracle planner's search: a Plan4MC-style backward search with quantities.

`solve(kb, target, inventory)` returns the goals (worlds.types.Goal) that turn the
inventory into one holding the target, in an order whose every step's preconditions hold
when it is reached.  It expands each needed item into the cheapest way to get it
(expected env steps, worlds/options.py: mine / kill / craft / smelt; `mine` also fills a
held container from a mob or a block, consuming it: the bucket is made before the cow is
milked), recursively: quantities are rounded to whole batches (6 planks need 2 logs),
what the inventory holds is used first, tools and platforms (pickaxe, crafting_table,
furnace) are made once and kept, and smelting gets its fuel.  It simulates the text world's rules as it goes
(including which fuel a furnace burns and which wood variant a generic craft makes), and
backtracks to the next option when one turns out impossible.  `Unreachable` says why no
plan exists.
"""

from __future__ import annotations

import copy
import math
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from worlds.costs import SkillCosts, default_costs
from worlds.drops import break_gains, kill_gains
from worlds.options import (
    INF,
    Option,
    compute_unit_costs,
    default_fuel,
    is_use,
    option_cost,
    options,
    route_items,
    unit_costs,
    use_rate,
)
from worlds.recipes import a
from worlds.types import ACTIONS, Goal

if TYPE_CHECKING:  # pragma: no cover
    from worlds.knowledge import KnowledgeBase

MAX_EXPANSIONS = 5000
MAX_TRIES = 100_000  # breaks or kills for chance drops (1 in 200 apples: 200 per apple)
MAX_DEPTH = 40


class Unreachable(Exception):
    """No plan reaches the target; the message says which item failed and why."""


_WAITING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # gives -> {costs' id: unit costs}


def _unit_costs(kb: KnowledgeBase, costs: SkillCosts, gives: Any) -> dict[str, float]:
    """The steps per unit of every name the plan prices its ways by: the recipe book's, or, for a
    world that waits for some sources (`gives.waits`: the grid world's night mobs, from a task's
    dawn), the ways it gives with each kill's wait counted in, so that a thing two recipes above a
    night's kill goes a way by day where there is one (pink dye from a peony, not a skeleton's
    bone meal; a bone from a stray, which the grid world has not, priced no longer)."""
    waits = getattr(gives, "waits", None)
    if waits is None:
        return unit_costs(kb)

    def extra(o: Option, name: str) -> float:
        if o.kind in ("craft", "smelt"):
            return 0.0
        probe = _probe(o, name)
        return INF if not gives(probe) else waits(probe) if o.kind == "kill" else 0.0

    memo = _WAITING.setdefault(gives, {})  # kept with the costs table, so that its id stays its own
    if id(costs) not in memo:
        memo[id(costs)] = (costs, compute_unit_costs(kb, costs, extra=extra))
    return memo[id(costs)][1]


def _probe(o: Option, name: str) -> Goal:
    """The goal a mine, kill or use option would add to the plan, for a world to judge."""
    if is_use(o):
        return Goal(o.source.skill, {name: 1}, dict(o.inputs), o.source.uses)
    if o.kind == "kill":
        return Goal("kill", {name if o.chance < 1 else o.source: 1})
    return Goal("mine", {name: 1}, {}, o.source.min_tool)


class _Planner:
    def __init__(
        self,
        kb: KnowledgeBase,
        inventory: dict[str, int],
        allowed: set[str],
        costs: SkillCosts,
        prefetch: dict[tuple[str, str], int] | None = None,
        gives: Callable[[Goal], bool] | None = None,
    ):
        self.kb, self.allowed, self.costs, self.gives = kb, allowed, costs, gives
        # second pass: the first time (action, item) is done, do it for the whole amount the
        # first pass needed in total (mine 3 logs at once rather than 1 + 1 + 1)
        self.prefetch = dict(prefetch or {})
        self.inv: dict[str, int] = {}
        for name, n in inventory.items():
            self._add(self._concrete(name), int(n))
        self.res: dict[str, int] = {}  # reserved concrete items (gathered for a pending step)
        self.credit = 0.0  # furnace fuel credit, as the world keeps it
        self.chance: dict[str, float] = {}  # chance drops owed, as the world keeps them (worlds/drops.py)
        self.goals: list[Goal] = []
        self.stack: list[str] = []
        self.expansions = 0
        self.uc = _unit_costs(kb, costs, gives)

    # ------------------------------------------------------------------ inventory
    def _concrete(self, name: str) -> str:
        canon = self.kb.canonical(name)
        if canon is None:
            raise Unreachable(f"{self.kb.unknown_reason(name)} (in the inventory)")
        vs = self.kb.variants(canon)
        return canon if canon in vs or not vs else vs[0]

    def _add(self, item: str, n: int) -> None:
        self.inv[item] = self.inv.get(item, 0) + n

    def _take(self, name: str, n: int) -> None:
        vs = sorted(self.kb.variants(name) or [name], key=lambda v: -self.inv.get(v, 0))
        for v in vs:
            k = min(n, self.inv.get(v, 0))
            self.inv[v] = self.inv.get(v, 0) - k
            n -= k
        assert n == 0, f"simulated inventory lacks {n} {name}"

    def held(self, name: str) -> int:
        return self.kb.count(self.inv, name)

    def avail(self, name: str) -> int:
        return sum(max(0, self.inv.get(v, 0) - self.res.get(v, 0)) for v in (self.kb.variants(name) or [name]))

    def reserve(self, name: str, n: int) -> list[tuple[str, int]]:
        vs = sorted(self.kb.variants(name) or [name], key=lambda v: -(self.inv.get(v, 0) - self.res.get(v, 0)))
        taken = []
        for v in vs:
            k = min(n, self.inv.get(v, 0) - self.res.get(v, 0))
            if k > 0:
                self.res[v] = self.res.get(v, 0) + k
                taken.append((v, k))
                n -= k
        return taken

    def release(self, taken: list[tuple[str, int]]) -> None:
        for v, k in taken:
            self.res[v] -= k

    def snapshot(self) -> tuple:
        return (dict(self.inv), dict(self.res), self.credit, len(self.goals), dict(self.prefetch), dict(self.chance))

    def restore(self, snap: tuple) -> None:
        self.inv, self.res, self.credit = dict(snap[0]), dict(snap[1]), snap[2]
        del self.goals[snap[3] :]
        self.prefetch = dict(snap[4])
        self.chance = dict(snap[5])

    # ------------------------------------------------------------------ search
    def obtain(self, name: str, n: int) -> None:
        """Make at least n of name available (not reserved)."""
        short = n - self.avail(name)
        if short <= 0:
            return
        if name in self.stack:
            raise Unreachable(f"{name} is needed to make itself")
        if len(self.stack) >= MAX_DEPTH:
            raise Unreachable(f"recipe chain deeper than {MAX_DEPTH} at {name}")
        self.expansions += 1
        if self.expansions > MAX_EXPANSIONS:
            raise Unreachable(f"search budget exhausted ({MAX_EXPANSIONS} expansions) at {name}")
        short = self.unpack(name, n)
        if short <= 0:
            return
        opts = self.ranked(name, short)
        if not opts:
            raise Unreachable(self.why_none(name))
        reasons = []
        self.stack.append(name)
        try:
            for o in opts:
                snap = self.snapshot()
                try:
                    self.execute(o, name, short)
                    self.repair()
                    if self.avail(name) >= n:
                        return
                    raise Unreachable(f"{o.kind} left {name} short")
                except Unreachable as e:
                    self.restore(snap)
                    reasons.append(f"{o.kind}: {e}")
        finally:
            self.stack.pop()
        raise Unreachable(f"cannot obtain {short} {name} ({reasons[0]})")

    def unpack(self, name: str, n: int) -> int:
        """Use what is held first where the only recipe is circular: 9 iron nuggets make an
        ingot, a diamond block 9 diamonds, a hay bale 9 wheat (never a way to START, so
        `ranked` leaves these out).  As many batches as the held inputs allow; returns what
        is still short."""
        if "craft" not in self.allowed:
            return n - self.avail(name)
        for o in options(self.kb, name, self.costs):
            short = n - self.avail(name)
            if short <= 0 or o.kind != "craft" or not o.inputs:
                continue
            if not any(name in route_items(self.kb, x) for x in o.inputs):
                continue  # an ordinary recipe: ranked with the rest
            units = min(math.ceil(short / max(1, o.yield_)), min(self.avail(i) // k for i, k in o.inputs.items()))
            if units <= 0:
                continue
            snap = self.snapshot()
            try:
                self.craft(o, name, units)
            except Unreachable:
                self.restore(snap)
        return n - self.avail(name)

    def why_none(self, name: str) -> str:
        every = options(self.kb, name, self.costs)
        sourceless = [o for o in every if o.kind in self.allowed and not self._given(o, name)]
        if sourceless:
            how = " or ".join(sorted({o.kind for o in sourceless}))
            return f"this world has no block or mob that gives {name} (by {how})"
        if not every:
            missing = self.kb.unmodelled(name)
            if missing:
                return f"nothing gives {name} in Minecraft {self.kb.version} here: it needs {missing[0]} ({missing[1]})"
            return f"nothing gives {name} in Minecraft {self.kb.version} (no recipe, furnace recipe, block or mob)"
        kinds = sorted({o.kind for o in every})
        return (
            f"{name} needs skill {' or '.join(repr(k) for k in kinds)}, not allowed here "
            f"(allowed: {', '.join(sorted(self.allowed))})"
        )

    def _given(self, o: Option, name: str) -> bool:
        return self.gives is None or o.kind in ("craft", "smelt") or self.gives(_probe(o, name))

    def _holds(self, o: Option, name: str) -> tuple[str, ...]:
        """What the world wants held, and keeps, for this mine or kill option (`gives.holds`: the
        grid world's water bucket, poured on lava to make obsidian; its sword against a skeleton's
        arrows); () elsewhere."""
        holds = getattr(self.gives, "holds", None)
        if holds is None or o.kind not in ("mine", "kill") or is_use(o):
            return ()
        return tuple(holds(_probe(o, name)))

    def _kept(self, o: Option, name: str) -> tuple[list[tuple[str, int]], str]:
        """Make what the world wants held for this option (`_holds`), reserved while the caller's
        tools are, and the goal text's ", holding a water_bucket"."""
        kept = self._holds(o, name)
        return [r for h in kept for r in self.need_tool((h,))], "".join(f", holding {a(h)}" for h in kept)

    def ranked(self, name: str, short: int) -> list[Option]:
        scored = []
        for i, o in enumerate(options(self.kb, name, self.costs)):
            if o.kind not in self.allowed or any(name in route_items(self.kb, x) for x in o.inputs):
                continue  # not allowed, or circular (diamond from a diamond block)
            if not self._given(o, name):
                continue  # the world has no block or mob that gives it this way (no dungeons: mossy cobblestone)
            per = option_cost(self.kb, o, self.uc)
            per = per if per < INF else 1e12  # unknown cost: try last, may still work from the inventory
            extra = 0.0
            if is_use(o):  # the container is an input (consumed), priced in `per`
                tools = None
            else:
                tools = o.source.tools if o.kind == "mine" else ((o.tool,) if o.tool else None)
            if tools and not any(self.held(t) for t in tools):
                extra = self.uc.get(tools[0], 1e12)
            extra += sum(self.uc.get(h, 1e12) for h in self._holds(o, name) if not self.held(h))
            waits = getattr(self.gives, "waits", None)
            if o.kind == "kill" and waits is not None:  # the grid world's night mobs: dusk first
                extra += waits(_probe(o, name))
            scored.append((per * short + extra, i, o))
        return [o for _, _, o in sorted(scored, key=lambda s: (s[0], s[1]))]

    def need_tool(self, tools: tuple[str, ...]) -> list[tuple[str, int]]:
        """Have one of `tools` (the first is the one to make); keep it from being used up
        while in use.  Tools are shared: one held (even set aside by an outer step) serves."""
        for t in tools:
            if self.held(t) >= 1:
                return self.reserve(t, 1) if self.avail(t) >= 1 else []
        self.obtain(tools[0], 1)
        return self.reserve(tools[0], 1)

    def execute(self, o: Option, name: str, short: int) -> None:
        short = max(short, self.prefetch.pop((o.kind, name), 0))
        units = math.ceil(short / max(1, o.yield_))
        if is_use(o):
            self.use(o, name, units)
        elif o.kind == "mine":
            s = o.source
            held = self.need_tool(s.tools) if s.tools else []
            kept, holding = self._kept(o, name)
            self.release(held + kept)
            how = (f" with {a(s.min_tool)}" if s.min_tool else "") + holding
            src = f" from {s.block}" if s.block != s.item else ""
            if s.chance < 1:  # break until the item has come as often as wanted, as the world does
                self._until(name, short, lambda: break_gains(self.kb, s, self.chance))
                self.goals.append(
                    Goal(
                        "mine",
                        {name: short},
                        {},
                        s.min_tool,
                        f"mine {short} {name}{src}{how} (1 in {s.tries} breaks drops it)",
                    )
                )
                return
            for _ in range(units):
                for d, k in break_gains(self.kb, s, self.chance).items():
                    self._add(d, k)
            self.goals.append(
                Goal("mine", {name: units * o.yield_}, {}, s.min_tool, f"mine {units * o.yield_} {name}{src}{how}")
            )
        elif o.kind == "kill":
            kept, how = self._kept(o, name)
            self.release(kept)
            if o.chance < 1:
                self._until(name, short, lambda: kill_gains(self.kb, o.source, self.chance))
                self.goals.append(
                    Goal(
                        "kill",
                        {name: short},
                        {},
                        None,
                        f"kill {o.source} until {short} {name} drop (1 in {round(1 / o.chance)} kills){how}",
                    )
                )
                return
            for _ in range(units):
                for d, k in kill_gains(self.kb, o.source, self.chance).items():
                    self._add(d, k)
            self.goals.append(
                Goal("kill", {o.source: units}, {}, None, f"kill {units} {o.source} for {units * o.yield_} {name}{how}")
            )
        elif o.kind == "craft":
            self.craft(o, name, units)
        else:
            self.smelt(o, name, units)

    def _until(self, name: str, short: int, once) -> None:
        """Break (kill) again and again until `short` more of name have come."""
        got, tries = 0, 0
        while got < short:
            tries += 1
            if tries > MAX_TRIES:
                raise Unreachable(f"{name} did not drop in {MAX_TRIES} tries")
            for d, k in once().items():
                self._add(d, k)
                if d in (self.kb.variants(name) or [name]):
                    got += k

    def use(self, o: Option, name: str, units: int) -> None:
        """Use a held container on a mob or a block `units` times (a bucket on a cow): the
        containers are made first, each is consumed and the filled item given."""
        it = o.source
        used = {it.uses: units} if it.uses else {}  # nothing held: an egg picked up where a chicken laid it
        self.release(self.gather(used, None))
        for held, k in used.items():
            self._take(held, k)
        self._add(it.item, it.count * units)
        self.goals.append(Goal(it.skill, {name: units * it.count}, used, it.uses, it.describe(units)))

    def gather(self, needs: dict[str, int], tool: str | None, recipe=None) -> list[tuple[str, int]]:
        """Make `needs` available and set it aside; a recipe's accepted alternatives that are
        held fill its slots first (blackstone held counts for a hoe's cobblestone)."""
        held = self.need_tool((tool,)) if tool else []
        for i, k in needs.items():
            for alt in recipe.fillers(i) if recipe else ():
                if alt != i and k > 0:
                    got = self.reserve(alt, min(k, self.avail(alt)))
                    held += got
                    k -= sum(n for _, n in got)
            if k > 0:
                self.obtain(i, k)
                held += self.reserve(i, k)
        return held

    def _held_for(self, r, ingredient: str) -> int:
        return sum(self.held(f) for f in r.fillers(ingredient))

    def _take_for(self, r, ingredient: str, n: int) -> None:
        for f in sorted(r.fillers(ingredient), key=lambda f: -self.held(f)):  # as the world takes: most held first
            m = min(n, self.held(f))
            if m:
                self._take(f, m)
                n -= m

    def craft(self, o: Option, name: str, units: int) -> None:
        r = o.source
        needs = {i: k * units for i, k in r.ingredients.items()}
        self.release(self.gather(needs, o.tool, r))
        # the world crafts with the first recipe (of a concrete member, for a generic
        # name) that what is held satisfies: simulate exactly that
        concrete = (
            [c for v in self.kb.variants(name) for c in self.kb.concrete_recipes(v)]
            if self.kb.is_generic(name)
            else self.kb.recipes(name)
        )
        made: dict[str, int] = {}
        for _ in range(units):  # batch by batch, as the world does
            c = next((c for c in concrete if all(self._held_for(c, i) >= k for i, k in c.ingredients.items())), None)
            if c is None:
                raise Unreachable(f"no variant of {name} can be crafted from what is held")
            for i, k in c.ingredients.items():
                self._take_for(c, i, k)
            self._add(c.output, c.count)
            made[c.output] = made.get(c.output, 0) + c.count
        self.goals.append(Goal("craft", {name: units * r.count}, needs, o.tool, r.describe(units)))

    def smelt(self, o: Option, name: str, units: int) -> None:
        s = o.source
        held = self.gather({s.input: units}, "furnace")
        burn = max(0, math.ceil(units - self.credit - 1e-9))
        fuel, fuel_n = None, 0
        if burn:
            fuel = self.choose_fuel(burn, exclude=s.input)
            fuel_n = math.ceil(burn / self.kb.fuel_value_of(fuel))
            self.obtain(fuel, fuel_n)
            held += self.reserve(fuel, fuel_n)
        self.release(held)
        burnt: dict[str, int] = {}
        for _ in range(units):  # the world's furnace, item by item
            cur = next((r for r in self.kb.smelting(name) if self.held(r.input) >= 1), None)
            if cur is None:
                raise Unreachable(f"lost the {s.input} to smelt")
            src = next(v for v in (self.kb.variants(cur.input) or [cur.input]) if self.inv.get(v))
            if self.credit < 1 - 1e-9:
                f = self.world_fuel(exclude=src, making=cur.output)
                if f is None:
                    raise Unreachable("no fuel left for the furnace")
                self._take(f, 1)
                burnt[f] = burnt.get(f, 0) + 1
                self.credit += self.kb.fuel_value(f)
            self._take(src, 1)
            self.credit -= 1
            self._add(cur.output, cur.count)
        mats = {s.input: units, **({fuel: fuel_n} if fuel else {})}
        text = s.describe(units) + (f", burning {fuel_n} {fuel}" if fuel else "")
        self.goals.append(Goal("smelt", {name: units * s.count}, mats, "furnace", text))

    def choose_fuel(self, burn: int, exclude: str) -> str:
        best = None
        for f, v in self.kb.fuels().items():
            if f == exclude or exclude in self.kb.variants(f) or f in self.kb.variants(exclude):
                continue  # do not burn what is being smelted
            k = math.ceil(burn / v)
            have = self.avail(f)
            cost = max(0, k - have) * self.uc.get(f, INF)
            if cost < INF and (best is None or (cost, -v) < best[0]):
                best = ((cost, -v), f)
        if best is None:
            raise Unreachable("no fuel can be had for the furnace")
        return best[1]

    def world_fuel(self, exclude: str, making: str | None = None) -> str | None:
        """The fuel the text world burns when none is named."""
        return default_fuel(self.kb, self.inv, exclude, making)

    def repair(self) -> None:
        """A furnace may have burnt something set aside for a pending step: replace it."""
        for v, k in list(self.res.items()):
            if self.inv.get(v, 0) < k:
                lack = k - self.inv.get(v, 0)
                self.res[v] -= lack
                self.obtain(v, lack)
                self.res[v] += lack


def _merge(goals: list[Goal]) -> list[Goal]:
    """Fold consecutive goals of the same action on the same item (mine 1 log, mine 2 log)."""
    out: list[Goal] = []
    for g in goals:
        p = out[-1] if out else None
        if p and p.action == g.action and p.tool == g.tool and list(p.obj) == list(g.obj) and g.action != "equip":
            for k, n in g.obj.items():
                p.obj[k] += n
            for k, n in g.materials.items():
                p.materials[k] = p.materials.get(k, 0) + n
            p.text = _retext(p)
        else:
            out.append(copy.deepcopy(g))
    return out


def _retext(g: Goal) -> str:
    obj = " + ".join(f"{n} {k}" for k, n in g.obj.items())
    mats = " + ".join(f"{n} {k}" for k, n in g.materials.items())
    tool = f" with {a(g.tool)}" if g.tool and g.action == "mine" else (f" on {a(g.tool)}" if g.tool else "")
    if g.action in ("craft", "smelt"):
        return f"{g.action} {obj} from {mats}{tool}"
    return f"{g.action} {obj}{tool}"


def solve(
    kb: KnowledgeBase,
    target: dict[str, int],
    inventory: dict[str, int] | None = None,
    *,
    allowed_skills=None,
    costs: SkillCosts | None = None,
    gives: Callable[[Goal], bool] | None = None,
) -> list[Goal]:
    """Goals that obtain `target` ({item: count}) from `inventory`; raises Unreachable.

    `gives(goal)`, where a world offers it (the grid world builds no dungeons), says whether
    that world has a source for a mine, kill or use goal; ways it has none for are left out.
    Where it also has `gives.holds(goal)`, the items named there are made before that mine goal
    and kept, as its tools are (the grid world's water bucket, poured on lava for obsidian)."""
    allowed = set(allowed_skills) if allowed_skills else set(ACTIONS)
    costs = costs or default_costs()
    wanted: dict[str, int] = {}
    for name, n in target.items():
        canon = kb.canonical(name)
        if canon is None:
            raise Unreachable(f"{kb.unknown_reason(name)} (in the target)")
        wanted[canon] = wanted.get(canon, 0) + int(n)

    def run(prefetch=None) -> list[Goal]:
        p = _Planner(kb, dict(inventory or {}), allowed, costs, prefetch, gives)
        for name, n in wanted.items():
            p.obtain(name, n)
            p.reserve(name, n)  # later targets must not eat this one
        return _merge(p.goals)

    first = run()
    totals: dict[tuple[str, str], int] = {}
    for g in first:
        if g.action in ("mine", "craft", "smelt"):
            for k, n in g.obj.items():
                totals[(g.action, k)] = totals.get((g.action, k), 0) + n
    try:
        batched = run(totals)
    except Unreachable:
        return first
    return batched if steps_estimate(kb, batched, costs) <= steps_estimate(kb, first, costs) else first


def steps_estimate(kb: KnowledgeBase, goals: list[Goal], costs: SkillCosts | None = None) -> int:
    """Env steps the goals take in the deterministic text world."""
    costs = costs or default_costs()
    total = 0
    for g in goals:
        for item, n in g.obj.items():
            if g.action == "mine":
                srcs = kb.mine_sources(item)
                if not srcs and kb.interactions(item):  # what the text world uses: the cheapest
                    it = min(kb.interactions(item), key=lambda i: use_rate(costs, i).cost)
                    total += math.ceil(n / it.count) * use_rate(costs, it).cost
                    continue
                if not srcs:
                    continue
                s = srcs[0]
                rate = costs.mine(s.block, needs_pickaxe=s.needs_pickaxe)
                total += math.ceil(n / s.count) * rate.cost * s.tries
            elif g.action == "kill":
                chance = kb.mob_chance_sources(item) if not kb.is_mob(item) and not kb.mob_sources(item) else []
                if chance:  # kill until a rare drop comes: expected kills
                    mob, p = max(chance, key=lambda m: (m[1] / costs.kill(m[0]).cost, m[0]))
                    total += n * round(1 / p) * costs.kill(mob).cost
                else:
                    total += n * costs.kill(item).cost
            elif g.action == "craft":
                r = kb.recipe_named(item, g.materials)
                if r:
                    total += math.ceil(n / r.count) * costs.craft(r.needs_table).cost
            elif g.action == "smelt":
                total += n * costs.smelt().cost
            else:
                total += costs.equip().cost
    return total


def plan_raw_materials(kb: KnowledgeBase, goals: list[Goal], target: dict[str, int] | None = None) -> dict[str, int]:
    """What a plan gathers from the world (its mine and kill goals), tools' materials
    included: the raw materials of exactly this plan ({'log': 4, 'cobblestone': 11, ...}).
    A kill goal counts the mob's drops (a kill for a rare drop counts that drop); given the
    plan's `target`, only the drops the plan uses or the target is (a bow's spiders give string
    and spider eyes, and only the string is a material)."""
    used = {k for g in goals for k in g.materials} | set(target or {}) if target is not None else None
    raw: dict[str, int] = {}
    for g in goals:
        if g.action not in ("mine", "kill"):
            continue
        for item, n in g.obj.items():
            got = kb.mob_drops(item) if g.action == "kill" and kb.is_mob(item) else {item: 1}
            if used is not None and used & set(got):  # else (a variant's name): every drop
                got = {k: m for k, m in got.items() if k in used}
            for k, m in got.items():
                raw[k] = raw.get(k, 0) + m * n
    return raw
