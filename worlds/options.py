"""Ways to obtain an item, what they cost, and how to say it (built on the knowledge base,
never the reverse; used by the worlds' messages, the describer and the solver).

An Option is one way to get a name: mine a block, kill a mob, craft a recipe, smelt a
furnace recipe, or use a held item on a mob or a block (a bucket on a cow: kind "mine",
source an Interaction, the bucket an input since it is consumed).  Its `unit_cost` is the
env steps of one unit action (one block, one kill, one craft batch, one smelt, one use)
from worlds/costs.py; `yield_` is what one unit gives.
`compute_unit_costs` finds, for every name, the cheapest expected steps per item by
fixed-point iteration (recipes can form cycles: iron_block <-> iron_ingot).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from fnmatch import fnmatch
from typing import TYPE_CHECKING, Any

from worlds.costs import Rate, SkillCosts, default_costs
from worlds.recipes import MineSource, a

if TYPE_CHECKING:  # pragma: no cover
    from worlds.knowledge import Interaction, KnowledgeBase

INF = math.inf


@dataclass
class Option:
    kind: str  # mine | kill | craft | smelt
    name: str  # what it produces (as asked)
    yield_: int  # items per unit action
    unit_cost: int  # env steps per unit action
    inputs: dict[str, int] = field(default_factory=dict)  # consumed per unit
    tool: str | None = None  # crafting_table, furnace, the pickaxe, or None
    source: Any = None  # the Recipe / SmeltRecipe / MineSource / mob name / Interaction
    fuel: str | None = None  # smelting: the cheapest fuel (set by best_option)
    success_rate: float = 1.0
    chance: float = 1.0  # a chance drop: one item per `1/chance` breaks or kills, priced so

    def uses(self) -> list[str]:
        """What this way of getting the item takes: its inputs, then its tool or station, then its fuel."""
        return [*self.inputs, *([self.tool] if self.tool else []), *([self.fuel] if self.fuel else [])]


def use_rate(costs: SkillCosts, it: Interaction) -> Rate:
    """Cost and success rate of one use of a held item on a mob or a block: the `use:` row
    of skill_costs.yaml naming the source, else what reaching it costs (its kill / mine row)."""
    for row in costs.table.get("use", []):
        if any(fnmatch(it.source, pat) for pat in row.get("sources", [])):
            return costs.rate(row)
    return costs.kill(it.source) if it.on == "mob" else costs.mine(it.source)


def is_use(o: Option) -> bool:
    """Is this option the use of a held item on a mob or a block (a bucket on a cow)?"""
    return o.kind == "mine" and not isinstance(o.source, MineSource)


def options(kb: KnowledgeBase, name: str, costs: SkillCosts | None = None) -> list[Option]:
    costs = costs or default_costs()
    out: list[Option] = []
    for s in kb.mine_sources(name):
        r = costs.mine(s.block, needs_pickaxe=s.needs_pickaxe)
        if s.chance < 1:  # expected breaks per item
            out.append(
                Option(
                    "mine", name, 1, r.cost * s.tries, {}, s.min_tool, s, success_rate=r.success_rate, chance=s.chance
                )
            )
            continue
        out.append(Option("mine", name, s.count, r.cost, {}, s.min_tool, s, success_rate=r.success_rate))
    for it in kb.interactions(name):  # the held item is consumed: an input, not a tool
        r = use_rate(costs, it)
        used = {it.uses: 1} if it.uses else {}
        out.append(Option(it.skill, name, it.count, r.cost, used, None, it, success_rate=r.success_rate))
    vs = set(kb.variants(name))
    for mob in kb.mob_sources(name):
        n = sum(c for i, c in kb.mob_drops(mob).items() if i in vs)
        r = costs.kill(mob)
        out.append(Option("kill", name, n, r.cost, {}, None, mob, success_rate=r.success_rate))
    for mob, p in kb.mob_chance_sources(name):  # rare drops: expected kills per item
        r = costs.kill(mob)
        out.append(
            Option("kill", name, 1, r.cost * max(1, round(1 / p)), {}, None, mob, success_rate=r.success_rate, chance=p)
        )
    for rec in (c for r in kb.recipes(name) for c in r.choices()):  # each accepted material priced
        r = costs.craft(rec.needs_table)
        out.append(
            Option(
                "craft",
                name,
                rec.count,
                r.cost,
                dict(rec.ingredients),
                "crafting_table" if rec.needs_table else None,
                rec,
                success_rate=r.success_rate,
            )
        )
    for sm in kb.smelting(name):
        r = costs.smelt()
        out.append(Option("smelt", name, sm.count, r.cost, {sm.input: 1}, "furnace", sm, success_rate=r.success_rate))
    return out


def _names(kb: KnowledgeBase) -> list[str]:
    return list(kb.item_names()) + [g for g in kb.groups() if not kb.is_item(g)]


def compute_unit_costs(
    kb: KnowledgeBase, costs: SkillCosts | None = None, extra: Callable[[Option, str], float] | None = None
) -> dict[str, float]:
    """`extra(option, name)`: steps an option costs beyond its unit cost, each time it is used (a
    world's wait for its source: the grid world's night mobs, worlds/solver.py)."""
    costs = costs or default_costs()
    names = _names(kb)
    opts = {n: options(kb, n, costs) for n in names}
    more = {(n, j): extra(o, n) for n in names for j, o in enumerate(opts[n])} if extra else {}
    fuels = kb.fuels()
    uc: dict[str, float] = {n: INF for n in names}
    for _ in range(100):
        fuel_cost = min((uc.get(f, INF) / v for f, v in fuels.items()), default=INF)
        changed = False
        for n in names:
            best = uc[n]
            for j, o in enumerate(opts[n]):
                c = o.unit_cost + more.get((n, j), 0.0) + sum(uc.get(i, INF) * k for i, k in o.inputs.items())
                if o.kind == "smelt":
                    c += fuel_cost
                c /= max(o.yield_, 1)
                if c < best - 1e-9:
                    best = c
            for v in kb.variants(n):  # a generic name costs what its cheapest member costs
                if v != n and uc.get(v, INF) < best - 1e-9:
                    best = uc[v]
            if best < uc[n]:
                uc[n], changed = best, True
        if not changed:
            break
    return uc


def option_cost(kb: KnowledgeBase, o: Option, uc: dict[str, float] | None = None) -> float:
    """Expected env steps per item via this option (inputs at their unit costs)."""
    uc = uc if uc is not None else unit_costs(kb)
    c = o.unit_cost + sum(uc.get(i, INF) * k for i, k in o.inputs.items())
    if o.kind == "smelt":  # fuel per smelted item, as compute_unit_costs counts it
        c += min((uc.get(f, INF) / v for f, v in kb.fuels().items()), default=INF)
    return c / max(o.yield_, 1)


def best_fuel(
    kb: KnowledgeBase, uc: dict[str, float] | None = None, exclude: AbstractSet[str] = frozenset(), smelts: int = 1
) -> str | None:
    """The fuel that makes `smelts` smelts cheapest (whole fuel items: 9 coal for a coal
    block is no bargain for one smelt)."""
    uc = uc if uc is not None else unit_costs(kb)
    cands = [(uc.get(f, INF) * math.ceil(smelts / v), f) for f, v in kb.fuels().items() if f not in exclude]
    cands = [c for c in cands if c[0] < INF]
    return min(cands)[1] if cands else None


def best_option(kb: KnowledgeBase, name: str) -> Option | None:
    uc = unit_costs(kb)
    scored = [(option_cost(kb, o, uc), i, o) for i, o in enumerate(options(kb, name))]
    scored = [s for s in scored if s[0] < INF]
    if not scored:
        return None
    o = min(scored, key=lambda s: (s[0], s[1]))[2]
    if o.kind == "smelt":
        o.fuel = best_fuel(kb, uc, exclude={name})
    return o


def default_fuel(
    kb: KnowledgeBase, inventory: dict[str, int], exclude: str | None = None, making: str | None = None
) -> str | None:
    """The fuel a furnace burns when none is named: the held fuel of highest value (ties:
    the order of smelting.yaml).  `exclude` (the item being smelted) counts only beyond
    the one in the furnace; `making` (what the furnace makes: charcoal from logs) is burnt
    only when no other fuel is held, so a smelt does not eat its own output.  The text
    world and the solver's simulation share this rule."""
    if making:
        made = set(kb.variants(making)) | {making}
        other = {k: n for k, n in inventory.items() if k not in made}
        first = default_fuel(kb, other, exclude)
        if first is not None:
            return first
    order = list(kb.fuels())
    best = None
    for item, n in sorted(inventory.items()):
        v = kb.fuel_value(item)
        if v <= 0 or n <= (1 if item == exclude else 0):
            continue
        g = kb.group_of(item)
        rank = (-v, order.index(item) if item in order else order.index(g) if g in order else len(order))
        if best is None or rank < best[0]:
            best = (rank, item)
    return best[1] if best else None


