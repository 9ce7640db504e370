"""Which tasks the grid world can give, and on how large a map, decided before an episode: the oracle's route to
the target (worlds/solver.py, from what is held) is walked, and every mine or kill goal on
it must have a source here (a block that drops it, a mob that drops it, an egg a chicken
lays).  A route through something the grid world does not build is refused with one line
that names the missing feature (worlds/data/gridworld.yaml `not_built:`), instead of an
episode that wanders until its budget is spent.  A target the solver cannot reach at all is
left to the planner (it says so itself).  `short_of` says when a map holds too few of the
blocks the route mines (eight reeds), so that the world is made larger (world.py), and for a farmed
crop, when it lacks the grass for the plot's seeds or ground to till by water.  `budget_refusal`
says when an episode's steps cannot reach what the route waits for: the night, for a hunt of its
mobs, or a crop's ripening (farming.py), naming a budget that can.
(About 400 lines: each check reads the same route against the same rules; the farm's own reckoning
is farming.py's.)
"""

from __future__ import annotations

import math
from functools import cache
from types import SimpleNamespace
from typing import Any

from worlds.gridworld.crops import farm_holds, farmed
from worlds.gridworld.farming import farm_refusal, plot_seeds, short_for_farm
from worlds.gridworld.pour import pour_holds
from worlds.gridworld.rules import make_rules
from worlds.gridworld.sources import goal_sources, hunts_hostiles, placeable_chance_sources
from worlds.gridworld.spec import animal_homes, game_data, make_vocab


def _sourced(env: Any, goal: Any) -> bool:
    name = next(iter(goal.obj))
    if any(not w.uses and w.on == "mob" and w.source in env.vocab.mob_id for w in env.kb.interactions(name)):
        return True  # picked up (an egg a chicken lays: eggs.py)
    cells, mobs = goal_sources(env, goal)
    unmade = game_data().get("not_built") or {}
    cells = {c for c in cells if env.vocab.cells[c] not in unmade}  # a kind the generator never places (snow)
    if goal.action == "mine" and goal.tool is None and cells and not mobs:
        # the route mines it bare-handed (dye from cocoa pods): a source here that needs a tool
        # (lapis ore) is not the route's, and the planner brings no tool for it
        return any(not env.rules.needs_tool[c] for c in cells)
    return bool(cells or mobs)


def _route_sources(env: Any, goal: Any) -> set[int]:
    """The cells a mine goal of the route takes its item from: a bare-handed goal's that need no
    tool where it has any (dye: cocoa pods, not lapis ore), as `_sourced` judges them."""
    cells, mobs = goal_sources(env, goal)
    if goal.tool is None and not mobs and any(not env.rules.needs_tool[c] for c in cells):
        return {c for c in cells if not env.rules.needs_tool[c]}
    return cells


def _why(kb: Any, goal: Any, reasons: dict) -> str:
    """The data file's reason for the missing thing: the goal's item, else the block the
    recipe book's route takes it from (dye: cocoa)."""
    what = next(iter(goal.obj))
    if what in reasons:
        return reasons[what]
    for src in kb.mine_sources(what) if goal.action == "mine" else []:
        if (goal.tool is None) == (src.tools is None) and src.block in reasons:
            return reasons[src.block]
    return "no block or mob of the grid world gives it"


def _env(kb: Any) -> Any:
    return SimpleNamespace(vocab=make_vocab(kb), rules=make_rules(kb), kb=kb)


