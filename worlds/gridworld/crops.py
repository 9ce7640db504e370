"""Farming: farmland a hoe makes, crops planted on it that grow on random ticks, and farmland that
dries back to dirt (worlds/data/gridworld.yaml `farming:` and its farmland and crop cells, with
their sources).

The map holds the cells (`farmland`, and above it a crop's growing or ripe cell); what the map does
not show is kept here, one slot per farmland cell (owned by BatchGridWorld): farm_pos int64
[n, F, 3] (x, y, z), farm_live bool [n, F], farm_wet int8 [n, F] (moisture 0-7), crop_kind int8
[n, F] (index into `crops()`; -1: nothing planted) and crop_age int8 [n, F].  F doubles when a world
fills its slots.  Their own random stream (`crop_rng`), so a world's other draws are as they were.

Each step, every farmland cell and every crop gets the random ticks of the step's game time as one
binomial draw (ticks x 3 / 4096), not a loop over ticks; only the few that got one are looked at
further.  Each step also reads the map back: a crop broken or covered is gone from its slot, a
crop whose farmland was broken pops off and drops what a hand would break from it, and farmland
under a solid block turns to dirt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from worlds.gridworld import ground
from worlds.gridworld.spec import AIR, FACING_VECTORS, game_data
from worlds.gridworld.weather import dry

SLOTS = 16  # farmland cells a world starts with room for (doubled when full)
UP = np.array([0, 1, 0], np.int64)
Result = tuple[bool, str | None, dict, dict, int]


@dataclass(frozen=True)
class Crop:
    seed: str  # the item planted (wheat_seeds)
    produce: str  # what a ripe one gives (wheat)
    growing: str  # its cell below the last age
    ripe: str  # its cell at the last age
    ages: int  # the last age (7)


def data() -> dict:
    return game_data()["farming"]


@cache
def crops() -> tuple[Crop, ...]:
    return tuple(Crop(c["seed"], c["produce"], c["growing"], c["ripe"], int(c["ages"])) for c in data()["crops"])


def farmed(item: str) -> Crop | None:
    """The crop whose ripe break gives `item` (wheat), or None: an item a farm is grown for."""
    return next((c for c in crops() if c.produce == item), None)


def farm_holds(item: str) -> tuple[str, ...]:
    """What a route holds (and keeps) to farm `item`: the cheapest hoe (`farming.hoe`); () for the rest."""
    return (str(data()["hoe"]),) if farmed(item) is not None else ()


def ticks_per_step() -> float:
    """Game ticks in one grid step (0.25 s: 5)."""
    return float(game_data()["seconds_per_step"]) * float(data()["ticks_per_second"])


def tick_chance() -> float:
    """The chance a given block gets a random tick in one game tick (3 / 4096)."""
    return float(data()["random_ticks"]) / float(data()["section_blocks"])


def chance(points: float) -> float:
    """A crop's chance to grow one age on a random tick, from its points (1.11.2's BlockCrops)."""
    return 1.0 / (math.floor(float(data()["growth"]["top"]) / points) + 1)


@dataclass(frozen=True)
class _Ids:
    farmland: int
    water: int
    till: frozenset[int]
    hoes: frozenset[int]  # item ids
    seed_crop: dict[int, int]  # seed item id -> crop index
    crop_of: np.ndarray  # int [C]: the crop a cell is a stage of, -1 none
    ripe: np.ndarray  # bool [C]: a crop's last age
    growing: tuple[int, ...]  # per crop: its growing cell id
    ripe_cell: tuple[int, ...]  # per crop: its ripe cell id


@cache
def ids(vocab: Any) -> _Ids:
    cid, iid = vocab.cell_id, vocab.item_id
    crop_of = np.full(len(vocab.cells), -1, np.int64)
    ripe = np.zeros(len(vocab.cells), bool)
    for k, c in enumerate(crops()):
        crop_of[cid[c.growing]] = crop_of[cid[c.ripe]] = k
        ripe[cid[c.ripe]] = True
    return _Ids(
        cid["farmland"],
        cid["water"],
        frozenset(cid[c] for c in data()["till"]),
        frozenset(iid[h] for h in data()["hoes"] if h in iid),
        {iid[c.seed]: k for k, c in enumerate(crops()) if c.seed in iid},
        crop_of,
        ripe,
        tuple(cid[c.growing] for c in crops()),
        tuple(cid[c.ripe] for c in crops()),
    )


# ---------------------------------------------------------------- state
def init(env: Any) -> None:
    n = env.n
    env.farm_pos = np.zeros((n, SLOTS, 3), np.int64)
    env.farm_live = np.zeros((n, SLOTS), bool)
    env.farm_wet = np.zeros((n, SLOTS), np.int8)
    env.crop_kind = np.full((n, SLOTS), -1, np.int8)
    env.crop_age = np.zeros((n, SLOTS), np.int8)
    env.crop_rng = np.random.default_rng(0)


def reset_one(env: Any, i: int) -> None:
    """World i's slots emptied, then its map's farmland taken in (a layout may hold some)."""
    env.farm_live[i] = False
    env.crop_kind[i] = -1
    env.crop_rng = np.random.default_rng([int(s) for s in env.seeds] + [0xC209])
    for x, z, y in np.argwhere(env.cells[i] == ids(env.vocab).farmland).tolist():
        adopt(env, i, (x, y, z))


def slot(env: Any, i: int, p: Any) -> int | None:
    """The slot of the farmland at p = (x, y, z) in world i, or None."""
    hit = np.nonzero(env.farm_live[i] & (env.farm_pos[i] == np.asarray(p, np.int64)).all(axis=1))[0]
    return int(hit[0]) if hit.size else None


def _new_slot(env: Any, i: int, p: Any) -> int:
    free = np.nonzero(~env.farm_live[i])[0]
    if not free.size:  # full: twice the room for every world
        F = env.farm_live.shape[1]
        env.farm_pos = np.concatenate([env.farm_pos, np.zeros_like(env.farm_pos)], axis=1)
        env.farm_live = np.concatenate([env.farm_live, np.zeros_like(env.farm_live)], axis=1)
        env.farm_wet = np.concatenate([env.farm_wet, np.zeros_like(env.farm_wet)], axis=1)
        env.crop_kind = np.concatenate([env.crop_kind, np.full_like(env.crop_kind, -1)], axis=1)
        env.crop_age = np.concatenate([env.crop_age, np.zeros_like(env.crop_age)], axis=1)
        free = np.array([F])
    s = int(free[0])
    env.farm_pos[i, s], env.farm_live[i, s], env.farm_wet[i, s] = p, True, 0
    env.crop_kind[i, s], env.crop_age[i, s] = -1, 0
    return s


def adopt(env: Any, i: int, p: Any) -> None:
    """Take in a farmland cell put on the map at p (or the farmland under a crop cell put there):
    dry, and its crop, if any, at age 0 (growing) or its last age (ripe).  For layouts and
    GridWorld.place; tilling and planting keep their slots themselves."""
    d = ids(env.vocab)
    x, y, z = (int(c) for c in p)
    if d.crop_of[env.cells[i, x, z, y]] >= 0 and y > 0:
        y -= 1
    if env.cells[i, x, z, y] != d.farmland:
        return
    s = slot(env, i, (x, y, z))
    if s is None:
        s = _new_slot(env, i, (x, y, z))
    above = int(env.cells[i, x, z, y + 1]) if y + 1 < env.H else AIR
    k = int(d.crop_of[above])
    env.crop_kind[i, s] = k
    env.crop_age[i, s] = crops()[k].ages if k >= 0 and d.ripe[above] else 0


def age_at(env: Any, i: int, p: Any) -> int | None:
    """The age of the crop at p = (x, y, z) (its own cell, above the farmland), or None."""
    s = slot(env, i, np.asarray(p, np.int64) - UP)
    return None if s is None or env.crop_kind[i, s] < 0 else int(env.crop_age[i, s])


def moisture_at(env: Any, i: int, p: Any) -> int | None:
    """The moisture (0-7) of the farmland at p, or None where there is none."""
    s = slot(env, i, p)
    return None if s is None else int(env.farm_wet[i, s])


# ---------------------------------------------------------------- use: till, plant
def use(env: Any, i: int, item: str, at: np.ndarray, cell: int) -> Result | None:
    """A held hoe used on the faced block (tills it), or seeds on faced farmland (plants them);
    None where `item` is neither (the other uses of `use` apply)."""
    v, d = env.vocab, ids(env.vocab)
    iid = v.item_id[item]
    if iid not in d.hoes and iid not in d.seed_crop:
        return None
    x, y, z = (int(c) for c in at)
    above = int(env.cells_at(np.array([i]), (at + UP)[None])[0])
    if int(env.facing[i]) == FACING_VECTORS.index((0, 1, 0)):
        return False, f"cannot use {item} on the underside of a block: face its top or side", {}, {}, 0
    if iid in d.hoes:
        if cell not in d.till or above != AIR:
            what = v.cells[cell] if cell not in d.till else f"{v.cells[cell]} with {v.cells[above]} above it"
            return False, f"a hoe tills a grass_block or dirt with air above it; in front: {what}", {}, {}, 0
        env.cells[i, x, z, y] = d.farmland
        _new_slot(env, i, (x, y, z))
        return True, None, {}, {}, 0
    k = d.seed_crop[iid]
    if cell != d.farmland:
        why = f"{item} are planted on farmland (a grass_block or dirt tilled with a hoe); in front: {v.cells[cell]}"
        return False, why, {}, {}, 0
    if above != AIR:
        return False, f"cannot plant {item}: {v.cells[above]} is above the farmland", {}, {}, 0
    s = slot(env, i, (x, y, z))
    if s is None:
        s = _new_slot(env, i, (x, y, z))
    env.cells[i, x, z, y + 1] = d.growing[k]
    env.crop_kind[i, s], env.crop_age[i, s] = k, 0
    env.inv[i, iid] -= 1
    return True, None, {}, {}, 0


# ---------------------------------------------------------------- each step
def step(env: Any, cost: np.ndarray) -> None:
    """Read the map back, then give every farmland cell and crop its random ticks for the step."""
    if not env.farm_live.any():
        return
    _read_back(env)
    e, s = np.nonzero(env.farm_live)
    if not e.size:
        return
    ticks = np.rint(cost[e] * ticks_per_step()).astype(np.int64)
    p = tick_chance()
    got = env.crop_rng.binomial(ticks, p)
    for j in np.nonzero(got)[0].tolist():
        for _ in range(int(got[j])):
            if env.farm_live[e[j], s[j]]:
                _farmland_ticked(env, int(e[j]), int(s[j]))
    last = np.array([c.ages for c in crops()], np.int64)
    kind = env.crop_kind[e, s].astype(np.int64)
    grows = env.farm_live[e, s] & (kind >= 0) & (env.crop_age[e, s] < last[np.maximum(kind, 0)])
    draws = env.crop_rng.binomial(ticks, p) * grows * ~env.night()[e]
    for j in np.nonzero(draws)[0].tolist():
        _crop_ticked(env, int(e[j]), int(s[j]), int(draws[j]))


def _read_back(env: Any) -> None:
    d, rules = ids(env.vocab), env.rules
    e, s = np.nonzero(env.farm_live)
    pos = env.farm_pos[e, s]
    under, above = env.cells_at(e, pos), env.cells_at(e, pos + UP)
    kind = env.crop_kind[e, s].astype(np.int64)
    lost = (kind >= 0) & (d.crop_of[above] != kind)  # broken, or something else put there
    env.crop_kind[e[lost], s[lost]] = -1
    gone = under != d.farmland  # broken: the crop on it pops off
    for j in np.nonzero(gone)[0].tolist():
        i, (x, y, z) = int(e[j]), (int(c) for c in pos[j])
        env.farm_live[i, s[j]] = False
        c = int(above[j])
        if d.crop_of[c] >= 0:
            env.cells[i, x, z, y + 1] = AIR
            drops = [it for it in np.nonzero(rules.drop_vec[c])[0] for _ in range(int(rules.drop_vec[c, it]))]
            drops += [it for it, q in rules.chance[c] if env.crop_rng.random() < q]
            for it in drops:
                ground.drop(env, i, (x, y + 1, z), int(it))
    covered = ~gone & rules.solid[above]  # a solid block on farmland turns it to dirt
    for j in np.nonzero(covered)[0].tolist():
        x, y, z = (int(c) for c in pos[j])
        env.cells[int(e[j]), x, z, y] = env.vocab.cell_id["dirt"]
        env.farm_live[e[j], s[j]] = False
    new = ~gone & ~covered & (env.crop_kind[e, s] < 0) & (d.crop_of[above] >= 0)  # a crop cell put there
    for j in np.nonzero(new)[0].tolist():
        adopt(env, int(e[j]), pos[j])


def watered(env: Any, i: int, p: Any) -> bool:
    """Water within `water_reach` cells of farmland at p on both horizontal axes, at its level or one above."""
    r = int(data()["water_reach"])
    x, y, z = (int(c) for c in p)
    box = env.cells[i, max(0, x - r) : x + r + 1, max(0, z - r) : z + r + 1, y : y + 2]
    return bool((box == ids(env.vocab).water).any())


def rained_on(env: Any, i: int, p: Any) -> bool:
    """Rain falls on the cell above p: it rains, the column's biome is not dry, nothing solid is above."""
    x, y, z = (int(c) for c in p)
    w = env.weather[i]
    if w is None or not w.raining(int(env.clock[i])) or dry(env.vocab.biomes[int(env.biome_map[i, x, z])]):
        return False
    return not env.rules.solid[env.cells[i, x, z, y + 1 :]].any()