def route_items(kb: KnowledgeBase, name: str) -> frozenset[str]:
    """Every name the cheapest route to `name` passes through (name included)."""
    cache = kb.cache.setdefault("route_items", {})
    if name in cache:
        return cache[name]
    cache[name] = frozenset({name})  # guards against cycles while computing
    o = best_option(kb, name)
    out = {name}
    if o is not None:
        for i in list(o.inputs) + ([o.fuel] if o.fuel else []):
            out |= route_items(kb, i)
    cache[name] = frozenset(out)
    return cache[name]


def describe_option(kb: KnowledgeBase, o: Option, units: int = 1) -> str:
    if o.kind == "craft":
        return o.source.describe(units)
    if o.kind == "smelt":
        fuel = f", fuel: {o.fuel}" if o.fuel else ""
        return o.source.describe(units) + fuel
    if is_use(o):
        return o.source.describe(units)
    if o.kind == "mine":
        s = o.source
        tool = s.tool_phrase(by_hand=" by hand")
        if s.chance < 1:
            return f"mine {s.block}{tool} until it drops {units} {s.item} (1 in {s.tries} breaks)"
        what = f"{units * s.count} {s.item}"
        return f"mine {units} {s.block}{tool} (drops {what})"
    if o.chance < 1:
        return f"kill {o.source} until it drops {units} {o.name} (1 in {round(1 / o.chance)} kills)"
    return f"kill {units} {o.source} (drops {units * o.yield_} {o.name})"


