"""The adapter's scripted controller for the body skills (mine, kill, use a held item on a
block or a mob), over MineDojo's observation only: the 3x3x3 voxels, the lidar rays
(sensors.py), the position, yaw and pitch, and the inventory.  It is a scripted
controller, declared as such, not a learned one (MineDojo's own learned controllers are
not shipped with its package).

One `Navigator.unit(...)` call drives MultiDiscrete actions until one unit is done (a
block broken with its drop held, a mob killed, a held item used), the unit's step budget
runs out, or it can tell that the unit cannot be done.  The strategy:
- a target cell face-adjacent to the agent's feet: turn to it and attack (or use);
- a target that a lidar ray hits (its traced block, or a mob the ray meets): walk to it,
  one axis at a time, digging through what blocks the way and jumping up single steps;
- an ore no ray can see: dig down to a depth where it generates (Minecraft 1.11.2's
  ranges, worlds/data/gridworld.yaml `ores`), then tunnel straight ahead;
- nothing seen: walk on, turning a quarter when blocked or after a while.
It is checked on the grid-world stand-in (standin.py), whose body is one cell tall; on the
real simulator the same actions are sent, but this controller has not been run there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import worlds.minedojo.actions as act
import worlds.minedojo.ids as ids
from worlds.gridworld.spec import game_data

AXES = {"south": (0, 1, 0.0), "west": (-1, 0, 90.0), "north": (0, -1, 180.0), "east": (1, 0, -90.0)}
WALK_TURN_EVERY = 40  # steps of wandering before a quarter turn
STUCK_STEPS = 25  # steps without getting closer before a target is given up


@dataclass
class Unit:
    """What one unit looks for: blocks by name, or mobs by name, and how it is done."""

    blocks: set[str] = field(default_factory=set)
    mobs: set[str] = field(default_factory=set)
    how: str = "attack"  # "attack" or "use" (a held bucket on water or a cow)
    depth: tuple[int, int] | None = None  # (lowest, highest) y where the block generates, if buried
    prefer: set[str] = field(default_factory=set)  # blocks taken first when a ray sees one


def ore_depths() -> dict[str, tuple[int, int]]:
    """Where buried blocks generate (worlds/data/gridworld.yaml, each with its source): the
    ores' y ranges, the nether quartz pockets, and stone everywhere below the sea level."""
    d = game_data()
    out = {"stone": (0, int(d["sea_level"]) - 2)}
    for o in d["ores"]:
        out[o["cell"]] = (int(o["y"][0]), int(o["y"][1]))
    q = d.get("quartz_pockets")
    if q:
        out["quartz_ore"] = (int(q["y"][0]), int(q["y"][1]))
    return out


def _wrap(deg: float) -> float:
    return (deg + 180.0) % 360.0 - 180.0


