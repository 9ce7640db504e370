"""Mobs, stepped for the whole batch at once: every mob strolls to a spot nearby now and
then, hostile ones spawn on the surface at night, chase the agent and hit it (a skeleton
shoots it from afar, where it sees it), and zombies and skeletons burn at sunrise.

State (owned by BatchGridWorld): kind uint8 [n, M] (0: empty slot), pos int64 [n, M, 3],
hp float32 [n, M], goal int64 [n, M, 2] (the x, z a stroll heads for) and strolling bool
[n, M].  Rates and damage come from worlds/data/gridworld.yaml.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from worlds.gridworld.spec import animal_homes, game_data

DIRS = np.array([(0, 0, -1), (0, 0, 1), (1, 0, 0), (-1, 0, 0)], dtype=np.int64)
UP = np.array([0, 1, 0], dtype=np.int64)
NIGHT_SPAWN_CHANCE = 0.02  # per step and world, while fewer than HOSTILE_CAP hostiles are out
HOSTILE_CAP = 4


def stroll_rates(d: dict) -> tuple[float, int, float]:
    """(chance per step that an idle mob picks a spot to stroll to, how far on each ground
    axis, chance per step that a strolling mob takes its next cell): gridworld.yaml's stroll."""
    s = d["stroll"]
    ticks = round(float(d["seconds_per_step"]) * 20)  # 20 game ticks a second
    return 1.0 - (1.0 - 1.0 / float(s["interval_ticks"])) ** ticks, int(s["xz_dist"]), float(s["cells_per_step"])


def step_mobs(env: Any, night: np.ndarray) -> None:
    """Move every mob one step: hostile mobs chase and hit the agent at night, the others stroll."""
    d = game_data()
    rules, rng = env.rules, env.rng
    kind, pos, goal, strolling = env.mob_kind, env.mob_pos, env.mob_goal, env.mob_strolling
    alive = kind > 0
    if not alive.any():
        _spawn_hostiles(env, night)
        _restock_animals(env)
        return
    any_night = bool(night.any())  # by day no mob chases or hits: that work is skipped
    hostile = rules.mob_hostile[kind] & alive if any_night else None
    chasing = np.zeros_like(alive)
    if hostile is not None:
        chasing = hostile & night[:, None] & (rng.random(kind.shape) < 0.5)
    strolling &= alive & ~chasing
    p_start, reach, speed = stroll_rates(d)
    # Random draws only where they can matter (the batch's step time is mostly the mobs'): the
    # mobs that may start a stroll are drawn as a binomial count of slots, those walking on from
    # the strolling ones (the drawn slots that hold an idle mob, once each, in slot order).
    slots = rng.integers(0, alive.size, size=rng.binomial(alive.size, p_start))
    slots = np.unique(slots[alive.flat[slots] & ~chasing.flat[slots] & ~strolling.flat[slots]])
    if slots.size:  # a spot up to `reach` cells away on each ground axis, on the map
        e, m = np.divmod(slots, kind.shape[1])
        off = rng.integers(-reach, reach + 1, size=(e.size, 2))
        goal[e, m, 0] = np.clip(pos[e, m, 0] + off[:, 0], 0, env.X - 1)
        goal[e, m, 1] = np.clip(pos[e, m, 2] + off[:, 1], 0, env.Z - 1)
        strolling[e, m] = True
    on = np.flatnonzero(strolling)
    movers = on[rng.random(on.size) < speed]  # flat slot indices (a chasing mob does not stroll)
    if any_night:
        movers = np.concatenate([np.flatnonzero(chasing), movers])
    if movers.size:
        flat_pos, flat_goal, flat_strolling = pos.reshape(-1, 3), goal.reshape(-1, 2), strolling.reshape(-1)
        e = movers // kind.shape[1]
        ch = chasing.reshape(-1)[movers]
        here = flat_pos[movers]
        delta = np.zeros_like(here)
        delta[:, ::2] = flat_goal[movers] - here[:, ::2]  # (x, z) a stroll heads for its spot,
        if ch.any():
            delta[ch] = env.pos[e[ch]] - here[ch]  # a chase for the agent
        there = ~ch & (delta[:, 0] == 0) & (delta[:, 2] == 0)
        along_x = np.abs(delta[:, 0]) >= np.abs(delta[:, 2])
        dirs = np.where(along_x, np.where(delta[:, 0] > 0, 2, 3), np.where(delta[:, 2] > 0, 1, 0))
        new = here + DIRS[dirs]
        k = movers.size  # the cell moved into and the one under it; the rest only where they decide
        look = env.cells_at(np.tile(e, 2), np.concatenate([new, new - UP]))
        c0, below = look[:k], look[k:]
        walk = rules.passable[c0] & ~rules.liquid[c0]
        flat = walk & rules.solid[below]
        down = walk & ~rules.solid[below] & ~rules.liquid[below] & rules.passable[below]
        if down.any():  # a step down needs ground two cells below
            j = np.flatnonzero(down)
            down[j] = rules.solid[env.cells_at(e[j], new[j] - 2 * UP)]
        up = rules.solid[c0]
        if up.any():  # a step up needs room above the block and above the mob's head
            j = np.flatnonzero(up)
            both = env.cells_at(np.tile(e[j], 2), np.concatenate([new[j] + UP, here[j] + UP]))
            above, head = both[: j.size], both[j.size :]
            up[j] = rules.passable[above] & ~rules.liquid[above] & rules.passable[head]
        dest = new
        dest[down, 1] -= 1
        dest[up, 1] += 1
        go = (flat | down | up) & ~(dest == env.pos[e]).all(axis=1) & ~there
        flat_pos[movers[go]] = dest[go]
        # arrived, or the way is blocked: the stroll ends, as a failed path does
        flat_strolling[movers[~ch & ~go]] = False
    if hostile is not None:  # at night, hostile mobs next to the agent hit it; skeletons shoot it from afar
        _hit_agents(env, hostile, night, int(d["attack_every"]))
        _shoot_agents(env, hostile, night)
    # zombies and skeletons burn in daylight
    kind[rules.mob_burns[kind] & ~night[:, None]] = 0
    _spawn_hostiles(env, night)
    _restock_animals(env)


