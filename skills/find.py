"""The scripted expert for `find` (MP5's find and move): go until the thing is within the
world's context reach (2 cells: what context_state reports) and every condition of the
goal holds, then stop.

    find({'pig':1}, {'near':'grass', 'biome':'plains', 'time':'day'})

The conditions are the context tasks' (worlds/context_tasks.py): `near` (another thing
within reach too), `biome` (the column the agent stands in), `time` (day or night),
`weather` and `brightness`.  Where and when are handled apart:
- where (find, near, biome; and weather where it rains: rain shows only over a wet biome,
  clear only over a dry one): a standing cell that meets all three is searched for with the
  experts' A* (worlds/gridworld/paths.py), and walked to.  A mob moves, so the path is
  searched again every few steps; when no cell meets them now (no cow stands within reach
  of the desert), the expert goes to the cells the mob comes closest to (approach_cells;
  failing a path there, cells with the mob further off, step by step) and waits there for
  it to stroll close.
- when (time, weather, brightness): once where holds, the expert waits (noop), following
  the thing again if it wanders off.  At night it waits in a hole two blocks deep, dug
  where it stands when that keeps the thing in reach: a zombie or spider on the ground
  beside it cannot hit down that far (mobs.py: hits reach one level), and it still fights
  off whatever stands next to it.  A zombie or spider within 4 cells at night sends it into
  such a hole wherever it is, until the mob has gone.
The step budget of the controller ends a find that cannot finish.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from skills.experts import NOOP, Expert
from skills.farm import FarmExpert
from worlds.context_tasks import evaluate_conditions, matches, normalise_state, terms
from worlds.gridworld import paths
from worlds.gridworld.crops import farmed
from worlds.gridworld.mobs import in_sight
from worlds.gridworld.sources import goal_sources
from worlds.gridworld.weather import dry

REACH = 2  # worlds/gridworld/world.py context_state: mobs and blocks within 2 cells
MOB_REPLAN = 12  # steps between path searches while the thing to reach is a mob
WIDEN = (0, 3, 6, 10, 16, 24, 40)  # extra distance allowed to a mob when no cell meets every condition
WAIT_FOR_MOB = 40  # steps waited at a widened spot before looking again
THREAT = 4  # at night, a hostile mob this close (cells, x and z) sends the agent into a hole


def dilate(mask: np.ndarray, r: int) -> np.ndarray:
    """True where a True cell lies within Chebyshev distance r (on every axis of [X, Z, Y])."""
    out = mask
    for axis in range(3):
        acc = out.copy()
        n = out.shape[axis]
        for d in range(1, r + 1):
            if d >= n:
                break
            lo = [slice(None)] * 3
            hi = [slice(None)] * 3
            lo[axis], hi[axis] = slice(0, n - d), slice(d, n)
            acc[tuple(lo)] |= out[tuple(hi)]
            acc[tuple(hi)] |= out[tuple(lo)]
        out = acc
    return out


def find_conditions(goal: Any) -> dict:
    """A find goal's conditions as one dict: {"find": thing, "biome": ..., "time": ...}."""
    ((thing, _),) = list(goal.obj.items())[:1]
    return {"find": thing, **dict(goal.where)}


class Approach:
    """The learned find's rule for walking (the policy) or waiting (the scripted expert's wait
    steps), one per pursuit, in the controller and the skill table alike. The walk heads for
    approach_cells: where the where-conditions hold, or, while none does, the cells a mob of
    the conditions comes closest to. It waits while a zombie or spider is close at night,
    while no cell will do (no such mob on the map: animals wander in), and for WAIT_FOR_MOB
    steps on reaching a closest cell (the mob strolls; the expert waits as long)."""

    def __init__(self, env: Any, i: int, conds: dict):
        self.env, self.i, self.conds = env, i, conds
        self.wait_left = 0

    def cells(self) -> tuple[np.ndarray, int]:
        """approach_cells now."""
        return approach_cells(self.env, self.i, self.conds)

    def waits(self, mask: np.ndarray, gap: int) -> bool:
        """Wait this step rather than walk, given this step's approach_cells (mask, gap)?"""
        x, y, z = (int(c) for c in self.env.pos[self.i])
        if gap == 0:  # a cell meets every condition: walk there at once
            self.wait_left = 0
        elif self.wait_left > 0:
            self.wait_left -= 1
            return True
        elif mask[x, z, y]:  # on a closest cell: wait there for the mob to stroll in
            self.wait_left = WAIT_FOR_MOB - 1
            return True
        return hostile_within(self.env, self.i) or not mask.any()