def _farmland_ticked(env: Any, i: int, s: int) -> None:
    """One random tick: moist near water or in the rain; else one level drier, and dry farmland with
    nothing planted turns to dirt."""
    p = env.farm_pos[i, s]
    if watered(env, i, p) or rained_on(env, i, p):
        env.farm_wet[i, s] = int(data()["max_moisture"])
    elif env.farm_wet[i, s] > 0:
        env.farm_wet[i, s] -= 1
    elif env.crop_kind[i, s] < 0:
        x, y, z = (int(c) for c in p)
        env.cells[i, x, z, y] = env.vocab.cell_id["dirt"]
        env.farm_live[i, s] = False


def _crop_ticked(env: Any, i: int, s: int, ticks: int) -> None:
    """`ticks` random ticks on a crop by day: each grows it one age with `growth_chance`, when
    nothing solid shades it (the grid's brightness; the game's light 9 or more)."""
    x, y, z = (int(c) for c in env.farm_pos[i, s])
    if env.rules.solid[env.cells[i, x, z, y + 2 :]].any():
        return
    k = int(env.crop_kind[i, s])
    grown = int(env.crop_rng.binomial(ticks, growth_chance(env, i, (x, y, z))))
    if grown:
        last = crops()[k].ages
        env.crop_age[i, s] = min(last, int(env.crop_age[i, s]) + grown)
        if env.crop_age[i, s] >= last:
            env.cells[i, x, z, y + 1] = ids(env.vocab).ripe_cell[k]