class Navigator:
    """Step a MineDojo-shaped env with body actions for one unit (see the module docstring)."""

    def __init__(self, send: Callable[[np.ndarray], tuple[dict, dict]], rng: np.random.Generator):
        self.send = send  # sends one action, returns (the next observation, the step's info)
        self.rng = rng
        self.heading = "south"
        self.walked = 0
        self.given_up: set[tuple[int, int, int]] = set()

    # ------------------------------------------------------------------ reading the observation
    @staticmethod
    def pos(obs: dict) -> tuple[int, int, int]:
        p = obs["location_stats"]["pos"]
        return int(np.floor(p[0])), int(np.floor(p[1])), int(np.floor(p[2]))

    @staticmethod
    def voxel(obs: dict, dx: int, dy: int, dz: int) -> str:
        return str(obs["voxels"]["block_name"][dx + 1, dy + 1, dz + 1])

    def free(self, obs: dict, dx: int, dy: int, dz: int) -> bool:
        return not bool(obs["voxels"]["blocks_movement"][dx + 1, dy + 1, dz + 1]) and not bool(
            obs["voxels"]["is_liquid"][dx + 1, dy + 1, dz + 1]
        )

    def seen(self, obs: dict, unit: Unit, strict: bool = False) -> tuple[int, int, int] | None:
        """The nearest target a lidar ray hits (block) or meets (mob), as a cell."""
        rays = obs["rays"]
        best, where = None, None
        x, y, z = self.pos(obs)
        for k in range(len(rays["block_name"])):
            wanted = unit.prefer if strict and unit.prefer else unit.blocks
            if wanted and str(rays["block_name"][k]) in wanted:
                c = (int(rays["traced_block_x"][k]), int(rays["traced_block_y"][k]), int(rays["traced_block_z"][k]))
                d = float(rays["block_distance"][k])
            elif unit.mobs and str(rays["entity_name"][k]) in unit.mobs:
                d = float(rays["entity_distance"][k])
                p, yw = float(rays["ray_pitch"][k]), float(rays["ray_yaw"][k])
                eye = np.array([x + 0.5, y + 0.5, z + 0.5])
                v = eye + d * np.array([-np.sin(yw) * np.cos(p), -np.sin(p), np.cos(yw) * np.cos(p)])
                c = (int(np.floor(v[0])), int(np.floor(v[1])), int(np.floor(v[2])))
            else:
                continue
            if c in self.given_up:
                continue
            rank = (bool(unit.prefer) and str(rays["block_name"][k]) not in unit.prefer, d)
            if best is None or rank < best:
                best, where = rank, c
        return where

    # ------------------------------------------------------------------ aiming
    @staticmethod
    def aim(obs: dict, pitch: float, yaw: float | None) -> tuple[float, float]:
        """Camera change (pitch, yaw) in degrees that looks at `pitch`, `yaw`."""
        p0 = float(obs["location_stats"]["pitch"][0])
        y0 = float(obs["location_stats"]["yaw"][0])
        return pitch - p0, (0.0 if yaw is None else _wrap(yaw - y0))

    def toward(self, obs: dict, d: tuple[int, int, int], fn: Callable[[], np.ndarray]) -> np.ndarray:
        """`fn`'s action with the camera turned to the face-adjacent offset d."""
        dx, dy, dz = d
        if dy:
            dp, dyaw = self.aim(obs, 90.0 if dy < 0 else -90.0, None)
        else:
            yaw = next(a[2] for a in AXES.values() if (a[0], a[1]) == (dx, dz))
            dp, dyaw = self.aim(obs, 0.0, yaw)
        a = fn()
        t = act.turn(dp, dyaw)
        a[3], a[4] = t[3], t[4]
        return a

    # ------------------------------------------------------------------ one step
    def adjacent_target(self, obs: dict, unit: Unit, goal: tuple[int, int, int] | None, strict: bool = False):
        wanted = unit.prefer if strict and unit.prefer else unit.blocks
        if wanted:
            for d in ((1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1), (0, -1, 0), (0, 1, 0)):
                if self.voxel(obs, *d) in wanted:
                    return d
        if goal is not None:
            x, y, z = self.pos(obs)
            d = (goal[0] - x, goal[1] - y, goal[2] - z)
            if sum(abs(c) for c in d) == 1:
                return d
        return None

    def walk_to(self, obs: dict, goal: tuple[int, int, int]) -> np.ndarray:
        x, y, z = self.pos(obs)
        dx, dy, dz = goal[0] - x, goal[1] - y, goal[2] - z
        if dx == 0 and dz == 0:
            return self.toward(obs, (0, -1 if dy < 0 else 1, 0), act.attack)
        if abs(dx) >= abs(dz):
            step = (int(np.sign(dx)), 0, 0)
        else:
            step = (0, 0, int(np.sign(dz)))
        return self.go(obs, step, climb=dy > 0)

    def go(self, obs: dict, step: tuple[int, int, int], climb: bool = False) -> np.ndarray:
        """One move along `step` (a horizontal unit offset): forward if free, a jump up one
        block, or dig the block in the way (never into a liquid)."""
        sx, _, sz = step
        if self.free(obs, sx, 0, sz):
            return self.toward(obs, step, act.forward)
        if self.voxel(obs, sx, 0, sz) in ("water", "lava", "flowing_water", "flowing_lava", "barrier", "bedrock"):
            self.turn_heading()
            return act.noop()
        if climb and self.free(obs, sx, 1, sz) and self.free(obs, 0, 1, 0):
            return self.toward(obs, step, lambda: act.forward(jump=True))
        return self.toward(obs, step, act.attack)

    def turn_heading(self) -> None:
        names = list(AXES)
        self.heading = names[(names.index(self.heading) + int(self.rng.choice([1, 3]))) % 4]
        self.walked = 0

    def wander(self, obs: dict, unit: Unit) -> np.ndarray:
        """No target in sight: dig down to the ore's depth, tunnel, or walk on the surface."""
        x, y, z = self.pos(obs)
        if unit.depth is not None and y > unit.depth[1] - 2:
            below = self.voxel(obs, 0, -1, 0)
            if below in ("water", "lava", "flowing_water", "flowing_lava", "bedrock"):
                return self.go(obs, (AXES[self.heading][0], 0, AXES[self.heading][1]))
            return self.toward(obs, (0, -1, 0), act.attack)
        self.walked += 1
        if self.walked >= WALK_TURN_EVERY:
            self.turn_heading()
        sx, sz = AXES[self.heading][0], AXES[self.heading][1]
        return self.go(obs, (sx, 0, sz), climb=unit.depth is None)

    def unit(
        self, obs: dict, unit: Unit, done: Callable[[dict, dict], bool], budget: int
    ) -> tuple[dict, bool, int, dict]:
        """Act until `done(obs, info)` (True), the budget is spent (False); (obs, ok, steps, info)."""
        goal, best, since = None, None, 0
        info: dict = {}
        for n in range(budget):
            strict = n < budget // 2  # the preferred blocks only, for the first half of the budget
            # a mob's place is read again every step, and only a mob seen there now is hit: one
            # that has walked on leaves an empty cell, which the agent would otherwise hit forever
            sighted = self.seen(obs, unit, strict) if unit.mobs else None
            if unit.mobs and goal is not None and goal == self.pos(obs):
                goal = None  # stood where it was last seen: look again
            adj = self.adjacent_target(obs, unit, sighted if unit.mobs else goal, strict)
            if adj is not None:
                a = self.toward(obs, adj, act.use if unit.how == "use" else act.attack)
            else:
                if goal is None or unit.mobs:  # a block target is kept until broken or given up
                    found = sighted if unit.mobs else self.seen(obs, unit, strict)
                    if found is not None and found != goal:
                        goal, best = found, (best if goal is not None and unit.mobs else None)
                if goal is not None:
                    x, y, z = self.pos(obs)
                    dist = abs(goal[0] - x) + abs(goal[1] - y) + abs(goal[2] - z)
                    if best is None or dist < best:
                        best, since = dist, 0
                    since += 1
                    if since > STUCK_STEPS:
                        self.given_up.add(goal)
                        goal = None
                        self.turn_heading()
                        a = act.noop()
                    else:
                        a = self.walk_to(obs, goal)
                else:
                    a = self.wander(obs, unit)
            obs, info = self.send(a)
            if done(obs, info):
                return obs, True, n + 1, info
            if goal is not None and adj is None and self.voxel_at(obs, goal) == "air" and unit.blocks:
                goal = None
        return obs, False, budget, info

    def voxel_at(self, obs: dict, cell: tuple[int, int, int]) -> str | None:
        x, y, z = self.pos(obs)
        d = (cell[0] - x, cell[1] - y, cell[2] - z)
        if all(abs(c) <= 1 for c in d):
            return self.voxel(obs, *d)
        return None