def _hit_agents(env: Any, hostile: np.ndarray, night: np.ndarray, every: int) -> None:
    """At night a hostile mob next to the agent (one cell on each axis) hits it, once per
    `every` steps; the last one to hit is remembered (a death's cause)."""
    kind = env.mob_kind
    rel = np.abs(env.mob_pos - env.pos[:, None, :])
    near = hostile & night[:, None] & (rel[..., 0] <= 1) & (rel[..., 2] <= 1) & (rel[..., 1] <= 1)
    hit = near & ((env.clock % every) == 0)[:, None]
    if hit.any():
        dmg = (env.rules.mob_damage[kind] * hit).sum(axis=1)
        env.health -= dmg.astype(np.float32)
        for i in np.nonzero(hit.any(axis=1))[0]:
            env.last_hurt[i] = env.vocab.mobs[int(kind[i][hit[i]][0])]


def _shoot_agents(env: Any, hostile: np.ndarray, night: np.ndarray) -> None:
    """At night a mob that shoots (a skeleton) hits the agent it sees within its reach once per its
    `every` steps: seen when no solid cell lies on the line between the two cells' centres."""
    rules, kind = env.rules, env.mob_kind
    reach = rules.mob_shot_reach[kind]
    if not (reach > 0).any():
        return
    rel = env.mob_pos - env.pos[:, None, :]
    due = (env.clock[:, None] % rules.mob_shot_every[kind]) == 0
    near = hostile & night[:, None] & (reach > 0) & due & (np.abs(rel).max(axis=2) <= reach) & ~env.dead[:, None]
    for i, m in zip(*np.nonzero(near)):
        if in_sight(env, int(i), env.mob_pos[i, m], env.pos[i]):
            env.health[i] -= rules.mob_shot_damage[kind[i, m]]
            env.last_hurt[i] = env.vocab.mobs[int(kind[i, m])]


def in_sight(env: Any, i: int, a: np.ndarray, b: np.ndarray) -> bool:
    """No solid cell of world i on the line from cell a's centre to cell b's, looked at every
    quarter cell (the two end cells aside); beyond the map counts as open."""
    n = 4 * int(np.abs(b - a).max()) + 1
    t = np.linspace(0.0, 1.0, n + 1)[1:-1, None]
    cells = np.floor(a + 0.5 + t * (b - a)).astype(np.int64)
    size = np.array([env.X, env.H, env.Z])
    cells = cells[((cells >= 0) & (cells < size)).all(axis=1)]
    return not bool(env.rules.solid[env.cells[i, cells[:, 0], cells[:, 2], cells[:, 1]]].any())


