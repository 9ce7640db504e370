"""Training data from the scripted experts on the batched grid world.

Each world of a BatchGridWorld pursues one goal at a time (mine log, kill cow...), driven
by the scripted expert (skills/experts.py); when the goal is done the same world gets the
next goal from where the agent stands (so states look like those the agent meets between
a plan's goals), and after a few goals a fresh seeded world. Every step gives a row: the
observation, the goal, the expert's action and, once the goal is reached at step T, the
horizon h_t = T - t (DEPS 3.3). Pursuits that fail are dropped. Half the worlds are scatter maps (training/controller/scenes.py:
trees, sand and animals at set distances on a plain), so that the horizon is learned from
how far a source is, not only from the goal's kind.

With `policy` set (DAgger), the policy's action is executed while a fresh expert, asked
from the current state, gives the label: the states come from the learner, the actions
from the teacher.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from skills.experts import Expert
from skills.find import expert_for
from skills.learned import sense
from skills.learned.controller import hold_attack
from skills.learned.features import encode_extras, encode_obs, mining_column
from skills.learned.progress import drop_kill
from skills.learned.strike import ATTACK, Quarry
from skills.learned.surround import KEY, around, observe_batch
from training.controller import find_goals
from training.controller.curriculum import start_near_source
from training.controller.felled import cut_trunks
from training.controller.scenes import SCATTER_GOALS, training_scatter
from training.controller.seeds import training_seed
from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.sources import felling_sources
from worlds.gridworld.spec import PRIMITIVE_ID, goal_code
from worlds.types import Goal

# Round 8's goals (their worlds in the skill table are drawn apart, so the older rows keep theirs).
NEW_IN_ROUND_8: dict[str, dict] = {
    "clay_ball": {},
    "netherrack": {"wooden_pickaxe": 1},
    "pumpkin": {},
    "apple": {},
    "cactus": {},
    "egg": {},
    "emerald": {"iron_pickaxe": 1},
    "flint": {},
    "red_flower": {},
    "yellow_flower": {},
    "sandstone": {"wooden_pickaxe": 1},
    "deadbush": {"shears": 1, "stone_pickaxe": 1},
    "lava_bucket": {"bucket": 1, "stone_pickaxe": 1},
    "water_bucket": {"bucket": 1, "stone_pickaxe": 1},
    "leaves": {"shears": 1, "stone_pickaxe": 1},
    "leaves2": {"shears": 1, "stone_pickaxe": 1},
    "log2": {},
    "sapling": {},
    "tallgrass": {"shears": 1, "stone_pickaxe": 1},
    "wheat_seeds": {},
}
# Round 35's goals: what the jungle and the swamp give (worlds/data/gridworld.yaml), the planners'
# goals for the harvest list's tasks the grid world took once it built them. Their evaluation worlds
# are drawn apart too, and every world made for one is of the biome it grows in (`own_biome`).
NEW_IN_ROUND_35: dict[str, dict] = {
    "melon": {},
    "cocoa_beans": {},
    "dye": {},
    "vine": {"shears": 1, "stone_pickaxe": 1},
    "waterlily": {},
}
# Round 36's goal: obsidian, made by pouring the held water bucket on a lava source, then broken
# with the diamond pickaxe (worlds/gridworld/pour.py). Its evaluation worlds are drawn apart too.
NEW_IN_ROUND_36: dict[str, dict] = {
    "obsidian": {"water_bucket": 1, "diamond_pickaxe": 1},
}
# Round 37's goals: a swamp's mushrooms and the ice plains' snow (worlds/data/gridworld.yaml), for the
# harvest list's mushroom stew, snowballs and snow; their worlds are of that biome (`own_biome`).
NEW_IN_ROUND_37: dict[str, dict] = {
    "brown_mushroom": {},
    "red_mushroom": {},
    "snowball": {"wooden_shovel": 1},
}
# and its kills: the ice plains' rabbits (hide and meat), and rabbits until a foot drops (1 in 10), a goal
# of its own: its route kills for the item, not the mob (worlds/solver.py `_until`)
NEW_KILLS_IN_ROUND_37 = ("rabbit", "rabbit_foot")
# Round 38's goals: the night's mobs (zombies, skeletons, spiders: worlds/data/gridworld.yaml), for the rotten
# flesh, bones and string of a task that runs past dusk. Each route holds a wooden sword (the data file's
# `hunt_weapon`, coverage.gives.holds) and their worlds start after dusk (`own_time`). The networks read a
# skeleton as a zombie (`policy_as`), so the two share a goal code.
NEW_KILLS_IN_ROUND_38: dict[str, dict] = {mob: {"wooden_sword": 1} for mob in ("zombie", "skeleton", "spider")}
# Round 40's goals: the tall flowers (double_plant and its named kinds: sunflower plains' sunflowers, a flower
# forest's lilacs, rose bushes and peonies; worlds/gridworld/tall.py), for their dyes. Either half of the plant
# breaks it for one drop; their worlds are of the biome that grows them (`own_biome`).
NEW_IN_ROUND_40: dict[str, dict] = {item: {} for item in ("double_plant", "sunflower", "lilac", "rose_bush", "peony")}
# The goals the policy learns: (action, item, weight, what is held at the start besides extras).
# What is held is what the oracle's route holds when it reaches the goal: the goal's own tool and
# the best pickaxe crafted on the way (a bucket's or the shears' iron was mined with a stone
# pickaxe); tests/test_start_inventory.py checks each against the route.
TRAIN_GOALS: tuple[tuple[str, str, float, dict], ...] = (
    ("mine", "log", 3.0, {}),
    ("mine", "cobblestone", 3.0, {"wooden_pickaxe": 1}),
    ("mine", "dirt", 1.0, {}),
    ("mine", "sand", 1.0, {}),
    ("mine", "coal", 1.5, {"wooden_pickaxe": 1}),
    ("mine", "iron_ore", 1.0, {"stone_pickaxe": 1}),
    ("kill", "cow", 1.0, {}),
    ("kill", "pig", 1.0, {}),
    ("kill", "sheep", 1.0, {}),
    ("kill", "chicken", 1.0, {}),
    # issue 20: the rest of what the planners mine on the grid world (deep ores, quartz pockets, gravel, reeds)
    ("mine", "diamond", 1.0, {"iron_pickaxe": 1}),
    ("mine", "quartz", 1.0, {"wooden_pickaxe": 1}),
    ("mine", "gold_ore", 0.7, {"iron_pickaxe": 1}),
    ("mine", "redstone", 0.7, {"iron_pickaxe": 1}),
    ("mine", "lapis_lazuli", 0.7, {"stone_pickaxe": 1}),
    ("mine", "gravel", 0.7, {}),
    ("mine", "reeds", 0.7, {}),
    # issue 20, round 3: find (MP5's find and move), its where-conditions drawn per world (find_goals.py)
    *(("find", thing, 2.0, {}) for thing in find_goals.THINGS),
    # issue 20, round 4: a held item used on a mob (interactions.yaml; plan4mc's harvest_milk)
    ("mine", "milk_bucket", 1.0, {"bucket": 1, "stone_pickaxe": 1}),
    # issue 20, round 8: what the oracle's routes mine for the harvest list the grid world takes
    # (experiments/world_parity.py: 20 goals in 39 of its 214 tasks), each with the tools its route holds there
    *(("mine", item, 0.5, inv) for item, inv in NEW_IN_ROUND_8.items()),
    # issue 20, round 35: the jungle's and the swamp's (melons, cocoa pods, vines, lily pads)
    *(("mine", item, 0.5, inv) for item, inv in NEW_IN_ROUND_35.items()),
    # issue 20, round 36: obsidian (a water bucket poured on lava)
    *(("mine", item, 0.5, inv) for item, inv in NEW_IN_ROUND_36.items()),
    # issue 20, round 37: mushrooms (swamps) and snowballs (ice plains)
    *(("mine", item, 0.5, inv) for item, inv in NEW_IN_ROUND_37.items()),
    *(("kill", mob, 0.5, {}) for mob in NEW_KILLS_IN_ROUND_37),
    # issue 20, round 38: the night's mobs, armed
    *(("kill", mob, 0.5, inv) for mob, inv in NEW_KILLS_IN_ROUND_38.items()),
    # issue 20, round 40: the tall flowers
    *(("mine", item, 0.5, inv) for item, inv in NEW_IN_ROUND_40.items()),
)
# Goals whose weights the issue-20 runs raise (the weak ones of the skill table); see `goal_weights`.
FOCUS = {"mine:iron_ore": 2.5, "mine:coal": 2.0, "kill:cow": 1.5, "kill:pig": 1.5, "kill:sheep": 1.5}
EXTRAS = ("planks", "stick", "crafting_table", "log", "dirt", "cobblestone", "wooden_pickaxe")
GOALS_PER_WORLD = 3
SCATTER_P = 0.5  # share of training worlds that are scatter maps (sources at set distances)
PURSUIT_CAP = 300  # decisions one pursuit may take before it counts as failed (steps with no block breaking)
STEP_CAP = 2400  # its steps in all, held attack included (a task's budget: experiments/skill_table.py)


@dataclass
class Pursuit:
    goal: Goal
    expert: Expert
    rows: list  # (grid, vec, code, action, around, faced, aux direction, aux distance)
    t0: int = 0
    lut: Any = None  # sense.lut(goal): which cells and mobs are its sources (the target map)
    decided: list = field(default_factory=list)  # indices of the rows where no block was breaking
    stale: bool = False  # DAgger: the learner left the expert's path; a fresh expert is asked where it next decides
    cap: int = PURSUIT_CAP  # decisions it may take (STEP_CAP where the item comes by waiting: pursuit_cap)


def pursuit_cap(env: Any, goal: Goal) -> int:
    """Decisions a pursuit of `goal` may take: PURSUIT_CAP, or the whole STEP_CAP for an item that
    comes by waiting (an apple: the expert fells oak trunks and waits for the leaves to decay and
    drop it, worlds/gridworld/sources.py: felling_sources), decisions that break no block; under
    PURSUIT_CAP its pursuits were cut off while it waited (issue 20, round 24)."""
    if goal.action == "mine" and felling_sources(env, next(iter(goal.obj))):
        return STEP_CAP
    if drop_kill(env, goal):  # kills until a rabbit's foot drops (1 in 10): kills break no block
        return STEP_CAP
    return PURSUIT_CAP


def expert_target(expert: Expert, pos: np.ndarray) -> tuple[int, float]:
    """The auxiliary labels of a row: the direction class (sign of dx, dy, dz: 0..26) and
    log(1 + |d|_1) of the cell the expert is heading for; (-1, 0) when it has none."""
    while expert.fetch is not None and expert.fetch.result is None:
        expert = expert.fetch
    t = expert.target
    if t is None:
        return -1, 0.0
    d = np.asarray(t, np.int64) - np.asarray(pos, np.int64)
    s = np.sign(d) + 1
    return int(s[0] * 9 + s[1] * 3 + s[2]), float(np.log1p(np.abs(d).sum()))


def above_rows(data: dict, beyond: float) -> torch.Tensor:
    """Bool [rows]: the rows whose expert was heading for a cell above the agent, more than
    `beyond` cells away (L1; 0: any cell above), by the auxiliary labels expert_target wrote.
    In a learner's rows these are mostly the expert's way back up from where the learner dug
    past its goal's source: labels the learner, which cannot see that far, learns as "build
    up" wherever it stands (issue 20, round 26)."""
    up = (data["aux_dir"] >= 0) & ((data["aux_dir"] // 3) % 3 == 2)
    return up & (torch.expm1(data["aux_dist"]) > beyond)


def safe_act(expert: Expert) -> tuple[int, int] | None:
    """The expert's next action; an expert that loops on itself counts as a failed pursuit."""
    try:
        return expert.act()
    except RecursionError:
        expert.result = {"ok": False, "error": "the expert looped", "missing": {}}
        return None


WEIGHTS: dict[str, float] = {}  # goal key -> weight, overriding TRAIN_GOALS' (set_weights)


def set_weights(weights: dict[str, float]) -> None:
    """Sample the goals by these weights (goal key -> weight) instead of TRAIN_GOALS' own."""
    WEIGHTS.clear()
    WEIGHTS.update(weights)


@contextmanager
def weights_set(weights: dict[str, float]) -> Iterator[None]:
    """set_weights for a block, then the caller's weights back (a collection run in this
    process, as one worker's does, leaves the process as it found it)."""
    before = dict(WEIGHTS)
    set_weights(weights)
    try:
        yield
    finally:
        set_weights(before)


def sample_goal(rng: np.random.Generator, scatter: bool = False) -> tuple[Goal, dict]:
    """A training goal; on a scatter map one of the kinds placed there."""
    goals = [g for g in TRAIN_GOALS if not scatter or (g[0], g[1]) in SCATTER_GOALS]
    w = np.array([WEIGHTS.get(f"{g[0]}:{g[1]}", g[2]) for g in goals])
    action, item, _, inv = goals[int(rng.choice(len(goals), p=w / w.sum()))]
    return Goal(action, {item: 1}), dict(inv)


def source_biome(kb: Any, goal: Goal) -> dict:
    """Reset options that put a mine goal's source on the map, as an episode's own map is made
    for what its task mines (worlds/gridworld/world.py): the biome an ore forms only under
    (emerald: extreme hills), else the biome where the block grows densest (cactus: desert;
    log2: savanna); {} for a goal with no such source (a mob's drop)."""
    from worlds.gridworld.coverage import grows_in, ore_biomes

    if goal.action != "mine":
        return {}
    ore = ore_biomes(kb, dict(goal.obj), {}, "")
    if ore:
        return {"biome": ore[2][0]}
    where = grows_in(list(goal.obj), kb)
    return {"biome": where[0]} if where else {}


def own_biome(kb: Any, goal: Goal) -> dict:
    """Reset options for a mine goal whose source grows only in a biome no seed's map is of (the
    jungle's melons, the swamp's lily pads), or a kill goal whose mob lives only there (the ice
    plains' rabbits: coverage.appended_home), else {}: a world made for it is of that biome."""
    from worlds.gridworld.coverage import appended_home

    where = appended_home(kb, goal)
    return {"biome": where} if where else {}


def own_time(kb: Any, goal: Goal, rng: np.random.Generator) -> dict:
    """Reset options for a kill goal whose mob comes only at night (coverage's `gives.waits`): a
    world made for it starts just after dusk, at a time drawn from `rng` in the night's first
    seventh (the data file's `night:`), so that a try has the night before it; else {}, drawing
    nothing, so the other goals' worlds are as they were."""
    from worlds.gridworld.coverage import gives
    from worlds.gridworld.spec import game_data

    if not gives(kb).waits(goal):
        return {}
    dusk, dawn = (float(t) for t in game_data()["night"])
    return {"time_of_day": float(rng.uniform(dusk + 0.02, dusk + (dawn - dusk) / 7))}


def new_world(
    rng: np.random.Generator, env: BatchGridWorld, scatter_p: float, source_biome_p: float = 0.0
) -> tuple[bool, Goal, dict]:
    """(scatter map?, first goal, reset options) for a fresh world; a share `source_biome_p` of the
    generated ones made where their first goal's source forms (`source_biome`)."""
    scatter = bool(rng.random() < scatter_p)
    goal, inv = sample_goal(rng, scatter)
    opts = start_options(rng, inv)
    if not scatter and source_biome_p and rng.random() < source_biome_p:
        opts.update(source_biome(env.kb, goal))
    elif not scatter:
        opts.update(own_biome(env.kb, goal))  # drawing nothing: the other goals' worlds are as they were
    night = find_goals.night_start(rng) if goal.action == "find" else None
    if night is not None:
        opts["time_of_day"] = night
    opts.update(own_time(env.kb, goal, rng))  # a hunt of the night's mobs starts after dusk
    if scatter:
        opts["layout"] = training_scatter(rng, (env.X, env.Z))
    return scatter, goal, opts


def start_options(rng: np.random.Generator, inv: dict) -> dict:
    extra = {}
    for name in EXTRAS:
        if rng.random() < 0.2:
            extra[name] = int(rng.integers(1, 5))
    return {"inventory": {**extra, **inv}, "time_of_day": float(rng.uniform(0.0, 0.4))}


def goal_key_of(goal: Goal) -> str:
    ((item, _),) = goal.obj.items()
    return f"{goal.action}:{item}"


def collect(
    kb: Any,
    pursuits: int,
    seed: int,
    n_envs: int = 16,
    policy: Any = None,
    on_pursuit: Callable[[bool], None] | None = None,
    scatter_p: float = SCATTER_P,
    keep_failed: bool = False,
    max_rows: int = 0,
    target: bool = False,
    near: bool = False,
    seconds: float = 0.0,
    repeat_p: float = 0.0,
    source_biome_p: float = 0.0,
    near_source_p: float = 0.0,
    source_seed_p: float = 0.0,
    cut_trunks_p: float = 0.0,
) -> tuple[dict[str, torch.Tensor], dict]:
    """Rows from `pursuits` finished goal pursuits (successful ones kept); stats alongside.
    A share `scatter_p` of the worlds are scatter maps (training/controller/scenes.py).
    `keep_failed` (DAgger): the rows of failed pursuits are kept too, with horizon -1 (none):
    a learner's failed pursuit is where it most needs the expert's labels.
    `max_rows`: at most this many rows per pursuit (0: all), spread evenly over it (DAgger: a learner
    stuck in a loop for 300 steps gives 300 near-copies of one state, which otherwise
    outweigh the ~26 rows of an expert pursuit 10 to 1). They are spread over the rows where the
    policy decides (no block breaking): a dig by hand is 30 steps of held attack a block, and an
    even spread over all 1,500 steps of a dig to lava left one or two rows where it chose.
    A pursuit ends, failed, after PURSUIT_CAP such decisions or STEP_CAP steps in all.
    `target`: the surroundings map carries each pursuit's target map (skills/learned/sense.py),
    and the rows carry the auxiliary labels (expert_target) as "aux_dir" and "aux_dist";
    `near` (with target): the near map too, packed after it.
    `seconds`: stop stepping after this long, counted once the worlds are made, even if fewer
    pursuits have finished (0: no limit); the worlds' making is left out so that a busy
    machine's slow start cannot leave a short collection with no step at all.
    `repeat_p`: the chance that a world's next goal is the mine or kill goal it just finished, begun
    where that one ended, as a plan's `mine 3 iron_ore` or `mine 16 cobblestone` runs: the second ore
    is sought from the first one's tunnel, a start a fresh draw seldom gives (in deps71 the policy took
    4.7 times the expert's steps per iron ore, against 2.9 times on the skill table's fresh worlds).
    `source_biome_p`: the share of fresh generated worlds made where their first goal's source forms.
    `near_source_p`: the chance that a mine pursuit whose nearest source is buried begins a few levels
    above it (training/controller/curriculum.py), so the endings of deep goals come in numbers.
    `source_seed_p`: the share of fresh generated worlds whose seed is moved on to the first whose
    world holds their first goal's source, as the skill table picks its worlds (training/controller/seeds.py).
    `cut_trunks_p`: the chance that a log pursuit begins with every trunk of its world cut at the foot,
    its logs left hanging, and dirt to pillar with (training/controller/felled.py).
    """
    rng = np.random.default_rng(seed)
    env = BatchGridWorld(n_envs, kb)
    vocab = env.vocab
    seeds = [int(s) for s in rng.integers(0, 2**31 - 1, n_envs)]
    starts = [new_world(rng, env, scatter_p, source_biome_p) for _ in range(n_envs)]
    scatter = np.array([s for s, _, _ in starts], bool)
    probe = BatchGridWorld(1, kb) if source_seed_p else None

    def seed_for(sd: int, start: tuple[bool, Goal, dict]) -> int:
        scatter_map, g, opts = start  # a scatter map's sources are laid by hand
        return sd if scatter_map else training_seed(probe, rng, g, sd, opts, source_seed_p)

    seeds = [seed_for(sd, st) for sd, st in zip(seeds, starts)]
    env.reset(seeds, [o for _, _, o in starts])
    goals_done = np.zeros(n_envs, int)
    cur: list[Pursuit] = []

    def pursuit(i: int, g: Goal) -> Pursuit:
        g = find_goals.settle(env, i, g, rng)
        if near_source_p and g.action == "mine" and rng.random() < near_source_p:
            start_near_source(env, i, g, rng)
        if cut_trunks_p and g.action == "mine" and rng.random() < cut_trunks_p:
            cut_trunks(env, i, g, rng)
        lut = sense.lut(env, g) if target else None
        return Pursuit(g, expert_for(env, i, g), [], lut=lut, cap=pursuit_cap(env, g))

    def look(obs: dict) -> dict:
        if target:
            sense.add_to(obs, env, np.arange(n_envs), [p.lut for p in cur], near=near)
        return obs

    for i, (_, g, _) in enumerate(starts):
        cur.append(pursuit(i, g))
    quarry = Quarry(env, [p.goal for p in cur])  # the learner's blows held on a hunted mob, as the controller's
    grids, vecs, codes, acts, hors, arounds, faceds, pids = [], [], [], [], [], [], [], []
    adirs, adists = [], []
    stats = {"pursuits": 0, "ok": 0, "failed": 0, "rows": 0, "by_goal": {}}
    finished = 0
    obs = look(observe_batch(env))
    mcol = mining_column(vocab)
    until = time.monotonic() + seconds if seconds > 0 else float("inf")
    while finished < pursuits and time.monotonic() < until:
        actions = np.tile(np.array([PRIMITIVE_ID["noop"], -1], np.int64), (n_envs, 1))
        labels = np.full(n_envs, -1, np.int64)
        ended: list[tuple[int, bool]] = []
        held = hold_attack(obs) if policy is not None else np.zeros(n_envs, bool)
        for i, p in enumerate(cur):
            if p.stale and not held[i]:
                p.expert, p.stale = afresh(env, i, p.goal, p.expert), False
            # a block the learner began breaking: attack is held whatever the label, so the expert is
            # asked once it breaks, not at each of its up to 60 hits (each a path search from scratch)
            a = (ATTACK, -1) if p.stale else safe_act(p.expert)
            if a is None or len(p.decided) >= p.cap or len(p.rows) >= STEP_CAP:
                ended.append((i, a is None and bool(p.expert.result and p.expert.result["ok"])))
                continue
            labels[i] = a[0]
            actions[i] = a
        if policy is not None:
            live = labels >= 0
            if live.any():
                code_arr = np.array([goal_code(p.goal, vocab, kb) for p in cur], np.int64)
                pa = policy.act({k: v for k, v in obs.items()}, code_arr)
                # as the controller runs it: attack held while a block breaks or a hunted mob stands in
                # front, a turn to one beside the agent
                held = quarry.held(env, hold_attack(obs))
                pa = np.where(held >= 0, held, pa)
                for i in np.nonzero(live)[0]:
                    if pa[i] in (PRIMITIVE_ID["use"], PRIMITIVE_ID["jump_place"]) or actions[i, 0] == pa[i]:
                        continue  # an item-taking step is the expert's, with its item (a block, a bucket)
                    actions[i] = (pa[i], -1)
        grid, vec = encode_obs(obs, vocab)
        extras = encode_extras(obs, vocab)
        for i, p in enumerate(cur):
            if labels[i] >= 0:
                if vec[i][mcol] == 0:
                    p.decided.append(len(p.rows))
                p.rows.append(
                    (
                        grid[i],
                        vec[i],
                        goal_code(p.goal, vocab, kb),
                        int(labels[i]),
                        extras["around"][i],
                        extras["faced"][i],
                        *((-1, 0.0) if p.stale else expert_target(p.expert, env.pos[i])),
                    )
                )
        for i, ok in ended:
            p = cur[i]
            key = goal_key_of(p.goal)
            s = stats["by_goal"].setdefault(key, {"ok": 0, "failed": 0, "steps": 0})
            stats["pursuits"] += 1
            finished += 1
            if (ok or keep_failed) and p.rows:
                T = len(p.rows)
                idx = p.decided if max_rows and p.decided else range(T)
                for t in (idx[k] for k in _spread(len(idx), max_rows)):
                    gr, ve, co, ac, ar, fa, ad, an = p.rows[t]
                    for rows, value in (
                        (grids, gr),
                        (vecs, ve),
                        (codes, co),
                        (acts, ac),
                        (arounds, ar),
                        (faceds, fa),
                        (adirs, ad),
                        (adists, an),
                    ):
                        rows.append(value)
                    hors.append(T - t if ok else -1)
                    pids.append(seed * 1_000_000 + stats["pursuits"])
            if ok and p.rows:
                stats["ok"] += 1
                s["ok"] += 1
                s["steps"] += T
            else:
                stats["failed"] += 1
                s["failed"] += 1
            if on_pursuit:
                on_pursuit(ok)
            goals_done[i] += 1
            if goals_done[i] >= GOALS_PER_WORLD or env.dead[i]:
                goals_done[i] = 0
                mask = np.zeros(n_envs, bool)
                mask[i] = True
                opts = [{}] * n_envs
                start = new_world(rng, env, scatter_p, source_biome_p)
                scatter[i], g, opts[i] = start
                env.reset_some(mask, [seed_for(int(rng.integers(0, 2**31 - 1)), start)], opts)
            elif repeat_p and p.goal.action in ("mine", "kill") and rng.random() < repeat_p:
                g = Goal(p.goal.action, dict(p.goal.obj))
                _top_up(env, i, start_inventory(p.goal))
            else:
                g, inv = sample_goal(rng, bool(scatter[i]))
                _top_up(env, i, inv)
            cur[i] = pursuit(i, g)
            quarry.set(env, i, cur[i].goal)
        obs, _, _, _, info = env.step(actions)
        obs[KEY] = around(env)
        look(obs)
        for i, ev in info["events"].items():
            cur[i].expert.feedback(ev)
        if policy is not None:  # DAgger: where the learner left the teacher's path, ask the teacher afresh
            for i, p in enumerate(cur):
                if p.expert.result is None and labels[i] >= 0 and actions[i, 0] != labels[i]:
                    p.stale = True  # at the top of the next step where the learner decides (afresh)
    stats["rows"] = len(acts)
    data = {
        "grid": torch.as_tensor(np.stack(grids)) if grids else torch.zeros(0),
        "vec": torch.as_tensor(np.stack(vecs)) if vecs else torch.zeros(0),
        "goal": torch.as_tensor(np.array(codes, np.int64)),
        "action": torch.as_tensor(np.array(acts, np.int64)),
        "horizon": torch.as_tensor(np.array(hors, np.int64)),
        "around": torch.as_tensor(np.stack(arounds)) if arounds else torch.zeros(0),
        "faced": torch.as_tensor(np.stack(faceds)) if faceds else torch.zeros(0),
        "pursuit": torch.as_tensor(np.array(pids, np.int64)),  # which pursuit a row is from (split by pursuit)
    }
    if target:
        data["aux_dir"] = torch.as_tensor(np.array(adirs, np.int64))
        data["aux_dist"] = torch.as_tensor(np.array(adists, np.float32))
    # the policy decides only where no block is breaking (the controller holds attack there)
    data["decide"] = data["vec"][:, mcol] == 0 if vecs else torch.zeros(0, dtype=torch.bool)
    return data, stats


def afresh(env: BatchGridWorld, i: int, goal: Goal, expert: Expert) -> Expert:
    """A fresh expert for world i's `goal` from where it stands now, counting from where `expert` began."""
    fresh = expert_for(env, i, goal)
    fresh.start, fresh.kills = expert.start, expert.kills
    return fresh


def start_inventory(goal: Goal) -> dict:
    """What TRAIN_GOALS holds at the start of `goal` (its tool, a bucket for milk)."""
    ((item, _),) = goal.obj.items()
    return next((dict(inv) for a, i, _, inv in TRAIN_GOALS if (a, i) == (goal.action, item)), {})


def _spread(n: int, most: int) -> list[int]:
    """Indices 0..n-1, or `most` of them spread evenly (first and last kept); 0: all."""
    if not most or n <= most:
        return list(range(n))
    return sorted({int(round(x)) for x in np.linspace(0, n - 1, most)})


def _top_up(env: BatchGridWorld, i: int, inv: dict) -> None:
    """Give world i the tool the next goal needs (as if crafted between goals)."""
    from worlds.gridworld import functional

    if not inv:
        return
    bag = functional.bag_of(env, i)
    for name, n in inv.items():
        if bag.held(name) < n:
            bag.add({name: n - bag.held(name)})
    functional.store_bag(env, i, bag)
