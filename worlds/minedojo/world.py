"""MineDojoWorld: the `World` protocol (worlds/base.py) over a MineDojo environment, the
real simulator or the stand-in (standin.py); both speak gym 0.21 (`reset() -> obs`,
`step(a) -> (obs, reward, done, info)`) with MineDojo's observation dict and actions.

`step({"action": skill, "item": x})` plays one unit of the skill as MineDojo actions:
- craft, smelt: MineDojo's craft action (4) with its own id of the item; a recipe that
  MineDojo makes at a table or in a furnace first places one that is held (place, 6);
- equip: the equip action (5) with the slot that holds the item;
- mine, kill: the scripted navigator (navigator.py) over the observation;
- place (MineDojo's own functional action, not a planner skill): the place action.
Every action is checked against MineDojo's masks before it is sent (ids.mask_refusal);
a refusal is the failure's cause.  The knowledge base's rules (worlds/inventory.py's Bag,
the text world's) give the precise cause before acting, in the text world's words.
`info["cost"]` counts the MineDojo steps a unit used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import worlds.minedojo.actions as act
import worlds.minedojo.ids as ids
from worlds.inventory import Bag, Refusal
from worlds.minedojo.navigator import Navigator, Unit, tool_refusal, unit_for
from worlds.types import ACTIONS

SKILLS = ACTIONS + ("place",)
UNIT_BUDGET = 600  # MineDojo steps one mine or kill unit may use before it is given up


class MineDojoWorld:
    observation_space = {
        "obs": "MineDojo's observation dict (inventory, equipment, voxels, rays, "
        "location_stats, life_stats, nearby_tools, masks, rgb)"
    }
    action_space = {
        "action": SKILLS,
        "item": "an item (or a mob for kill), MineDojo's 1.11.2 names",
        "fuel": "optional, for smelt (the stand-in burns it; MineDojo picks its own)",
    }

    def __init__(
        self,
        env: Any,
        kb: Any,
        *,
        allowed_skills: set[str] | None = None,
        unit_budget: int = UNIT_BUDGET,
        observer: Callable[[dict, np.ndarray], None] | None = None,
    ):
        if allowed_skills:
            bad = sorted(set(allowed_skills) - set(ACTIONS))
            if bad:
                raise ValueError(f"unknown skill(s) {', '.join(bad)}; accepted: {', '.join(ACTIONS)}")
        self.env, self.kb = env, kb
        self.allowed = set(allowed_skills) if allowed_skills else set(ACTIONS)
        self.unit_budget = int(unit_budget)
        self.observer = observer
        self.steps, self.max_steps = 0, 12000
        self.target: dict[str, int] = {}
        self.obs: dict = {}
        self.reached = False
        self.last_error: str | None = None
        self.placed: dict[str, tuple[int, int, int]] = {}  # stations placed by the unit under way
        self.nav = Navigator(self._send, np.random.default_rng(0))

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        o = dict(options or {})
        self.max_steps = int(o.get("max_steps") or 12000)
        self.target = {}
        for name, n in (o.get("target") or {}).items():
            canon = self.kb.canonical(name)
            if canon is None:
                raise ids.MineDojoError(f"unknown item {name!r} in the target")
            self.target[canon] = int(n)
        if hasattr(self.env, "grid"):  # the stand-in takes the episode's options
            self.obs = self.env.reset(seed=seed, options=o)
        else:  # the real simulator took them in minedojo.make
            self.obs = self.env.reset()
        self.steps, self.reached = 0, False
        self.nav = Navigator(self._send, np.random.default_rng(0 if seed is None else seed))
        return self.obs, {"ok": True, "error": None, "cost": 0, "gained": {}, "missing": {}}

    def _send(self, a: np.ndarray) -> tuple[dict, dict]:
        if self.observer is not None:
            self.observer(self.obs, a)
        obs, _, _, info = self.env.step(a)
        info = dict(info or {})
        self.steps += max(1, int(info.get("cost", 1)))  # the stand-in reports the grid world's time (a smelt: 40)
        self.obs = obs
        self.last_error = info.get("error")
        return obs, info

    def step(self, action: dict) -> tuple[dict, float, bool, bool, dict]:
        name = action.get("action") if isinstance(action, dict) else None
        if name not in SKILLS:
            return self._result(False, f"unknown action {name!r} (accepted: {', '.join(SKILLS)})", {}, {}, 0)
        if name in ACTIONS and name not in self.allowed:
            return self._result(
                False, f"skill '{name}' is not allowed here (allowed: {', '.join(sorted(self.allowed))})", {}, {}, 0
            )
        raw = action.get("item")
        item = self.kb.canonical(str(raw)) if raw is not None else None
        if name == "kill" and raw is not None and self.kb.is_mob(str(raw)):
            from worlds.knowledge import normalize

            item = normalize(str(raw))
        if item is None:
            return self._result(False, f"unknown {'mob or item' if name == 'kill' else 'item'} '{raw}'", {}, {}, 0)
        if self.steps >= self.max_steps:
            return self._result(False, f"ran out of environment steps ({self.max_steps})", {}, {}, 0)
        before, s0 = dict(self.inventory), self.steps
        ok, error, missing = getattr(self, "_" + name)(item, action)
        after = self.inventory
        gained = {k: n - before.get(k, 0) for k, n in after.items() if n > before.get(k, 0)}
        return self._result(ok, error, gained, missing, self.steps - s0)

    def _result(self, ok: bool, error: str | None, gained: dict, missing: dict, cost: int):
        reward = 0.0
        if not self.reached and self.target_reached():
            self.reached, reward = True, 1.0
        info = {"ok": ok, "error": error, "cost": cost, "gained": gained, "missing": missing, "chance": False}
        return self.obs, reward, self.reached, self.steps >= self.max_steps, info

    # ------------------------------------------------------------------ read-outs
    @property
    def inventory(self) -> dict[str, int]:
        inv: dict[str, int] = {}
        if not self.obs:
            return inv
        inv_obs = self.obs["inventory"]
        for n, q, v in zip(inv_obs["name"], inv_obs["quantity"], inv_obs["variant"]):
            if str(n) != "air" and q > 0:
                k = ids.from_minedojo(str(n), int(v))
                inv[k] = inv.get(k, 0) + int(q)
        return inv

    @property
    def equipment(self) -> dict[str, str]:
        if not self.obs:
            return {}
        slots = ids.data()["equipment_slots"]
        eq = self.obs["equipment"]
        return {
            s: ids.from_minedojo(str(n), int(v)) for s, n, v in zip(slots, eq["name"], eq["variant"]) if str(n) != "air"
        }

    def held(self, name: str) -> int:
        worn = [it for s, it in self.equipment.items() if s != "mainhand"]  # the main hand is inventory slot 0
        pool = dict(self.inventory)
        for it in worn:
            pool[it] = pool.get(it, 0) + 1
        return self.kb.count(pool, name)

    def has(self, name: str, count: int = 1) -> bool:
        return self.held(name) >= count

    def target_reached(self) -> bool:
        return bool(self.target) and all(self.has(k, n) for k, n in self.target.items())

    def _bag(self) -> Bag:
        bag = Bag(self.kb)
        bag.items = dict(self.inventory)
        bag.equipment = {s: it for s, it in self.equipment.items() if s != "mainhand"}
        bag.fuel_credit = float(getattr(self.env, "fuel_credit", 0.0))
        return bag

    def _names(self) -> dict:
        """The inventory observation (names and variants), which actions.slot_of reads."""
        return self.obs["inventory"]

    def _nothing(self, what: str) -> str:
        """A sent action that changed nothing: the simulator's own words when it gave any."""
        return f"{what} did nothing" + (f" ({self.last_error})" if self.last_error else "")

    def _checked(self, a: np.ndarray) -> str | None:
        """Send `a` if MineDojo's masks allow it now; else why not."""
        why = ids.mask_refusal(a, self.obs["masks"])
        if why is None:
            self._send(a)
        return why

    # ------------------------------------------------------------------ functional skills
    def _place(self, item: str, action: dict | None = None) -> tuple[bool, str | None, dict]:
        if act.slot_of(self._names(), item) is None:
            return False, f"cannot place {item}: needs 1 {item}, has 0", {item: 1}
        nothing = None
        for d in ((1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1), (0, 1, 0)):  # beside, else overhead (a shaft)
            if self.nav.free(self.obs, *d) and self.nav.voxel(self.obs, *d) == "air":
                n0 = self.held(item)
                why = self._checked(self.nav.toward(self.obs, d, lambda: act.place(self._names(), item)))
                if why:
                    return False, why, {}
                if self.held(item) >= n0:  # a mob stands there (the voxels show blocks only): the next cell
                    nothing = self._nothing(f"placing {item}")
                    continue
                x, y, z = self.nav.pos(self.obs)
                self.placed[item] = (x + d[0], y + d[1], z + d[2])
                return True, None, {}
        return False, nothing or f"cannot place {item}: no free cell next to the agent", {}

    def _station(self, kind: str) -> tuple[bool, str | None, dict]:
        """A table or furnace within reach: placed from the inventory when held."""
        key, block = ("table", "crafting_table") if kind == "table" else ("furnace", "furnace")
        if bool(self.obs["nearby_tools"][key]):
            return True, None, {}
        return self._place(block)

    def _craft(self, item: str, action: dict) -> tuple[bool, str | None, dict]:
        try:
            kind = ids.craft_kind(item)
        except ids.MineDojoError as e:
            return False, str(e), {}
        if kind == "smelt":
            return (
                False,
                f"{item} is smelted, not crafted (MineDojo's craft id {ids.craft_index()[item]} is a "
                "furnace recipe); use smelt",
                {},
            )
        return self._make(item, kind, lambda bag, near: bag.plan_craft(item, near))

    def _smelt(self, item: str, action: dict) -> tuple[bool, str | None, dict]:
        try:
            kind = ids.craft_kind(item)
        except ids.MineDojoError as e:
            return False, str(e), {}
        if kind != "smelt":
            return False, f"{item} is crafted, not smelted (no furnace recipe in MineDojo's ids); use craft", {}
        fuel = self.kb.canonical(action["fuel"]) if action.get("fuel") else None
        return self._make(item, kind, lambda bag, near: bag.plan_smelt(item, near, fuel))

    def _make(self, item: str, kind: str, plan: Callable[[Bag, bool], Any]) -> tuple[bool, str | None, dict]:
        station = {"table": ("table", "crafting_table"), "smelt": ("furnace", "furnace")}.get(kind)
        near = True
        if station:
            near = bool(self.obs["nearby_tools"][station[0]]) or self.has(station[1])
        r = plan(self._bag(), near)
        if isinstance(r, Refusal):
            return False, r.error, dict(r.missing)
        self.placed = {}
        if station:
            ok, error, missing = self._station(station[0])
            if not ok:
                return False, error, missing
        n0 = self.held(item)
        why = self._checked(act.craft(item))
        for block in list(self.placed):
            self._take_back(block)
        if why:
            need = ids.data()["first_recipe"][item]["ingredients"]
            return False, f"{why} (MineDojo's recipe for it: {need})", {}
        return (True, None, {}) if self.held(item) > n0 else (False, self._nothing(f"making {item}"), {})

    def _take_back(self, block: str, budget: int = 80) -> None:
        """Break a station this unit placed so that it is held again, as the text world keeps it
        (a table left behind is out of reach once the agent has dug down); only when a held tool
        makes it drop itself (a furnace needs a pickaxe)."""
        cell = self.placed.pop(block, None)
        tools = self.kb.harvest_tools(block)
        if cell is None or (tools is not None and not any(self.has(t) for t in tools)):
            return
        n0 = self.held(block)
        for _ in range(budget):
            x, y, z = self.nav.pos(self.obs)
            d = (cell[0] - x, cell[1] - y, cell[2] - z)
            if sum(abs(c) for c in d) != 1 or self.steps >= self.max_steps or self.held(block) > n0:
                return
            self._send(self.nav.toward(self.obs, d, act.attack))

    def _equip(self, item: str, action: dict) -> tuple[bool, str | None, dict]:
        if item in self.equipment.values():
            return True, None, {}
        r = self._bag().plan_equip(item)
        if isinstance(r, Refusal):
            return False, r.error, dict(r.missing)
        held = r
        why = self._checked(act.equip(self._names(), held))
        if why:
            return False, why, {}
        return (True, None, {}) if held in self.equipment.values() else (False, self._nothing(f"equipping {held}"), {})

    # ------------------------------------------------------------------ body skills (navigator.py)
    def _budget(self) -> int:
        return max(0, min(self.unit_budget, self.max_steps - self.steps))

    def _mine(self, item: str, action: dict) -> tuple[bool, str | None, dict]:
        why = tool_refusal(self.kb, item, self.has)
        if why:
            return False, why[0], why[1]
        unit, error, missing = unit_for(self.kb, item)
        if unit is None:
            return False, error, missing
        if unit.how == "use":
            way = self.kb.interactions(item)[0]
            if not self.has(way.uses):
                return False, f"needs a {way.uses} to get {item} from {way.where()}", {way.uses: 1}
            ok, error, missing = self._hold(way.uses)
            if not ok:
                return False, error, missing
        drops = set(self.kb.variants(item) or [item])
        if item in self.kb.blocks() and not self.kb.mine_sources(item):
            drops |= set(self.kb.block_drops(item))  # "mine stone": its cobblestone counts
        start = {k: self.held(k) for k in drops}
        done = lambda obs, info: any(self.held(k) > start[k] for k in drops)  # noqa: E731
        _, ok, used, _ = self.nav.unit(self.obs, unit, done, self._budget())
        if ok:
            return True, None, {}
        if self.steps >= self.max_steps:
            return False, f"ran out of environment steps ({self.max_steps})", {}
        where = ", ".join(sorted(unit.blocks | unit.mobs))
        return False, f"found no {where} to get {item} from within {used} steps", {}

    def _hold(self, item: str) -> tuple[bool, str | None, dict]:
        """Put `item` in the main hand (inventory slot 0) by MineDojo's equip action."""
        if act.slot_of(self._names(), item) == 0:
            return True, None, {}
        why = self._checked(act.equip(self._names(), item))
        return (False, why, {}) if why else (True, None, {})

    def _kill(self, item: str, action: dict) -> tuple[bool, str | None, dict]:
        kb = self.kb
        mobs = {item} if kb.is_mob(item) else set(kb.mob_sources(item))
        if not mobs:
            return False, f"no mob is or drops {item}", {}
        wanted = set(kb.variants(item) or [item]) if not kb.is_mob(item) else {d for m in mobs for d in kb.mob_drops(m)}
        start = {k: self.held(k) for k in wanted}
        done = lambda obs, info: bool(info.get("killed")) or any(self.held(k) > start[k] for k in wanted)  # noqa: E731
        _, ok, used, _ = self.nav.unit(self.obs, Unit(mobs=mobs), done, self._budget())
        if ok:
            return True, None, {}
        if self.steps >= self.max_steps:
            return False, f"ran out of environment steps ({self.max_steps})", {}
        return False, f"found no {', '.join(sorted(mobs))} to kill within {used} steps", {}