def approach_cells(env: Any, i: int, conds: dict, most: int = WIDEN[-1]) -> tuple[np.ndarray, int]:
    """(bool [X, Z, Y], gap): the standing cells of world i that meet the where-conditions
    (gap 0); or, while none does, those every other condition holds at that a mob the
    conditions name comes closest to, `gap` cells short of reach (at most `most`; an empty
    mask beyond it or with no such mob on the map)."""
    exact, _ = where_cells(env, i, conds)
    mobs = [str(conds[c]) for c in ("find", "near") if conds.get(c) and is_mob(env.vocab, str(conds[c]))]
    if exact.any() or not mobs:
        return exact, 0
    rest, _ = where_cells(env, i, {k: w for k, w in conds.items() if str(w) not in mobs or k not in ("find", "near")})
    xs, zs, ys = np.nonzero(rest)
    gap = np.zeros(xs.size, np.int64)
    cells = np.stack([xs, ys, zs], axis=1)
    for word in mobs:
        at = env.mob_pos[i][env.mob_kind[i] == env.vocab.mob_id.get(word, -1)]
        if not len(at) or not xs.size:
            return exact, 0
        far = np.abs(cells[:, None, :] - at[None, :, :]).max(axis=2).min(axis=1)  # Chebyshev, as dilate
        gap = np.maximum(gap, far - REACH)
    g = int(gap.min())
    if g > most:
        return exact, 0
    out = np.zeros_like(exact)
    keep = gap == g
    out[xs[keep], zs[keep], ys[keep]] = True
    return out, g


def is_mob(v: Any, word: str) -> bool:
    """Does `word` name a mob (of the context terms or the world's vocabulary)?"""
    return word in terms()["mobs"] or (word in v.mob_id and word != "none")


def present(env: Any, i: int, word: str) -> np.ndarray:
    """bool [X, Z, Y]: where the thing (a mob, or a block the context terms name) is now in world i."""
    v = env.vocab
    if is_mob(v, word):
        out = np.zeros(env.cells[i].shape, bool)
        k = v.mob_id.get(word)
        if k is not None:
            for x, y, z in env.mob_pos[i][env.mob_kind[i] == k]:
                if 0 <= x < env.X and 0 <= z < env.Z and 0 <= y < env.H:
                    out[x, z, y] = True
        return out
    ids = block_ids(v, word)
    return np.isin(env.cells[i], np.array(ids, dtype=np.uint8)) if ids else np.zeros(env.cells[i].shape, bool)


def block_ids(v: Any, word: str) -> list[int]:
    """The cell ids a block word (tree, grass, water) names."""
    return [
        c
        for c in range(2, len(v.cells))
        if matches(word, {v.cells[c]} | ({v.block_of[c]} if v.block_of[c] else set()), "blocks")
    ]


def standable(env: Any, i: int) -> np.ndarray:
    """bool [X, Z, Y]: the cells of world i where the agent's feet can stand."""
    r, cells = env.rules, env.cells[i]
    below = np.concatenate([np.ones(cells.shape[:2] + (1,), np.uint8), cells[:, :, :-1]], axis=2)
    return r.passable[cells] & ~r.liquid[cells] & ~r.deadly[cells] & r.solid[below]


def absent_block(env: Any, i: int, conds: dict) -> str | None:
    """The first block of a find's find/near words that world i's map does not hold at all
    (no finding can meet it; mobs may still wander in), or None."""
    for c in ("find", "near"):
        word = conds.get(c)
        if word and not is_mob(env.vocab, str(word)) and not present(env, i, str(word)).any():
            return str(word)
    return None


def hostile_within(env: Any, i: int, r: int = THREAT, spare: Sequence[int] = ()) -> bool:
    """At night, a hostile mob (of a kind not in `spare`) within r cells (x and z) of world i's agent?"""
    if not env.night()[i]:
        return False
    kinds = env.mob_kind[i]
    d = np.abs(env.mob_pos[i] - env.pos[i])
    near = env.rules.mob_hostile[kinds] & (kinds > 0) & (d[:, 0] <= r) & (d[:, 2] <= r)
    if len(spare):
        near &= ~np.isin(kinds, spare)
    return bool(near.any())


def shooters_within(env: Any, i: int, spare: Sequence[int] = ()) -> list[int]:
    """At night, the slots of world i's hostile mobs that shoot (a skeleton: gridworld.yaml
    `shoots:`) and stand within their reach of the agent, kinds in `spare` aside."""
    if not env.night()[i]:
        return []
    kinds = env.mob_kind[i]
    reach = env.rules.mob_shot_reach[kinds]
    d = np.abs(env.mob_pos[i] - env.pos[i]).max(axis=1)
    near = (kinds > 0) & env.rules.mob_hostile[kinds] & (reach > 0) & (d <= reach)
    if len(spare):
        near &= ~np.isin(kinds, spare)
    return np.nonzero(near)[0].tolist()


WHERE = ("find", "near", "biome")  # the conditions met by going somewhere (the rest by waiting there)


