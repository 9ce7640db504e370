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

from worlds.gridworld.spec import VOID, animal_homes, game_data

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
    hostile = chasing = None
    if any_night:
        hostile = _of_kinds(kind, rules.mob_hostile) & alive
        chasing = hostile & night[:, None] & (rng.random(kind.shape) < 0.5)
        strolling &= alive & ~chasing
        idle = alive & ~chasing & ~strolling
    else:
        strolling &= alive
        idle = alive & ~strolling
    p_start, reach, speed = stroll_rates(d)
    # Random draws only where they can matter (the batch's step time is mostly the mobs'): the
    # mobs that may start a stroll are drawn as a binomial count of slots, those walking on from
    # the strolling ones (the drawn slots that hold an idle mob, once each, in slot order).
    slots = rng.integers(0, alive.size, size=rng.binomial(alive.size, p_start))
    slots = np.sort(slots[idle.reshape(-1)[slots]])
    if slots.size:  # a spot up to `reach` cells away on each ground axis, on the map
        slots = slots[np.concatenate(([True], slots[1:] != slots[:-1]))]  # once each (np.unique, cheaper)
        off = rng.integers(-reach, reach + 1, size=(slots.size, 2))
        here = np.take(pos.reshape(-1, 3), slots, axis=0)
        spot = np.minimum(np.maximum(here[:, ::2] + off, 0), (env.X - 1, env.Z - 1))  # (x, z)
        goal1 = goal.reshape(-1)
        goal1[2 * slots], goal1[2 * slots + 1] = spot[:, 0], spot[:, 1]
        strolling.reshape(-1)[slots] = True
    on = np.flatnonzero(strolling)
    movers = on[rng.random(on.size) < speed]  # flat slot indices (a chasing mob does not stroll)
    ch = None
    if chasing is not None:
        movers = np.concatenate([np.flatnonzero(chasing), movers])
        ch = chasing.reshape(-1)[movers]
    if movers.size:
        _move(env, movers, ch)
    if hostile is not None:  # at night, hostile mobs next to the agent hit it; skeletons shoot it from afar
        _hit_agents(env, hostile, night, int(d["attack_every"]))
        _shoot_agents(env, hostile, night)
    # zombies and skeletons burn in daylight
    burns = _of_kinds(kind, rules.mob_burns)
    if burns.any():
        kind[burns & ~night[:, None]] = 0
    _spawn_hostiles(env, night)
    _restock_animals(env)


def _of_kinds(kind: np.ndarray, table: np.ndarray) -> np.ndarray:
    """table[kind] for a bool table over the mob kinds: where it holds a few kinds, one comparison
    of the slots with each (several times cheaper than numpy's gather over every slot)."""
    ids = np.flatnonzero(table)
    if ids.size > 3:
        return table[kind]
    out = np.zeros(kind.shape, bool)
    for k in ids.tolist():
        out |= kind == k
    return out


# by key 2 * along_x + (the step is + along its axis): the step's x and z (DIRS' ways)
STEP_X = np.array([0, 0, -1, 1], np.int64)
STEP_Z = np.array([-1, 1, 0, 0], np.int64)