def points(env: Any, i: int, p: Any) -> float:
    """A crop's growth points, on the farmland at p: 1, the farmland under it (1 dry, 3 moist), the
    eight farmland cells around that one (0.25 dry, 0.75 moist each); halved when crops of its kind
    stand beside it along both axes, or (if not) on a diagonal."""
    d, g = ids(env.vocab), data()["growth"]
    x, y, z = (int(c) for c in p)
    cells = env.cells[i]
    pts = float(g["base"])
    for dx in (-1, 0, 1):
        for dz in (-1, 0, 1):
            q = (x + dx, y, z + dz)
            if not (0 <= q[0] < env.X and 0 <= q[2] < env.Z) or cells[q[0], q[2], y] != d.farmland:
                continue
            s = slot(env, i, q)
            wet = s is not None and env.farm_wet[i, s] > 0
            if dx == 0 and dz == 0:
                pts += float(g["under_moist" if wet else "under_dry"])
            else:
                pts += float(g["around_moist" if wet else "around_dry"])
    kind = d.crop_of[cells[x, z, y + 1]]

    def crop(dx: int, dz: int) -> bool:
        cx, cz = x + dx, z + dz
        return 0 <= cx < env.X and 0 <= cz < env.Z and d.crop_of[cells[cx, cz, y + 1]] == kind

    if (crop(-1, 0) or crop(1, 0)) and (crop(0, -1) or crop(0, 1)):
        pts /= 2
    elif crop(-1, -1) or crop(1, -1) or crop(1, 1) or crop(-1, 1):
        pts /= 2
    return pts


def growth_chance(env: Any, i: int, p: Any) -> float:
    """The chance one random tick grows the crop on the farmland at p one age."""
    return chance(points(env, i, p))