def where_cells(env: Any, i: int, conds: dict, extra: int = 0) -> tuple[np.ndarray, bool]:
    """(bool [X, Z, Y]: the standing cells of world i that meet the where-conditions of `conds`
    (find, near, biome; and weather where it rains), with mobs allowed `extra` cells further
    than reach; whether any mob condition was widened)."""
    v = env.vocab
    ok = standable(env, i)
    widened = False
    for cond in ("find", "near"):
        word = conds.get(cond)
        if not word:
            continue
        mob = is_mob(v, str(word))
        ok &= dilate(present(env, i, str(word)), REACH + (extra if mob else 0))
        widened |= mob and extra > 0
    biome = conds.get("biome")
    if biome:
        col = env.biome_map[i] == v.biome_id.get(str(biome), -1)
        ok &= col[:, :, None]
    weather = conds.get("weather")
    if weather and env.weather_name(i) != weather:  # rain shows only over a wet biome
        raining = env.weather[i] is not None and env.weather[i].raining(int(env.clock[i]))
        if raining:  # rain wanted: a wet biome; clear wanted: a dry one (no rain falls there)
            wet = np.array([not dry(b) for b in v.biomes])[env.biome_map[i]]
            ok &= (wet if weather == "rain" else ~wet)[:, :, None]
    return ok, widened


class Shelter(Expert):
    """The night's hole for a learned mine or kill pursuit (skills/learned/controller.py), by the
    find expert's rule: while a zombie or spider is within THREAT cells at night, dig a hole two
    blocks deep where the agent stands and wait in it, as players wait out the night. A skeleton
    shoots from further (15 cells, where it sees the agent: mobs.py), so one that sees the agent
    sends it into the hole too, and it waits there while any skeleton is within reach (in the hole
    none sees it). The pursuit's own quarry sends no one into the hole, and a hunt of the night's
    own mobs (a zombie, armed: round 38) never hides: it fights what comes, as the scripted expert
    it learned from does. The policy was never taught to hide, and long pursuits died at
    nightfall (issue 20, round 33)."""

    def __init__(self, env: Any, i: int, goal: Any):
        super().__init__(env, i, goal)
        _, mobs = goal_sources(env, goal)
        self.spare = sorted(mobs)
        self.shot_at = False  # hiding from a skeleton that saw the agent, until none is within reach

    def needed(self) -> bool:
        """At night, on a pursuit that is not itself a hunt of the night's mobs: a hostile mob other
        than the quarry within THREAT cells, or a skeleton within its reach that sees the agent (or
        saw it, while one is still within reach); and the agent in its hole or able to dig one. On
        ground it cannot dig (a pillar, a block it placed) a wait only gives the mobs their blows
        and shots, so the policy goes on there."""
        if self._night_hunt():
            return False
        threat = self._shot_at() or hostile_within(self.env, self.i, THREAT, spare=self.spare)
        return threat and (self._sheltered() or self._can_dig_in())

    def _shot_at(self) -> bool:
        """A skeleton within its reach sees the agent, or saw it while one is still within reach."""
        env, i = self.env, self.i
        shooters = shooters_within(env, i, self.spare)
        if not shooters:
            self.shot_at = False
        elif any(in_sight(env, i, env.mob_pos[i, m], env.pos[i]) for m in shooters):
            self.shot_at = True
        return self.shot_at

    def action(self) -> tuple[int, int]:
        """Dig in (face down, break the block under the feet) until sheltered, then wait."""
        if not self._sheltered() and self._can_dig_in():
            return self._dig_in()
        return NOOP