class _Gives:
    """`gives(goal) -> bool`: whether the grid world has a source for a mine, kill or use goal (a
    block, a mob, an egg a chicken lays), for the solver to route around what is not built here
    (mossy cobblestone from dungeons: craft it from a vine); `gives.holds(goal)`: what a mine
    goal's source wants held and kept (a water bucket, poured on lava for obsidian: pour.py), and
    what a kill goal's mob wants held (a sword against a mob that fights back: gridworld.yaml
    `hunt_weapon`); `gives.waits(goal)`: the steps it waits for its source (the night's mobs)."""

    def __init__(self, kb: Any):
        env = _env(kb)

        @cache
        def judge(action: str, item: str, tool: str | None) -> bool:
            return _sourced(env, SimpleNamespace(action=action, obj={item: 1}, tool=tool))

        @cache
        def hostile(item: str) -> tuple[bool, bool]:
            """(any of the mobs a kill for `item` hunts fights back, all of them come only at night)"""
            mobs = sorted(goal_sources(env, SimpleNamespace(action="kill", obj={item: 1}, tool=None))[1])
            fights = env.rules.mob_hostile[mobs]
            return bool(fights.any()), bool(mobs) and bool(fights.all())

        self._judge, self._hostile = judge, hostile

    def __call__(self, goal: Any) -> bool:
        return self._judge(goal.action, next(iter(goal.obj)), goal.tool)

    def holds(self, goal: Any) -> tuple[str, ...]:
        item = next(iter(goal.obj))
        if goal.action == "mine":
            return pour_holds(item) + farm_holds(item)
        fights = goal.action == "kill" and self._hostile(item)[0]
        return (str(game_data()["hunt_weapon"]),) if fights else ()

    def waits(self, goal: Any) -> float:
        """Task steps (of 1/20 s) a route waits before it can start `goal`: a kill of a mob that
        comes only at night waits from a task's dawn to dusk, so a way by day ranks first (arrows
        from flint rather than from a skeleton)."""
        if goal.action != "kill" or not self._hostile(next(iter(goal.obj)))[1]:
            return 0.0
        d = game_data()
        return float(d["night"][0]) * int(d["day_steps"]) * float(d["seconds_per_step"]) / float(d["task_step_seconds"])


@cache
def gives(kb: Any) -> _Gives:
    """The grid world's `_Gives` for this knowledge base (one per knowledge base)."""
    return _Gives(kb)


def route(kb: Any, target: dict[str, int], inventory: dict[str, int] | None = None) -> list | None:
    """The oracle's route here: the recipe book's shortest way that the grid world has sources for;
    else the book's own shortest (whose gap `refusal` names); None where the solver finds none."""
    from worlds.solver import Unreachable, solve

    for judge in (gives(kb), None):
        try:
            return solve(kb, dict(target), dict(inventory or {}), gives=judge)
        except (Unreachable, ValueError):
            continue
    return None


def _route(kb: Any, target: dict[str, int], inventory: dict[str, int] | None) -> tuple[list, Any] | None:
    """`route`, and the grid world's rules to read it against; None where the solver cannot reach
    the target (that is left to the planner, which says so)."""
    goals = route(kb, target, inventory)
    return None if goals is None else (goals, _env(kb))


def missing(kb: Any, target: dict[str, int], inventory: dict[str, int] | None = None) -> list[tuple[str, str]]:
    """[(what, why)] for each mine or kill goal of the oracle's route the grid world cannot give."""
    route = _route(kb, target, inventory)
    if route is None:
        return []
    goals, env = route
    reasons = game_data().get("not_built") or {}
    out: list[tuple[str, str]] = []
    for g in goals:
        if g.action in ("mine", "kill") and not _sourced(env, g):
            what, why = next(iter(g.obj)), _why(kb, g, reasons)
            if (what, why) not in out:
                out.append((what, why))
    return out


def refusal(kb: Any, target: dict[str, int], inventory: dict[str, int] | None = None) -> str | None:
    """One line when the grid world cannot give the target, else None."""
    gaps = missing(kb, target, inventory)
    if not gaps:
        return None
    what, why = gaps[0]
    wanted = ", ".join(f"{n} {k}" for k, n in target.items())
    more = f" (and {len(gaps) - 1} more: {', '.join(w for w, _ in gaps[1:])})" if len(gaps) > 1 else ""
    verb = "kill a" if what in make_vocab(kb).mob_id or what in kb.mobs() else "get"
    return (
        f"the grid world cannot give {wanted}: the recipe book's way to it needs to {verb} {what}, and {why}{more}; "
        "accepted: a task the grid world builds, or --world textworld"
    )