RESTOCK_EVERY = 50


def _restock_animals(env: Any) -> None:
    """Animals wander in from beyond the map when a kind runs low (gridworld.yaml animals_min)."""
    due = ((env.clock % RESTOCK_EVERY) == 0) & ~env.dead
    if not due.any():
        return
    rules, rng, low = env.rules, env.rng, int(game_data()["animals_min"])
    grass, snow = env.vocab.cell_id["grass_block"], env.vocab.cell_id["snow_layer"]
    homes = _homes(env.vocab)
    for k in range(1, len(env.vocab.mobs)):
        if rules.mob_hostile[k]:
            continue
        worlds = np.nonzero(due & ((env.mob_kind == k).sum(axis=1) < low))[0]
        if k in homes and worlds.size:  # a rabbit wanders in only where its biome is (gridworld.yaml `mobs:`)
            worlds = worlds[np.isin(env.biome_map[worlds], homes[k]).any(axis=(1, 2))]
        for i in worlds:
            for _ in range(20):
                x, z = int(rng.integers(0, env.X)), int(rng.integers(0, env.Z))
                if abs(x - env.pos[i, 0]) + abs(z - env.pos[i, 2]) < 12:
                    continue
                col = env.cells[i, x, z]
                solid = np.nonzero(rules.solid[col])[0]
                y = int(solid[-1]) + 1 if solid.size else 0
                if solid.size and col[y - 1] == grass and y < env.H and col[y] in (0, snow):
                    if env.animal_room(int(i)) or _make_room(env, int(i), low):
                        env.add_mob(i, k, x, y, z)
                    break


@cache
def _homes(vocab: Any) -> dict[int, list[int]]:
    """spec.animal_homes by ids: mob id -> the ids of the biomes it lives in."""
    return {vocab.mob_id[m]: [vocab.biome_id[b] for b in bs] for m, bs in animal_homes().items()}


def _make_room(env: Any, i: int, low: int) -> bool:
    """The animals' slots full (batch.py: animal_room): one animal of the most numerous passive kind (if it has more than
    `low`) wanders off, the one farthest from the agent, so a scarce kind can come in."""
    kinds = env.mob_kind[i]
    passive = (kinds > 0) & ~env.rules.mob_hostile[kinds]
    counts = np.bincount(kinds[passive], minlength=len(env.vocab.mobs))
    k = int(counts.argmax())
    if counts[k] <= low:
        return False
    slots = np.nonzero(kinds == k)[0]
    far = np.abs(env.mob_pos[i, slots] - env.pos[i]).sum(axis=1)
    kinds[slots[int(far.argmax())]] = 0
    return True


def _spawn_hostiles(env: Any, night: np.ndarray) -> None:
    rules, rng = env.rules, env.rng
    want = np.flatnonzero(night & (rng.random(env.n) < NIGHT_SPAWN_CHANCE) & ~env.dead)
    if want.size:  # the hostiles counted where one may come (the draw is made for every world, as always)
        kinds = env.mob_kind[want]
        want = want[(rules.mob_hostile[kinds] & (kinds > 0)).sum(axis=1) < HOSTILE_CAP]
    hostiles = [i for i, h in enumerate(rules.mob_hostile) if h]
    for i in want:
        ang = rng.uniform(0, 2 * np.pi)
        r = rng.uniform(8, 16)
        x = int(np.clip(env.pos[i, 0] + r * np.cos(ang), 0, env.X - 1))
        z = int(np.clip(env.pos[i, 2] + r * np.sin(ang), 0, env.Z - 1))
        col = env.cells[i, x, z]
        solid = np.nonzero(rules.solid[col])[0]
        if solid.size == 0:
            continue
        y = int(solid[-1]) + 1
        if y >= env.H or not rules.passable[col[y]] or rules.liquid[col[y]]:
            continue
        env.add_mob(i, hostiles[int(rng.integers(len(hostiles)))], x, y, z)