class FindExpert(Expert):
    def __init__(self, env: Any, i: int, goal: Any):
        super().__init__(env, i, goal)
        self.conds = find_conditions(goal)
        self.waiting = False
        self.since_plan = 0
        self.widened = 0
        self.wait_left = 0
        self.hole = None

    # counts are not what a find is about
    def _count(self) -> int:
        return 0

    def progress(self) -> int:
        return 0

    def act(self):
        self.waiting = False
        a = super().act()
        if self.waiting:
            self.idle = 0  # waiting for night is not being stuck
        return a

    # ------------------------------------------------------------------ reading the world
    def _state(self) -> dict:
        from worlds.gridworld.world import GridWorld

        return normalise_state(GridWorld.view(self.env, self.i).context_state())

    def _is_mob(self, word: str) -> bool:
        return is_mob(self.v, word)

    def _present(self, word: str) -> np.ndarray:
        return present(self.env, self.i, word)

    def _where(self, extra: int) -> tuple[np.ndarray, bool]:
        return where_cells(self.env, self.i, self.conds, extra)

    # ------------------------------------------------------------------ the skill
    def _find(self):
        ok, unmet = evaluate_conditions(self.conds, self._state())
        if ok:
            self._finish(True)
            return None
        if self._hostile_within(THREAT):  # at night, a zombie or spider close by: dig in first
            if self._sheltered():
                self.waiting = True
                return NOOP
            if self._can_dig_in():
                return self._dig_in()
        where_unmet = [u for u in unmet if u.split(" ", 1)[0] in ("find", "near", "biome")]
        if not where_unmet:
            self.plan, self.target = [], None
            return self._wait()
        if self.wait_left > 0:  # at a widened spot: give the mob time to come closer
            self.wait_left -= 1
            return self._wait()
        mob_goal = any(self._is_mob(str(self.conds.get(c, ""))) for c in ("find", "near"))
        if self.plan and self.target is not None:
            self.since_plan += 1
            if not (mob_goal and self.since_plan > MOB_REPLAN):
                return self._follow()
        return self._search()

    def wait_action(self):
        """The expert's step while waiting where it stands (the learned controller's waits use
        it too): noop, or at night a hole two blocks deep, dug at once when a zombie or spider
        is close and where digging keeps the where-conditions otherwise."""
        if self._hostile_within(THREAT) and not self._sheltered() and self._can_dig_in():
            return self._dig_in()
        return self._wait()

    def _wait(self):
        """Wait here; at night, from a hole two blocks deep (a mob on the ground beside it cannot
        reach down to hit, and what is in reach stays in reach) when digging one keeps the
        where-conditions."""
        self.waiting = True
        if not self.env.night()[self.i] or self._sheltered():
            return NOOP
        x, y, z = (int(c) for c in self.env.pos[self.i])
        if self._can_dig_in() and self._where_at((x, y - 2, z)):
            return self._dig_in()
        return NOOP

    def _hostile_within(self, r: int) -> bool:
        return hostile_within(self.env, self.i, r)

    def _where_at(self, p: tuple[int, int, int]) -> bool:
        """Would the where-conditions hold with the agent's feet at p (what is there now)?"""
        x, y, z = p
        for cond in ("find", "near"):
            word = self.conds.get(cond)
            if word:
                box = self._present(str(word))[
                    max(0, x - REACH) : x + REACH + 1,
                    max(0, z - REACH) : z + REACH + 1,
                    max(0, y - REACH) : y + REACH + 1,
                ]
                if not box.any():
                    return False
        biome = self.conds.get("biome")
        return not biome or self.v.biomes[int(self.env.biome_map[self.i, x, z])] == str(biome)

    def _candidates(self):
        """(cells, widened) to search, best first: where every condition holds; the cells a mob
        of them comes closest to; then cells with the mob further off, step by step."""
        yield self._where(0)
        ok, gap = approach_cells(self.env, self.i, self.conds)
        yield ok, gap > 0
        for extra in WIDEN[1:]:
            yield self._where(extra)

    def _search(self):
        env, i = self.env, self.i
        pos = tuple(int(c) for c in env.pos[i])
        for ok, widened in self._candidates():
            if not ok.any():
                continue
            xs, zs, ys = np.nonzero(ok)
            est = np.abs(xs - pos[0]) + np.abs(zs - pos[2]) + np.abs(ys - pos[1]) * 2
            order = np.argsort(est, kind="stable")[:8]
            targets = [(int(xs[k]), int(ys[k]), int(zs[k])) for k in order]
            found = paths.search(
                paths.Terrain(env, i),
                pos,
                targets,
                slack=0,
                stand=lambda s, ok=ok: (
                    0 <= s[0] < env.X and 0 <= s[2] < env.Z and 0 <= s[1] < env.H and bool(ok[s[0], s[2], s[1]])
                ),
            )
            if found is None:
                continue
            segs, _, t = found
            self.plan, self.target, self.since_plan = list(segs), t, 0
            self.seg_steps, self.last_pos = 0, None
            if not self.plan:  # standing on the best cell there is: wait for the world to change
                self.target = None
                self.wait_left = WAIT_FOR_MOB if widened else 0
                return self._wait()
            return self._follow()
        absent = absent_block(env, i, self.conds)
        if absent:  # a block the map does not hold (mobs may still wander in)
            self._finish(False, f"there is no {absent} in this world to find", {self.item: 1})
            return None
        self.wait_left = WAIT_FOR_MOB  # no such mob now (animals wander in: mobs.py restocks): wait
        return self._wait()


def expert_for(env: Any, i: int, goal: Any) -> Expert:
    """The scripted expert of a goal in world i: FindExpert for find, FarmExpert for a farmed item
    (wheat: skills/farm.py), Expert for the rest."""
    if goal.action == "find":
        return FindExpert(env, i, goal)
    if goal.action == "mine" and farmed(next(iter(goal.obj))) is not None:
        return FarmExpert(env, i, goal)
    return Expert(env, i, goal)