# Grid steps after dusk that the budget a night refusal suggests gives the hunt itself: one kill
# goal's budget of steps without progress (skills/learned/controller.py GOAL_BUDGET).  Just to
# dusk was too little: "obtain string" given the night's first 8 steps spent them all.
NIGHT_HUNT = 600


def night_refusal(
    kb: Any, target: dict[str, int], inventory: dict[str, int] | None, start: int, steps: int
) -> str | None:
    """One line when the route kills a mob that spawns only at night (a spider, for string; the
    grid world's hostiles, gridworld.yaml `mobs:`) and night does not fall within the episode's
    `steps` from clock step `start`; else None. A day is `day_steps` long, night its `night` span."""
    d = game_data()
    day, (dusk, dawn) = int(d["day_steps"]), (float(f) for f in d["night"])
    now = (start % day) / day
    if dusk <= now < dawn:
        return None
    wait = round(((dusk - now) % 1.0) * day)
    if wait < steps:
        return None
    route = _route(kb, target, inventory)
    if route is None:
        return None
    goals, env = route
    for g in goals:
        mobs = goal_sources(env, g)[1] if g.action == "kill" else set()
        if hunts_hostiles(env, g):
            mob = env.vocab.mobs[min(mobs)]
            need = math.ceil((wait + NIGHT_HUNT) * float(d["seconds_per_step"]) / float(d["task_step_seconds"]))
            wanted = ", ".join(f"{n} {k}" for k, n in target.items())
            return (
                f"the grid world cannot give {wanted} in this episode: the recipe book's way to it kills a {mob}, "
                f"which spawns only at night, and night falls {wait} steps after the start, beyond the episode's "
                f"{steps}; accepted: a task with steps for the night and the hunt (max_steps {need} or more: "
                f"deps run --max-steps {need}, or a suite file's max_steps), or --world textworld"
            )
    return None


def budget_refusal(
    kb: Any, target: dict[str, int], inventory: dict[str, int] | None, start: int, steps: int
) -> str | None:
    """One line when the episode's steps cannot reach what the route waits for: the night, for a hunt
    of its mobs (`night_refusal`), or a crop's ripening (`farm_refusal`); else None."""
    night = night_refusal(kb, target, inventory, start, steps)
    if night:
        return night
    route = _route(kb, target, inventory)
    return farm_refusal(route[0] if route else [], target, start, steps)


MARGIN = 2.0  # blocks on the map per block the route mines (some lie deep, under water, far off)
SURE = 0.99  # a chance drop: the map holds enough sources that it comes this often (a real world has more)


@cache
def chance_need(n: int) -> float:
    """The expected drops a map must hold for `n` chance drops to come with probability SURE
    (draws are independent, so their count is Poisson): 4.6 for one apple, 920 oak leaves.
    Twice the expected count, MARGIN, gave one apple only 86 times in 100 (400 leaves)."""
    lam = float(n)
    while 1.0 - sum(math.exp(-lam) * lam**k / math.factorial(k) for k in range(n)) < SURE:
        lam += 0.05
    return max(lam, MARGIN * n)


def short_of(env: Any, i: int, target: dict[str, int], inventory: dict[str, int] | None = None) -> list[str]:
    """The items of the route's mine goals that world i's map holds fewer source blocks of
    than MARGIN times the count mined (a block that drops several counts as several)."""
    import numpy as np

    goals = route(env.kb, target, inventory) or []

    out = []
    for g in goals:
        if g.action != "mine":
            continue
        crop = farmed(next(iter(g.obj)))
        if crop is not None:  # farmed: grass for the plot's seeds, and water to farm by
            n = next(iter(g.obj.values()))
            if short_for_farm(env, i, crop, n, chance_need(plot_seeds(n))):
                out.append(crop.seed)
            continue
        cells = _route_sources(env, g)
        if not cells:
            continue
        item, n = next(iter(g.obj.items()))
        ids = [env.vocab.item_id[x] for x in (env.kb.variants(item) or [item]) if x in env.vocab.item_id]
        per = {c: _yield(env.rules, c, ids) for c in cells}
        counts = np.bincount(env.cells[i].ravel(), minlength=len(env.vocab.cells))
        # a chance drop from a block that cannot be placed again (leaves, not gravel: flint is
        # farmed from one held gravel) needs enough sources that it is all but sure to come
        chance = all(per[c] < 1.0 for c in cells) and not placeable_chance_sources(env.kb, item)
        if sum(int(counts[c]) * per[c] for c in cells) < (chance_need(n) if chance else MARGIN * n):
            out.append(item)
    return out


