"""BatchGridWorld: n grid worlds stepped at once in numpy (the interface: spec.py).
(About 400 lines: the vectorised step is one unit; generation, rules and mobs have their own modules.)

Movement, gravity, mining, mob motion and observation extraction are array operations
over the whole batch; the rare functional actions (craft, smelt, equip, use) loop over
the worlds that asked for them (functional.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from worlds.gridworld import crops, decay, eggs, functional, ground, metadata, tall
from worlds.gridworld.generation import Map, check_biome, generate
from worlds.gridworld.layout import build_layout
from worlds.gridworld.mobs import HOSTILE_CAP, step_mobs
from worlds.gridworld.rules import make_rules
from worlds.gridworld.spec import (
    AIR,
    EQUIP_SLOTS,
    FACING_VECTORS,
    HEIGHT,
    MAX_SEED,
    PRIMITIVE_ID,
    PRIMITIVES,
    VIEW_LEVELS,
    VIEW_RADIUS,
    VOID,
    GridWorldError,
    game_data,
    make_vocab,
)
from worlds.gridworld.weather import Schedule, dry, schedule

VEC = np.array(FACING_VECTORS, dtype=np.int64)
UP = np.array([0, 1, 0], dtype=np.int64)
MAX_MOBS = 40
DEFAULT_MAX_STEPS = 12000  # an episode's steps when the options name none
P = PRIMITIVE_ID


@lru_cache(maxsize=64)
def _generated(seed: int, vocab: Any, size: tuple[int, int], biome: str | None, include: tuple = ()) -> Map:
    """Generated maps, cached: a batch of many worlds on a few seeds generates each once
    (the arrays are copied into the batch, so the cached map is never changed)."""
    return generate(seed, vocab, size, biome, include)


def check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) <= MAX_SEED:
        raise GridWorldError(f"grid world seed {seed!r} is out of range; accepted: a whole number 0 to {MAX_SEED}")
    return int(seed)


class BatchGridWorld:
    def __init__(
        self,
        n: int,
        kb: Any = None,
        mc_version: str = "1.11.2",
        size: tuple[int, int] | None = None,
        biome: str | None = None,
    ):
        if kb is None:
            from worlds.knowledge import load_kb

            kb = load_kb(mc_version)
        check_biome(biome)
        d = game_data()
        self.n, self.kb, self.biome_choice = int(n), kb, biome
        self.vocab, self.rules = make_vocab(kb), make_rules(kb)
        self.X, self.Z = tuple(size or d["default_size"])
        self.H = HEIGHT
        self.day_steps, self.night_span = int(d["day_steps"]), tuple(d["night"])
        n, I = self.n, self.vocab.n_items  # noqa: E741 - array sizes named as in the shapes
        self.cells = np.zeros((n, self.X, self.Z, self.H), np.uint8)
        self.biome_map = np.zeros((n, self.X, self.Z), np.uint8)
        self.pos = np.zeros((n, 3), np.int64)
        self.facing = np.zeros(n, np.int64)
        self.health = np.zeros(n, np.float32)
        self.clock = np.zeros(n, np.int64)
        self.steps = np.zeros(n, np.int64)
        self.max_steps = np.full(n, DEFAULT_MAX_STEPS, np.int64)
        self.mine_tgt = np.full((n, 3), -1, np.int64)
        self.mine_prog = np.zeros(n, np.int64)
        self.mine_need = np.zeros(n, np.int64)
        self.inv = np.zeros((n, I), np.int32)
        self.equip = np.zeros((n, len(EQUIP_SLOTS)), np.int32)
        self.fuel = np.zeros(n, np.float32)
        self.mob_kind = np.zeros((n, MAX_MOBS), np.uint8)
        self.mob_pos = np.zeros((n, MAX_MOBS, 3), np.int64)
        self.mob_hp = np.zeros((n, MAX_MOBS), np.float32)
        self.mob_goal = np.zeros((n, MAX_MOBS, 2), np.int64)  # where a strolling mob heads (x, z)
        self.mob_strolling = np.zeros((n, MAX_MOBS), bool)
        self.dead = np.zeros(n, bool)
        self.done = np.zeros(n, bool)
        self.target_mask = np.zeros((n, 1, I), bool)
        self.target_count = np.zeros((n, 1), np.int64)
        self.last_hurt: list[str | None] = [None] * n
        self.seeds = [0] * n
        self.weather: list[Schedule | None] = [None] * n
        self.rng = np.random.default_rng(0)
        ground.init(self)
        metadata.init(self)
        eggs.init(self)
        decay.init(self)
        crops.init(self)
        self.drop_rng = np.random.default_rng(0)
        self._bounds = np.array([self.X, self.H, self.Z], np.uint64)[:, None]  # (x, y, z) limits
        self._strides = np.array([self.Z * self.H, 1, self.H], np.int64)  # (x, y, z) in the flat cells
        self._world_cells = self.X * self.Z * self.H
        self._worlds = np.arange(n)
        # where each cell of the local view lies in the flat cells, relative to the agent's own
        # cell: int64 [L, V, V] (levels, z, x), fixed for the map's size
        off = np.arange(-VIEW_RADIUS, VIEW_RADIUS + 1)
        self.view_offsets = (
            np.array(VIEW_LEVELS)[:, None, None]
            + (off * self.H)[None, :, None]
            + (off * (self.Z * self.H))[None, None, :]
        )

    # ------------------------------------------------------------------ reset
    def reset(self, seeds: Sequence[int], options: dict | Sequence[dict] | None = None) -> dict:
        seeds = [check_seed(s) for s in seeds]
        if len(seeds) != self.n:
            raise GridWorldError(f"reset needs {self.n} seeds, got {len(seeds)}")
        self.reset_some(np.ones(self.n, bool), seeds, options)
        return self.observe()

    def reset_some(self, mask: np.ndarray, seeds: Sequence[int], options: dict | Sequence[dict] | None = None) -> None:
        idx = np.nonzero(np.asarray(mask, bool))[0]
        seeds = list(seeds)
        opts = [options or {}] * self.n if options is None or isinstance(options, dict) else options
        for k, i in enumerate(idx.tolist()):
            seed = check_seed(seeds[i] if len(seeds) == self.n else seeds[k])
            self._reset_one(int(i), seed, dict(opts[i] or {}))
        self.rng = np.random.default_rng([int(s) for s in self.seeds] + [self.n])

    def _reset_one(self, i: int, seed: int, o: dict) -> None:
        v = self.vocab
        biome = o.get("biome") or self.biome_choice
        check_biome(biome)
        m: Map = (
            build_layout(o["layout"], v, (self.X, self.Z))
            if o.get("layout")
            else _generated(seed, v, (self.X, self.Z), biome, tuple(o.get("include_biomes") or ()))
        )
        self.seeds[i] = seed
        self.cells[i], self.biome_map[i] = m.cells, m.biome
        self.pos[i] = m.spawn
        self.facing[i] = 0
        self.health[i] = float(game_data()["agent_health"])
        self.clock[i] = self.start_clock(o.get("time_of_day"))
        self.weather[i] = schedule(seed, o.get("weather"), int(self.clock[i]), self.day_steps)
        self.steps[i] = 0
        self.max_steps[i] = int(o.get("max_steps") or DEFAULT_MAX_STEPS)
        self.mine_tgt[i], self.mine_prog[i] = -1, 0
        self.inv[i], self.equip[i], self.fuel[i] = 0, 0, 0.0
        self.mob_kind[i], self.mob_hp[i] = 0, 0.0
        for kind, x, y, z in m.mobs:
            self.add_mob(i, kind, x, y, z)
        self.dead[i], self.done[i], self.last_hurt[i] = False, False, None
        from worlds.inventory import Bag

        bag = Bag(self.kb, biome=self.biome_name(i))
        metadata.reset_one(self, i)
        for name, k in (o.get("inventory") or {}).items():
            if int(k) > 0:
                bag.add({bag.concrete(name, what="initial inventory"): int(k)})
        functional.store_bag(self, i, bag)
        ground.reset_one(self, i)
        eggs.reset_one(self, i, seed)
        decay.reset_one(self, i)
        crops.reset_one(self, i)
        self.drop_rng = np.random.default_rng([int(s) for s in self.seeds] + [0xD209])
        self.set_target(i, o.get("target") or {})

    def start_clock(self, t: Any) -> int:
        """The clock step a `time_of_day` option starts at: dawn for none or "day", dusk for
        "night", else that fraction of a day; GridWorldError for anything else."""
        if t in (None, "", "day"):
            return 0
        if t == "night":
            return int(self.night_span[0] * self.day_steps) + 1
        f = float(t)
        if not 0.0 <= f < 1.0:
            raise GridWorldError(f"time_of_day {t!r} is out of range; accepted: day, night or a fraction 0 to 1")
        return int(f * self.day_steps)

    def set_target(self, i: int, target: dict[str, int]) -> None:
        k = max(1, len(target))
        if k > self.target_mask.shape[1]:
            self.target_mask = np.concatenate(
                [self.target_mask, np.zeros((self.n, k - self.target_mask.shape[1], self.vocab.n_items), bool)], axis=1
            )
            self.target_count = np.concatenate(
                [self.target_count, np.zeros((self.n, k - self.target_count.shape[1]), np.int64)], axis=1
            )
        self.target_mask[i], self.target_count[i] = False, 0
        for j, (name, cnt) in enumerate(target.items()):
            canon = self.kb.canonical(name)
            if canon is None:
                raise GridWorldError(f"unknown item {name!r} in the target")
            for var in self.kb.variants(canon) or [canon]:
                if var in self.vocab.item_id:
                    self.target_mask[i, j, self.vocab.item_id[var]] = True
            self.target_count[i, j] = int(cnt)

    def animal_room(self, i: int) -> bool:
        """Whether world i's animals may take one more slot: they leave HOSTILE_CAP slots to the
        night's hostiles, as the game counts the two under separate caps (Minecraft Wiki,
        "Spawn": mob caps). A 48 x 48 map's animals used to fill all 40 slots, and then no
        zombie or spider could ever spawn (a "find a zombie at night" waited all night)."""
        kinds = self.mob_kind[i]
        return int(((kinds > 0) & ~self.rules.mob_hostile[kinds]).sum()) < MAX_MOBS - HOSTILE_CAP

    def add_mob(self, i: int, kind: int, x: int, y: int, z: int) -> bool:
        free = np.nonzero(self.mob_kind[i] == 0)[0]
        if free.size == 0 or (not self.rules.mob_hostile[kind] and not self.animal_room(i)):
            return False
        s = free[0]
        self.mob_kind[i, s], self.mob_pos[i, s] = kind, (x, y, z)
        self.mob_hp[i, s] = self.rules.mob_health[kind]
        self.mob_strolling[i, s] = False
        return True

    # ------------------------------------------------------------------ queries
    def biome_name(self, i: int) -> str:
        x, _, z = self.pos[i]
        return self.vocab.biomes[int(self.biome_map[i, int(np.clip(x, 0, self.X - 1)), int(np.clip(z, 0, self.Z - 1))])]

    def cells_at(self, e: np.ndarray, p: np.ndarray) -> np.ndarray:
        """uint8 [k]: the cell of world e[j] at p[j] = (x, y, z), VOID outside the map."""
        p = np.asarray(p, np.int64)
        # one flat index each; a negative coordinate wraps to a huge unsigned one, so one
        # comparison finds what lies outside (issue 21), per point only when some point does
        flat = np.asarray(e, np.int64) * self._world_cells + p @ self._strides
        below = p.astype(np.uint64) < self._bounds.T
        if below.all():
            return np.take(self.cells.reshape(-1), flat)
        return np.where(below.all(axis=1), np.take(self.cells.reshape(-1), flat, mode="clip"), np.uint8(VOID))

    def mob_at(self, i: int, p: np.ndarray) -> int | None:
        hit = (self.mob_kind[i] > 0) & (self.mob_pos[i] == p).all(axis=1)
        return int(self.mob_kind[i][hit][0]) if hit.any() else None

    def weather_name(self, i: int) -> str:
        """ "rain" or "clear" over world i's agent (a dry biome reads clear; weather.py)."""
        w = self.weather[i]
        return "rain" if w is not None and w.raining(int(self.clock[i])) and not dry(self.biome_name(i)) else "clear"

    def set_environment(self, i: int, time_of_day: Any = None, weather: str | None = None) -> None:
        """Set world i's time of day (as the reset option) and its weather from now on."""
        if time_of_day is not None:
            self.clock[i] = self.start_clock(time_of_day)
        if weather is not None or time_of_day is not None:
            w = self.weather[i]
            now = weather or ("rain" if w is not None and w.raining(int(self.clock[i])) else "clear")
            self.weather[i] = schedule(self.seeds[i], now, int(self.clock[i]), self.day_steps)

    def death(self, i: int) -> str | None:
        """How world i's agent died, in the words every controller reports it (None: alive)."""
        if not self.dead[i]:
            return None
        how = self.last_hurt[i]
        return "the agent burned in lava" if how == "lava" else f"the agent was killed by a {how}"

    def night(self) -> np.ndarray:
        f = (self.clock % self.day_steps) / self.day_steps
        return (f >= self.night_span[0]) & (f < self.night_span[1])

    def reached(self) -> np.ndarray:
        need = self.target_count
        out = np.asarray((need > 0).any(axis=1))
        e = np.nonzero(out)[0]  # only the worlds that have a target (issue 21)
        if e.size:
            held = self.inv[e]
            rows, slots = np.nonzero(self.equip[e])
            np.add.at(held, (rows, self.equip[e][rows, slots] - 1), 1)
            have = (held[:, None, :] * self.target_mask[e]).sum(axis=2)
            out[e] = ((have >= need[e]) | (need[e] == 0)).all(axis=1)
        return out

    # ------------------------------------------------------------------ step
    def step(self, actions: np.ndarray, names: dict[int, tuple[str, str | None]] | None = None):
        """actions int [n, 2] (primitive, item index); `names` lets one world pass item names
        ({i: (item, fuel)}) for the functional actions instead of an index (generic names)."""
        act = np.asarray(actions, np.int64).reshape(self.n, 2)
        a, arg = act[:, 0].copy(), act[:, 1]
        n = self.n
        ok = np.ones(n, bool)
        events: dict[int, dict] = {}
        over = self.dead | (self.steps >= self.max_steps)
        for i in np.nonzero(over)[0].tolist():
            events[i] = {
                "error": f"the episode is over: {self.steps[i]} of {self.max_steps[i]} steps used"
                if not self.dead[i]
                else f"the episode is over: {self.death(i)}"
            }
        a[over] = P["noop"]
        ok[over] = False
        cost = np.ones(n, np.int64)
        cost[over] = 0
        was_done = self.done.copy()
        attacking = a == P["attack"]
        self.mine_prog[~attacking] = 0

        mv = (a >= P["move_north"]) & (a <= P["move_west"])
        if mv.any():
            e = np.nonzero(mv)[0]
            self.facing[e] = a[e] - P["move_north"]
            tgt = np.take(self.pos, e, axis=0) + np.take(VEC, a[e] - P["move_north"], axis=0)
            c = self.cells_at(e, tgt)
            free = self.rules.passable[c]
            self.pos[e[free]] = tgt[free]
        self.facing[a == P["face_up"]] = 4
        self.facing[a == P["face_down"]] = 5
        turn = (a >= P["face_north"]) & (a <= P["face_west"])
        self.facing[turn] = a[turn] - P["face_north"]
        jp = a == P["jump"]
        if jp.any():
            e = np.nonzero(jp & (self.facing < 4))[0]
            front = self.pos[e] + VEC[self.facing[e]]
            go = (
                self.rules.solid[self.cells_at(e, front)]
                & self.rules.passable[self.cells_at(e, front + UP)]
                & self.rules.passable[self.cells_at(e, self.pos[e] + UP)]
            )
            self.pos[e[go]] = front[go] + UP
        if attacking.any():
            self._attack(np.nonzero(attacking)[0], ok, events)
        rare = np.nonzero((a >= P["use"]) & (a <= P["equip"]) & (a != P["attack"]))[0]
        if rare.size:
            n_items, named = self.vocab.n_items, names or {}
            for i, ai, argi in zip(rare.tolist(), a[rare].tolist(), arg[rare].tolist()):
                if i not in named and not 0 <= argi < n_items:  # _rare's first refusal, without the call
                    self._needs_item(i, ai, ok, events)
                else:
                    self._rare(i, ai, argi, names, ok, events, cost)
        self._gravity()
        # lava
        own = self.cells_at(np.arange(n), self.pos)
        burnt = self.rules.deadly[own] & ~self.dead
        for i in np.nonzero(burnt)[0]:
            self.health[i] = 0
            self.last_hurt[i] = "lava"
        self.steps += cost
        self.clock += cost
        night = self.night()
        step_mobs(self, night)
        ground.age(self, cost)
        eggs.step(self, cost)
        decay.step(self, cost)
        crops.step(self, cost)
        ground.settle_and_pick_up(self, events)
        regen = int(game_data()["regen_steps"])
        heal = (self.clock % regen == 0) & ~self.dead
        self.health[heal] = np.minimum(float(game_data()["agent_health"]), self.health[heal] + 1)
        died = (self.health <= 0) & ~self.dead
        for i in np.nonzero(died)[0].tolist():
            self.dead[i] = True
            ok[i] = False
            events.setdefault(i, {})["error"] = self.death(i)
        self.done |= self.reached()
        reward = (self.done & ~was_done).astype(np.float32)
        terminated = self.done | self.dead
        truncated = (self.steps >= self.max_steps) & ~terminated
        info = {"ok": ok, "events": events, "cost": cost}
        return self.observe(), reward, terminated, truncated, info

    def _attack(self, e: np.ndarray, ok: np.ndarray, events: dict) -> None:
        rules, v = self.rules, self.vocab
        tgt = np.take(self.pos, e, axis=0) + np.take(VEC, self.facing[e], axis=0)
        mp = np.take(self.mob_pos, e, axis=0)  # (one axis at a time: numpy's broadcast over a last axis of 3 is slow)
        m = (
            (np.take(self.mob_kind, e, axis=0) > 0)
            & (mp[:, :, 0] == tgt[:, 0, None])
            & (mp[:, :, 1] == tgt[:, 1, None])
            & (mp[:, :, 2] == tgt[:, 2, None])
        )
        has_mob = m.any(axis=1)
        if has_mob.any():
            em, slot = e[has_mob], m[has_mob].argmax(axis=1)
            self.mob_hp[em, slot] -= rules.damage(self.inv[em])
            killed = self.mob_hp[em, slot] <= 0
            for i, s in zip(em[killed], slot[killed]):
                kind = int(self.mob_kind[i, s])
                self.inv[i] += rules.mob_drop_vec[kind]
                self.mob_kind[i, s] = 0
                events.setdefault(i, {})["gained"] = {
                    v.items[j]: int(c) for j, c in enumerate(rules.mob_drop_vec[kind]) if c
                }
                self._chance_drops(int(i), rules.mob_chance[kind], events[i])
                events[i]["killed"] = v.mobs[kind]
        e, tgt = e[~has_mob], tgt[~has_mob]
        if e.size == 0:
            return
        c = self.cells_at(e, tgt)
        brk = rules.breakable[c]
        ok[e[~brk]] = False
        for i in e[~brk].tolist():
            events.setdefault(i, {})["error"] = "nothing to mine or hit in front"
        e, tgt, c = e[brk], tgt[brk], c[brk]
        if e.size == 0:
            return
        same = (self.mine_tgt[e] == tgt).all(axis=1) & (self.mine_prog[e] > 0)
        self.mine_prog[e] = np.where(same, self.mine_prog[e] + 1, 1)
        self.mine_tgt[e] = tgt
        held, best = rules.tool_state(np.take(self.inv, e, axis=0))
        kind = rules.cell_kind[c]
        speed = np.where(kind >= 0, best[np.arange(e.size), np.maximum(kind, 0)], 1.0)
        can = ~rules.needs_tool[c] | (held & rules.harvest[c]).any(axis=1)
        need = rules.break_steps(c, speed, can)
        self.mine_need[e] = need
        fin = self.mine_prog[e] >= need
        ef, tf, cf, canf = e[fin], tgt[fin], c[fin], can[fin]
        self.cells[ef, tf[:, 0], tf[:, 2], tf[:, 1]] = AIR
        cf = tall.break_both(self, ef, tf, cf)  # either half of a tall plant: both go, the plant's drop once
        decay.on_break(self, ef, tf, cf)  # a log or a leaf: the leaves it held up
        self.mine_prog[ef] = 0
        self.inv[ef[canf]] += rules.drop_vec[cf[canf]]
        for i, cc, cn in zip(ef, cf, canf):
            ev = events.setdefault(i, {})
            ev["broke"] = v.cells[cc]
            tool = next((t for t in rules.tool_drops[cc] if (self.inv[i, list(t[0])] > 0).any()), None) if cn else None
            if tool is not None:  # shears on leaves, grass, a dead bush: the block itself, not its drops
                self.inv[i] -= rules.drop_vec[cc]
                self.inv[i, tool[1]] += tool[2]
                ev["gained"] = {v.items[tool[1]]: tool[2]}
            elif cn:
                ev["gained"] = dict(rules.drops[cc])
                for name, k in rules.drops[cc].items():  # lapis ore's lapis_lazuli: dye's slot, kept apart
                    metadata.gain(self, int(i), name, int(k))
                self._chance_drops(int(i), rules.chance[cc], ev)
            else:
                ok[i] = False
                ev["error"] = rules.why_not(cc)
                ev["missing"] = {"tool": rules.min_tool[cc]}

    def _chance_drops(self, i: int, chances: list[tuple[int, float]], ev: dict) -> None:
        """The rare drops of a break or a kill (rules.chance), from their own random stream."""
        for it, p in chances:
            if self.drop_rng.random() < p:
                self.inv[i, it] += 1
                name = self.vocab.items[it]
                ev["gained"] = {**ev.get("gained", {}), name: ev.get("gained", {}).get(name, 0) + 1}

    @staticmethod
    def _needs_item(i: int, a: int, ok: np.ndarray, events: dict) -> None:
        """Refuse world i's item-taking primitive `a` given no item (no name, an index out of range)."""
        ok[i] = False
        events[i] = {"error": f"{PRIMITIVES[a]} needs an item argument"}

    def _rare(self, i, a, arg, names, ok, events, cost) -> None:
        v = self.vocab
        item, fuel = (names or {}).get(i, (None, None))
        if item is None:
            if not 0 <= arg < v.n_items:
                self._needs_item(i, a, ok, events)
                return
            item = v.items[arg]
        if a == P["jump_place"]:
            res = self._pillar(i, item)
        elif a == P["use"]:
            res = functional.use(self, i, item)
        else:
            res = getattr(functional, PRIMITIVES[a])(self, i, item, *((fuel,) if a == P["smelt"] else ()))
        good, err, gained, missing, extra = res
        ok[i] = good
        cost[i] += extra
        if err or gained or missing:
            events[i] = {"error": err, "gained": gained, "missing": missing}

    def _pillar(self, i: int, item: str):
        iid = self.vocab.item_id.get(item)
        if iid is None or self.inv[i, iid] <= 0 or self.rules.place_cell[iid] < 0:
            return (
                False,
                f"cannot pillar up with {item}: needs a building block (dirt, cobblestone...) held",
                {},
                {"cobblestone": 1},
                0,
            )
        above = self.pos[i] + UP
        if not self.rules.passable[self.cells_at(np.array([i]), above[None])[0]]:
            return False, "cannot jump: a block is above", {}, {}, 0
        x, y, z = self.pos[i]
        self.cells[i, x, z, y] = self.rules.place_cell[iid]
        self.inv[i, iid] -= 1
        self.pos[i] = above
        return True, None, {}, {}, 0

    def _gravity(self) -> None:
        e = np.nonzero(~self.dead)[0]
        cells = self.cells.reshape(-1)
        for _ in range(self.H):
            if e.size == 0:
                return
            p = np.take(self.pos, e, axis=0)
            if (p.astype(np.uint64) < self._bounds.T).all() and p[:, 1].min() >= 1:  # both cells inside
                flat = e * self._world_cells + p @ self._strides
                own, below = cells.take(flat), cells.take(flat - 1)
            else:
                own, below = self.cells_at(e, p), self.cells_at(e, p - UP)
            fall = ~self.rules.liquid[own] & self.rules.passable[below]
            e = e[fall]
            self.pos[e, 1] -= 1

    # ------------------------------------------------------------------ observation
    def observe(self) -> dict:
        R = VIEW_RADIUS
        lv = np.array(VIEW_LEVELS)
        X, Z, H = self.X, self.Z, self.H
        pos = self.pos
        x, y, z = pos[:, 0], pos[:, 1], pos[:, 2]
        # one flat index per (world, level, z, x) into the cells: the agent's own cell plus a
        # fixed offset (issue 21: a single `take`); the few views that cross the map's edge
        # are read wrapped (the cheapest mode), then again clamped, VOID outside it
        base = ((self._worlds * X + x) * Z + z) * H + y
        blocks = np.take(self.cells.reshape(-1), base[:, None, None, None] + self.view_offsets, mode="wrap")
        edge = np.nonzero((x < R) | (x >= X - R) | (z < R) | (z >= Z - R) | (y < -int(lv[0])) | (y >= H - int(lv[-1])))[
            0
        ]
        if edge.size:
            blocks[edge] = self._view_at_edge(edge, lv)
        mobs = np.zeros(blocks.shape, np.uint8)  # C order: written through its flat view below
        # each mob's place in its world's view, shifted to start at 0, so that one unsigned
        # comparison an axis finds the mobs in view (numpy's broadcast over a last axis of 3 is slow)
        mp, L, V = self.mob_pos, len(lv), 2 * R + 1
        rx, ry, rz = (
            mp[:, :, 0] - (x - R)[:, None],
            mp[:, :, 1] - (y + int(lv[0]))[:, None],
            mp[:, :, 2] - (z - R)[:, None],
        )
        u = np.uint64
        vis = np.flatnonzero((self.mob_kind > 0) & (rx.view(u) < V) & (rz.view(u) < V) & (ry.view(u) < L))
        if vis.size:
            at = (vis // mp.shape[1]) * (L * V * V) + ry.take(vis) * (V * V) + rz.take(vis) * V + rx.take(vis)
            mobs.reshape(-1)[at] = self.mob_kind.reshape(-1)[vis]
        frac = (self.clock % self.day_steps) / self.day_steps
        night = (frac >= self.night_span[0]) & (frac < self.night_span[1])
        bi = self.biome_map.reshape(-1).take((self._worlds * X + np.clip(x, 0, X - 1)) * Z + np.clip(z, 0, Z - 1))
        time = np.empty((self.n, 2), np.float32)
        time[:, 0], time[:, 1] = frac, night
        need = np.maximum(self.mine_need, 1)
        return {
            "blocks": blocks,
            "mobs": mobs,
            "inventory": self.inv.copy(),
            "equipment": self.equip.copy(),
            "position": pos.astype(np.int32),
            "facing": self.facing.astype(np.int32),
            "biome": bi.astype(np.int32),
            "time": time,
            "health": self.health.copy(),
            "mining": np.where(self.mine_prog > 0, self.mine_prog / need, 0.0).astype(np.float32),
        }

    def _view_at_edge(self, e: np.ndarray, lv: np.ndarray) -> np.ndarray:
        """The local views of worlds `e`, read with clamped indices, VOID outside the map."""
        R, X, Z, H = VIEW_RADIUS, self.X, self.Z, self.H
        off = np.arange(-R, R + 1)
        pos = self.pos[e]
        xs, zs, ys = pos[:, 0, None] + off, pos[:, 2, None] + off, pos[:, 1, None] + lv
        flat = (
            (e * (X * Z * H))[:, None, None, None]
            + np.minimum(np.maximum(ys, 0), H - 1)[:, :, None, None]
            + (np.minimum(np.maximum(zs, 0), Z - 1) * H)[:, None, :, None]
            + (np.minimum(np.maximum(xs, 0), X - 1) * (Z * H))[:, None, None, :]
        )
        inb = (
            ((ys >= 0) & (ys < H))[:, :, None, None]
            & ((zs >= 0) & (zs < Z))[:, None, :, None]
            & ((xs >= 0) & (xs < X))[:, None, None, :]
        )
        return np.where(inb, np.take(self.cells.reshape(-1), flat), np.uint8(VOID))