def unit_costs(kb: KnowledgeBase) -> dict[str, float]:
    """Expected env steps to obtain one unit of each name (cheapest way, tools free); cached
    on the knowledge base."""
    if "unit_costs" not in kb.cache:
        kb.cache["unit_costs"] = compute_unit_costs(kb)
    return kb.cache["unit_costs"]


def closure(kb: KnowledgeBase, item: str, count: int = 1) -> dict[str, int]:
    """Raw materials (mined or dropped by mobs, incl. smelting fuel) that `count` of
    `item` needs along the cheapest route, batch sizes respected (6 planks -> 2 log).
    Tools and platforms are not counted; an item filled from a mob or a block (a milk
    bucket) counts as what its container (the bucket) is made of."""
    name = kb.canonical(item) or item
    order: list[str] = []
    seen: set[str] = set()

    def visit(n: str) -> None:
        if n in seen:
            return
        seen.add(n)
        opt = best_option(kb, n)
        if opt is None:
            raise ValueError(f"{n} cannot be obtained in Minecraft {kb.version}")
        for i in opt.inputs:
            visit(i)
        if opt.fuel:
            visit(opt.fuel)
        order.append(n)

    visit(name)
    need = {name: count}
    raw: dict[str, int] = {}
    for n in reversed(order):  # every consumer before what it consumes
        k = need.get(n, 0)
        if k <= 0:
            continue
        opt = best_option(kb, n)
        assert opt is not None  # visit() raised for a name without one
        units = math.ceil(k / opt.yield_)
        if opt.kind in ("mine", "kill") and not opt.inputs:  # inputs: a bucket used on a cow
            raw[n] = raw.get(n, 0) + units * opt.yield_
            continue
        for i, m in opt.inputs.items():
            need[i] = need.get(i, 0) + units * m
        if opt.fuel:
            need[opt.fuel] = need.get(opt.fuel, 0) + math.ceil(units / kb.fuel_value_of(opt.fuel))
    return raw


def how_to_make(kb: KnowledgeBase, item: str) -> str:
    """The recipe book's line for an item: 'mine 1 diamond_ore with an iron_pickaxe or better (drops 1 diamond)'."""
    name = kb.canonical(item)
    if name is None:
        return f"unknown item '{item}'"
    opt = best_option(kb, name)
    if opt is None:
        return f"{name} cannot be obtained (no recipe, furnace recipe, block, mob or interaction gives it)"
    return describe_option(kb, opt)


def how_to_obtain(kb: KnowledgeBase, item: str) -> str:
    """The same fact as a phrase for a world's message: 'mining diamond_ore with an
    iron_pickaxe or better', 'smelting iron_ore in a furnace', 'crafting it from 2 planks'."""
    o = best_option(kb, item)
    if o is None:
        return "nothing in this world gives it"
    if is_use(o):
        if o.source.uses is None:
            return f"picking it up where {o.source.where()} leaves it (mine {o.name})"
        return f"using {a(o.source.uses)} on {o.source.where()} (mine {o.name})"
    if o.kind == "mine":
        return f"mining {o.source.block}{o.source.tool_phrase()}{o.source.odds()}"
    if o.kind == "kill":
        return f"killing a {o.source}" + (f" (1 in {round(1 / o.chance)} drops it)" if o.chance < 1 else "")
    if o.kind == "smelt":
        return f"smelting {o.source.input} in a furnace"
    mats = " + ".join(f"{n} {k}" for k, n in o.inputs.items())
    return f"crafting it from {mats}"


def mob_for(kb: KnowledgeBase, costs: SkillCosts, item: str) -> str | None:
    """The mob a world hunts for `item`: of those that always drop it, the one with the fewest
    steps per item dropped; for a rare drop only (a rabbit's foot), the one with the
    best chance per step of a kill; None where no mob drops it. Ties go by name."""
    mobs = kb.mob_sources(item)
    if not mobs and kb.mob_chance_sources(item):  # a rare drop: kill until it comes
        return max(kb.mob_chance_sources(item), key=lambda m: (m[1] / costs.kill(m[0]).cost, m[0]))[0]
    if not mobs:
        return None
    vs = set(kb.variants(item))
    return min(
        mobs, key=lambda m: (costs.kill(m).cost / max(1, sum(n for i, n in kb.mob_drops(m).items() if i in vs)), m)
    )