def _yield(rules: Any, c: int, ids: list[int]) -> float:
    """Items one break of cell c gives toward `ids`: its drop count, else the chance of a chance
    drop (an apple: 1 oak leaf in 200, so 200 leaves per apple), else 1 (the block itself)."""
    n = int(rules.drop_vec[c, ids].max()) if ids else 0
    if n:
        return float(n)
    p = sum(q for it, q in rules.chance[c] if it in ids)
    return float(p) if p else 1.0


GROUND_PER_CHUNK = 256.0  # a biome's surface or filler block: one a column, far more than any plant


def _density(spec: dict, cell: str) -> float:
    """How many of `cell` a biome grows per chunk: a plant's own density, or its trees' share
    when the cell is the log or the leaves of one of its tree species."""
    kinds = spec.get("tree") or []
    kinds = [kinds] if isinstance(kinds, str) else kinds
    trees = game_data()["trees"]
    mine = [k for k in kinds if cell in _tree_cells(trees[k])]
    per_tree = float(spec.get("trees", 0)) / len(kinds) if kinds else 0.0
    ground = GROUND_PER_CHUNK * (cell in (spec.get("surface"), spec.get("filler")))  # a desert's sandstone
    snow = GROUND_PER_CHUNK * (cell == "snow_layer" and bool(spec.get("snow_cover")))  # the ice plains' ground
    plants = {**(spec.get("plants") or {}), **(spec.get("shade_plants") or {})}  # a swamp's mushrooms too
    plants.update(spec.get("tall_plants") or {})  # tall plants: their patches, each one find
    return float(plants.get(cell, 0)) + per_tree * len(mine) + ground + snow


def _tree_cells(tree: dict) -> tuple[str, ...]:
    """The cells one tree of a species brings: its log, its leaves, what hangs from it or grows
    on its trunk (vines, cocoa pods)."""
    return (tree["log"], tree["leaves"], *(tree.get("hanging") or {}), *(tree.get("on_trunk") or {}))


def grows_in(items: list[str], kb: Any = None) -> tuple[str, ...]:
    """Biomes whose plants, trees, ground or snow (gridworld.yaml) include a block these items
    come from, the densest first (cactus: desert; pumpkin: plains; log2, acacia's: savanna;
    sandstone: desert; snowballs: ice plains; mushrooms: swamps)."""
    names: dict[str, list[str]] = {}
    for c in game_data()["cells"]:  # reeds -> sugar_cane; log -> oak, birch and spruce logs
        names.setdefault(c.get("legacy", c["name"]), []).append(c["name"])
    dropped: dict[str, list[str]] = {}  # snowball -> snow_layer: the cells whose block drops the item
    if kb is not None:
        v, rules = make_vocab(kb), make_rules(kb)
        for c in range(2, len(v.cells)):
            block = v.block_of[c]
            for it in kb.block_drops(block) if block in kb.blocks() else {}:
                dropped.setdefault(it, []).append(v.cells[c])
            for it, _ in rules.chance[c]:  # an apple -> oak leaves (a chance drop)
                dropped.setdefault(v.items[it], []).append(v.cells[c])
    out = []
    for item in items:
        cells = names.get(item, [item]) + [c for c in dropped.get(item, []) if c not in names.get(item, [item])]
        best = _densest(cells)
        if best is None and kb is not None:  # a metadata item's blocks (1.11.2's dye: cocoa pods)
            best = _densest([c for c in _mined_from(kb, item) if c not in cells])
        if best is not None and best not in out:
            out.append(best)
    return tuple(out)