def unit_for(kb: Any, item: str) -> tuple[Unit | None, str | None, dict]:
    """What to look for to get one `item` by the mine skill: (unit, error, missing)."""
    sources = kb.sources_to_mine(item)
    depths = ore_depths()
    if sources:
        blocks = {s.block for s in sources}
        # MineDojo's masks test each item's first recipe only (planks: from `log`, not `log2`):
        # blocks whose drop some first recipe takes are looked for first
        firsts = {k for r in ids.data()["first_recipe"].values() for k in r["ingredients"]}
        prefer = {b for b in blocks if set(kb.block_drops(b)) & firsts}
        depth = None
        for b in blocks:
            if b in depths:
                lo, hi = depths[b]
                depth = (lo, min(hi, 60)) if depth is None else (min(depth[0], lo), max(depth[1], min(hi, 60)))
        return Unit(blocks=blocks, depth=depth, prefer=prefer if prefer != blocks else set()), None, {}
    ways = kb.interactions(item)
    if ways:
        w = ways[0]
        u = Unit(
            blocks={w.source} if w.on == "block" else set(),
            mobs={w.source} if w.on == "mob" else set(),
            how="use" if w.uses else "attack",
        )
        return u, None, {}
    return None, f"{item} cannot be mined (no natural block drops it)", {}


def tool_refusal(kb: Any, item: str, held: Callable[[str], bool]) -> tuple[str, dict] | None:
    """The text world's words when no held tool harvests any source of `item`."""
    sources = kb.sources_to_mine(item)
    if not sources:
        return None
    if any(s.harvested_with(held) for s in sources):
        return None
    s = min(sources, key=lambda s: s.tier)
    return f"needs {s.tool_need()} to mine {s.block}", {"tool": s.min_tool}