def _move(env: Any, movers: np.ndarray, ch: np.ndarray | None) -> None:
    """The mobs in flat slots `movers` take one cell towards their spot (a chasing one, `ch`,
    towards its agent): on level ground, one block up, or one down onto ground; a stroll ends
    where it arrives or its way is blocked. Positions are read and written one axis at a time
    and the cells by their flat index (numpy's row gathers and scatters are several times
    slower), with one check for the whole lot of whether any read may fall outside the map."""
    rules = env.rules
    X, Z, H = env.X, env.Z, env.H
    pos1 = env.mob_pos.reshape(-1)  # x, y, z of each slot in turn
    e = movers // env.mob_kind.shape[1]
    m3 = 3 * movers
    hx, hy, hz = pos1.take(m3), pos1.take(m3 + 1), pos1.take(m3 + 2)
    goal1 = env.mob_goal.reshape(-1)
    dx, dz = goal1.take(2 * movers) - hx, goal1.take(2 * movers + 1) - hz  # (x, z) a stroll heads for its spot,
    agent = np.take(env.pos, e, axis=0)
    if ch is not None and ch.any():  # a chase for the agent
        dx[ch], dz[ch] = agent[ch, 0] - hx[ch], agent[ch, 2] - hz[ch]
    there = (dx == 0) & (dz == 0)
    if ch is not None:
        there &= ~ch
    along_x = np.abs(dx) >= np.abs(dz)
    key = 2 * along_x + (np.where(along_x, dx, dz) > 0)
    sx, sz = STEP_X.take(key), STEP_Z.take(key)
    nx, nz = hx + sx, hz + sz
    base = e * env._world_cells + hx * (Z * H) + hz * H + hy  # the mob's own cell
    new = base + sx * (Z * H) + sz * H  # the cell it moves into
    cells = env.cells.reshape(-1)
    # every read below lies within a cell of (nx, hy, nz) or (hx, hy + 1, hz)
    inside = bool(
        min(hx.min(), hz.min(), nx.min(), nz.min(), hy.min() - 2) >= 0
        and max(hx.max(), nx.max()) < X
        and max(hz.max(), nz.max()) < Z
        and hy.max() < H - 1
    )

    def read(flat: np.ndarray, j: Any, x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
        """The cells at flat indices `flat` (points (x, y, z)[j]); VOID outside the map."""
        if inside:
            return cells.take(flat)
        inb = (x[j].astype(np.uint64) < X) & (y[j].astype(np.uint64) < H) & (z[j].astype(np.uint64) < Z)
        return np.where(inb, cells.take(flat, mode="clip"), np.uint8(VOID))

    every = slice(None)
    c0, below = read(new, every, nx, hy, nz), read(new - 1, every, nx, hy - 1, nz)
    walk = rules.passable[c0] & ~rules.liquid[c0]
    level = walk & rules.solid[below]
    down = walk & ~rules.solid[below] & ~rules.liquid[below] & rules.passable[below]
    if down.any():  # a step down needs ground two cells below
        j = np.flatnonzero(down)
        down[j] = rules.solid[read(new[j] - 2, j, nx, hy - 2, nz)]
    up = rules.solid[c0]
    if up.any():  # a step up needs room above the block and above the mob's head
        j = np.flatnonzero(up)
        above, head = read(new[j] + 1, j, nx, hy + 1, nz), read(base[j] + 1, j, hx, hy + 1, hz)
        up[j] = rules.passable[above] & ~rules.liquid[above] & rules.passable[head]
    ny = hy - down + up
    go = (level | down | up) & ~((nx == agent[:, 0]) & (ny == agent[:, 1]) & (nz == agent[:, 2])) & ~there
    if go.any():
        g3 = m3[go]
        pos1[g3], pos1[g3 + 1], pos1[g3 + 2] = nx[go], ny[go], nz[go]
    # arrived, or the way is blocked: the stroll ends, as a failed path does
    stop = ~go if ch is None else ~ch & ~go
    env.mob_strolling.reshape(-1)[movers[stop]] = False


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
            worlds = worlds[_biomes_present(env)[worlds][:, homes[k]].any(axis=1)]
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


def _biomes_present(env: Any) -> np.ndarray:
    """bool [n, biomes]: the biomes somewhere on each world's map. Kept with a copy of the map it
    was read from and read again when the biome map differs (a reset, a test's edit): the same
    answer as looking through every map at each restock, at the cost of one comparison."""
    bm, kept = env.biome_map, getattr(env, "_biome_presence", None)
    if kept is not None and kept[0].shape == bm.shape and np.array_equal(kept[0], bm):
        return kept[1]
    present = np.zeros((bm.shape[0], len(env.vocab.biomes)), bool)
    for b in np.unique(bm).tolist():
        present[:, b] = (bm == b).any(axis=(1, 2))
    env._biome_presence = (bm.copy(), present)
    return present


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
        if y >= env.H or not rules.passable[col[y]] or rules.liquid[col[y]] or rules.no_spawn[col[y - 1]]:
            continue  # no room, water, or a top no mob spawns on (a canopy's leaves, a cactus)
        env.add_mob(i, hostiles[int(rng.integers(len(hostiles)))], x, y, z)