def _densest(cells: list[str]) -> str | None:
    """The biome that grows the most of these cells; the biomes appended after the networks'
    (`policy_as:`, the jungle and the swamp) only where no other grows any, so that a map grown
    for logs or apples is the one it was before they were built, or where the others grow so few
    that a map of the default size holds less than one (a forest's rose bushes, 1 patch in 50
    chunks: a flower forest's, 1 in 8), as a player goes where they are common."""
    biomes = game_data()["biomes"]
    X, Z = game_data()["default_size"]
    few = 256.0 / (X * Z)  # finds a chunk below which a default map holds less than one
    dens = {b: sum(_density(biomes[b], c) for c in cells) for b in biomes}
    seeds = [b for b, s in biomes.items() if not s.get("policy_as")]
    best = max(seeds, key=lambda b: dens[b])
    more = max(biomes, key=lambda b: dens[b])
    if dens[best] >= few or (dens[best] > 0 and dens[more] <= dens[best]):
        return best
    return more if dens[more] > 0 else None


def _mined_from(kb: Any, item: str) -> list[str]:
    """Cells whose block the knowledge base names as a way to mine `item`."""
    v = make_vocab(kb)
    blocks = {s.block for s in kb.mine_sources(item)}
    return [v.cells[c] for c in range(2, len(v.cells)) if v.block_of[c] in blocks]


def appended_biome(kb: Any, item: str) -> str | None:
    """The biome that alone grows `item`'s blocks when it is one appended after the networks'
    (melons, cocoa: a jungle; lily pads: a swamp), which no seed's map is of; else None."""
    where = grows_in([item], kb)
    return where[0] if where and game_data()["biomes"][where[0]].get("policy_as") else None


def sole_biome(kb: Any, target: dict[str, int], inventory: dict[str, int] | None = None) -> str | None:
    """The biome a task's map is made of when no biome is asked for and its route mines what only
    an appended biome grows (`appended_biome`) or kills a mob only it has (a rabbit), as a player
    goes where they are; else None."""
    route = _route(kb, target, inventory)
    for g in route[0] if route else []:
        if where := appended_home(kb, g):
            return where
    return None


def appended_home(kb: Any, goal: Any) -> str | None:
    """The appended biome that alone has a mine goal's blocks (`appended_biome`) or a kill goal's
    mob (the mob itself, or those that drop the item: a rabbit's foot), else None."""
    if goal.action == "mine":
        return appended_biome(kb, next(iter(goal.obj)))
    if goal.action == "kill":
        env = _env(kb)
        for mob in sorted(goal_sources(env, goal)[1]):
            if where := next(iter(animal_homes().get(env.vocab.mobs[mob], [])), None):
                return where
    return None


def biome_refusal(kb: Any, target: dict[str, int], inventory: dict[str, int] | None, main: str) -> str | None:
    """One line when the route mines an ore that forms only under other main biomes (emerald
    ore: extreme hills, gridworld.yaml `ores:`), naming the biome to ask for; else None."""
    found = ore_biomes(kb, target, inventory, main)
    if found is None:
        return None
    item, cells, biomes = found
    return (
        f"the grid world cannot give {item} on a {main} map: {', '.join(cells)} forms "
        f'only under {", ".join(biomes)} (Minecraft Wiki, "Ore"); accepted: --biome {biomes[0]}'
    )


def ore_biomes(
    kb: Any, target: dict[str, int], inventory: dict[str, int] | None, main: str
) -> tuple[str, list[str], list[str]] | None:
    """(item, its ore cells, the main biomes they form under) for the first thing the route
    mines that forms only under main biomes other than `main`; else None."""
    only = {o["cell"]: o["biomes"] for o in game_data()["ores"] if o.get("biomes")}
    route = _route(kb, target, inventory) if only else None
    if route is None:
        return None
    goals, env = route
    for g in goals:
        if g.action != "mine":
            continue
        cells = {env.vocab.cells[c] for c in goal_sources(env, g)[0]}
        if cells and cells <= set(only) and not any(main in only[c] for c in cells):
            return next(iter(g.obj)), sorted(cells), sorted({b for c in cells for b in only[c]})
    return None
