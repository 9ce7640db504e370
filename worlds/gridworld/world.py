"""GridWorld: one grid world behind the `World` protocol (worlds/base.py).

A thin face over BatchGridWorld with n = 1 (or a view of world i of a bigger batch, for
the experts): dict actions in, Gymnasium's five-tuple out, the inventory as a dict, and
the read-outs the agent's nodes ask for: goal_distance (the oracle selector), context_state
(MP5's context tasks), render (--render).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld import crops, functional, metadata, paths
from worlds.gridworld.batch import DEFAULT_MAX_STEPS, BatchGridWorld
from worlds.gridworld.metadata import slot_count
from worlds.gridworld.render import render
from worlds.gridworld.spec import (
    EQUIP_SLOTS,
    FACINGS,
    MOVES,
    OBS_KEYS,
    PRIMITIVE_ID,
    PRIMITIVES,
    GridWorldError,
    game_data,
)
from worlds.types import ACTIONS


class GridWorld:
    observation_space = {k: "numpy array; see worlds/gridworld/spec.py" for k in OBS_KEYS}
    action_space = {
        "action": PRIMITIVES,
        "item": "item name (use, jump_place, craft, smelt, equip)",
        "fuel": "optional, for smelt",
    }

    def __init__(
        self,
        kb: Any,
        *,
        size: tuple[int, int] | None = None,
        biome: str | None = None,
        allowed_skills: set[str] | None = None,
        **_ignored: Any,
    ):
        if allowed_skills:
            bad = sorted(set(allowed_skills) - set(ACTIONS))
            if bad:
                raise ValueError(f"unknown skill(s) {', '.join(bad)}; accepted: {', '.join(ACTIONS)}")
        self.allowed = set(allowed_skills) if allowed_skills else set(ACTIONS)
        self.env = BatchGridWorld(1, kb, size=size, biome=biome)
        self.size_given, self.biome_given = size is not None, biome
        self.i = 0
        self.kb = kb
        self.target: dict[str, int] = {}

    @staticmethod
    def budget_steps(task_max_steps: int) -> int:
        """A task's budget in MineDojo steps (1/20 s) as grid steps of the same game time."""
        d = game_data()
        return max(1, round(int(task_max_steps) * float(d["task_step_seconds"]) / float(d["seconds_per_step"])))

    @classmethod
    def view(cls, env: BatchGridWorld, i: int) -> GridWorld:
        w = cls.__new__(cls)
        w.env, w.i, w.kb, w.target, w.allowed = env, i, env.kb, {}, set(ACTIONS)
        return w

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        o = dict(options or {})
        self.target = {}
        for name, n in (o.get("target") or {}).items():
            canon = self.kb.canonical(name)
            if canon is None:
                raise GridWorldError(f"unknown item {name!r} in the target")
            self.target[canon] = int(n)
        if self.target and not o.get("layout"):  # a route through what is not built here: refused up front
            from worlds.gridworld.coverage import refusal

            why = refusal(self.kb, self.target, o.get("inventory"))
            if why:
                raise GridWorldError(why)
            from worlds.gridworld.coverage import biome_refusal, ore_biomes, sole_biome
            from worlds.gridworld.generation import base_biome

            cycle = game_data()["biome_cycle"]
            asked = o.get("biome") or self.biome_given
            main = base_biome(asked)[0] or cycle[(seed or 0) % len(cycle)]
            if not asked:  # no biome asked for, and the seed's has no emerald ore: the map is made
                # where the ore forms (a player would go there), as a map is grown for short blocks;
                # so is it where melons or lily pads grow (a jungle, a swamp: no seed's biome)
                needed = ore_biomes(self.kb, self.target, o.get("inventory"), main)
                if needed:
                    o["biome"] = main = needed[2][0]
                elif sole := sole_biome(self.kb, self.target, o.get("inventory")):
                    o["biome"] = main = sole
            why = biome_refusal(self.kb, self.target, o.get("inventory"), main)
            if why:
                raise GridWorldError(why)
            from worlds.gridworld.coverage import budget_refusal

            steps = int(o.get("max_steps") or DEFAULT_MAX_STEPS)
            why = budget_refusal(
                self.kb, self.target, o.get("inventory"), self.env.start_clock(o.get("time_of_day")), steps
            )
            if why:
                raise GridWorldError(why)
        self.env.reset([0 if seed is None else seed], [o])
        if self.target and not o.get("layout") and not self.size_given:
            self._grow_for_target(0 if seed is None else seed, o)
        return self.observation(), {"ok": True, "error": None, "cost": 0, "gained": {}, "missing": {}}

    def _grow_for_target(self, seed: int, o: dict) -> None:
        """A map too small for the task (eight reeds where the default map holds four) is made
        again larger, side x1.5 up to 256, with a biome where the short blocks grow among its
        neighbours, until it holds what the recipe book's route mines (coverage.short_of), as
        a real world always has more land beyond."""
        from worlds.gridworld.coverage import grows_in, short_of

        side = self.env.X
        short = short_of(self.env, 0, self.target, o.get("inventory"))
        while side < 256 and short:
            side = min(256, int(side * 1.5))
            self.env = BatchGridWorld(1, self.kb, size=(side, side), biome=self.biome_given)
            self.env.reset([seed], [{**o, "include_biomes": grows_in(short, self.kb)}])
            short = short_of(self.env, 0, self.target, o.get("inventory"))

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.env.n != 1:
            raise GridWorldError("step a view of a batch through the batch itself")
        acts = np.zeros((1, 2), np.int64)
        names = None
        if isinstance(action, dict):
            name = action.get("action")
            if name not in PRIMITIVE_ID:
                return self._refuse(f"unknown action {name!r} (accepted: {', '.join(PRIMITIVES)})")
            if name in ("craft", "smelt", "equip") and name not in self.allowed:
                return self._refuse(f"skill '{name}' is not allowed here (allowed: {', '.join(sorted(self.allowed))})")
            acts[0, 0] = PRIMITIVE_ID[name]
            item = action.get("item")
            if item is not None:
                canon = self.kb.canonical(str(item))
                if canon is None:
                    return self._refuse(f"unknown item {item!r}")
                names = {0: (canon, action.get("fuel"))}
            acts[0, 1] = -1
        else:
            acts[0] = np.asarray(action, np.int64).reshape(2)
        obs, rew, term, trunc, info = self.env.step(acts, names)
        ev = info["events"].get(0, {})
        out = {
            "ok": bool(info["ok"][0]),
            "error": ev.get("error"),
            "cost": int(info["cost"][0]),
            "gained": dict(ev.get("gained") or {}),
            "missing": dict(ev.get("missing") or {}),
            "chance": False,
        }
        for k in ("killed", "broke"):
            if k in ev:
                out[k] = ev[k]
        return self._one(obs), float(rew[0]), bool(term[0]), bool(trunc[0]), out

    def _refuse(self, error: str):
        return (
            self.observation(),
            0.0,
            False,
            False,
            {"ok": False, "error": error, "cost": 0, "gained": {}, "missing": {}, "chance": False},
        )

    def _one(self, obs: dict) -> dict:
        return {k: v[self.i] for k, v in obs.items()}

    def observation(self) -> dict:
        return self._one(self.env.observe())

    # ------------------------------------------------------------------ read-outs
    @property
    def steps(self) -> int:
        return int(self.env.steps[self.i])

    @property
    def max_steps(self) -> int:
        return int(self.env.max_steps[self.i])

    @property
    def inventory(self) -> dict[str, int]:
        row, v = self.env.inv[self.i], self.env.vocab
        return metadata.expand(self.env, self.i, {v.items[j]: int(row[j]) for j in np.nonzero(row)[0]})

    @property
    def equipment(self) -> dict[str, str]:
        v = self.env.vocab
        return {EQUIP_SLOTS[s]: v.items[int(it) - 1] for s, it in enumerate(self.env.equip[self.i]) if it > 0}

    @property
    def biome(self) -> str:
        return self.env.biome_name(self.i)

    @property
    def seed(self) -> int:
        return int(self.env.seeds[self.i])

    @property
    def position(self) -> tuple[int, int, int]:
        x, y, z = (int(c) for c in self.env.pos[self.i])
        return x, y, z

    @property
    def dead(self) -> bool:
        return bool(self.env.dead[self.i])

    @property
    def death(self) -> str | None:
        """How the agent died ("the agent burned in lava"), None while it lives."""
        return self.env.death(self.i)

    @property
    def gives(self) -> Any:
        """`gives(goal) -> bool`: whether this world has a source for a mine, kill or use goal: the
        planners' recipe book knows blocks it does not build (dungeons' mossy cobblestone), and
        routes around them; `gives.holds(goal)`: what a mine goal wants held and kept (a water
        bucket, poured on lava for obsidian)."""
        from worlds.gridworld.coverage import gives

        return gives(self.kb)

    def has(self, name: str, count: int = 1) -> bool:
        shared = slot_count(self.env, self.i, name)  # lapis_lazuli: dye's one slot (metadata.py)
        return (shared if shared is not None else functional.bag_of(self.env, self.i).held(name)) >= count

    def target_reached(self) -> bool:
        return bool(self.target) and all(self.has(k, n) for k, n in self.target.items())

    def discard(self, items: dict[str, int]) -> None:
        """Remove held items (MP5's random drop)."""
        bag = functional.bag_of(self.env, self.i)
        for name, n in items.items():
            bag.take(name, n)
        functional.store_bag(self.env, self.i, bag)

    def time_of_day(self) -> str:
        return "night" if bool(self.env.night()[self.i]) else "day"

    def context_state(self) -> dict:
        """What MP5's context tasks ask: biome, day or night, weather (rain or clear), light
        (dark at night or under a roof), mobs and blocks within 2 cells,
        the block stood on, the depth."""
        env, i, v = self.env, self.i, self.env.vocab
        x, y, z = self.position
        r = 2
        box = env.cells[i, max(0, x - r) : x + r + 1, max(0, z - r) : z + r + 1, max(0, y - r) : y + r + 1]
        ids = [int(c) for c in np.unique(box)]  # cell names and the version's block names (tallgrass)
        blocks = sorted(({v.cells[c] for c in ids} | {b for b in (v.block_of[c] for c in ids) if b}) - {"air", "void"})
        near = (env.mob_kind[i] > 0) & (np.abs(env.mob_pos[i] - env.pos[i]) <= r).all(axis=1)
        mobs = sorted({v.mobs[k] for k in env.mob_kind[i][near]})
        below = int(env.cells[i, x, z, y - 1]) if y >= 1 else 1
        sky = not env.rules.solid[env.cells[i, x, z, y + 1 :]].any()
        dark = self.time_of_day() == "night" or not sky
        return {
            "biome": self.biome,
            "time_of_day": self.time_of_day(),
            "nearby_mobs": mobs,
            "brightness": "dark" if dark else "sufficient",
            "weather": env.weather_name(i),
            "nearby_blocks": blocks,
            "standing_on": v.cells[below],
            "y": y,
            "depth": max(0, int(game_data()["sea_level"]) - y),
        }

    def set_environment(self, time_of_day: Any = None, weather: str | None = None) -> None:
        """Set the time of day (a fraction of the day, "day" or "night") and the weather
        ("clear" or "rain") from now on: a context task's predetermined setting."""
        self.env.set_environment(self.i, time_of_day, weather)

    def sources(self, goal: Any) -> tuple[set[int], set[int]]:
        """(cell ids whose block gives the goal's item, mob ids that drop it or are it)."""
        from worlds.gridworld.sources import goal_sources

        return goal_sources(self.env, goal)

    def goal_distance(self, goal: Any) -> int:
        """Path steps (digging included, with the tools held) to a cell next to the nearest
        source of the goal's item, plus the steps to break or kill it; 0 for craft, smelt
        and equip (done where the agent stands); -1 when no source can be reached."""
        if goal.action in ("craft", "smelt", "equip"):
            return 0
        cells, mobs = self.sources(goal)
        from worlds.gridworld.ground import ground_items

        targets = paths.candidates(self.env, self.i, cells, mobs) + ground_items(self.env, self.i, next(iter(goal.obj)))
        if not targets:
            return -1
        terrain = paths.Terrain(self.env, self.i)
        found = paths.search(terrain, self.position, targets)
        if found is None:
            return -1
        _, cost, t = found
        c = terrain.cell(*t)
        hit = int(terrain.break_cost[c]) if terrain.breakable[c] else 3
        return int(cost + hit)

    def place(self, x: int, y: int, z: int, cell: str) -> None:
        v = self.env.vocab
        if cell not in v.cell_id:
            raise GridWorldError(f"unknown cell {cell!r}; accepted: {', '.join(v.cells)}")
        self.env.cells[self.i, x, z, y] = v.cell_id[cell]
        crops.adopt(self.env, self.i, (x, y, z))  # farmland or a crop: its slot (dry, age 0 or ripe)

    def spawn(self, mob: str, x: int, y: int, z: int) -> None:
        v = self.env.vocab
        if mob not in v.mob_id or mob == "none":
            raise GridWorldError(f"unknown mob {mob!r}; accepted: {', '.join(v.mobs[1:])}")
        self.env.add_mob(self.i, v.mob_id[mob], x, y, z)

    def render(self) -> str:
        return render(self.env, self.i)

    def facing_name(self) -> str:
        return FACINGS[int(self.env.facing[self.i])]


MOVE_IDS = tuple(PRIMITIVE_ID[m] for m in MOVES)
