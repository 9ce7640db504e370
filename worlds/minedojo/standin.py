"""The project's stand-in for MineDojo's simulator: the grid world (worlds/gridworld/)
behind MineDojo's observation dict and MultiDiscrete action arrays.

It is NOT MineDojo: no Minecraft runs, the image is blank, and the body is the grid
world's (one cell tall, one cell per move, blocks broken after the grid world's break
times).  What it keeps exactly is MineDojo's interface: `step(action)` takes the eight
numbers of MultiDiscrete([3,3,4,25,25,8,244,36]) and returns gym 0.21's
(obs, reward, done, info); `obs` has MineDojo's keys, shapes and dtypes for the adapter's
configuration (worlds/minedojo/sensors.py), the inventory as 36 named slots, and the
masks computed by MineDojo's rule (ids.masks).  tests/test_minedojo.py checks every
observation and action against the objects the real `minedojo` package builds.

How an action is played: the camera turn first (free, as in MineDojo), then ONE grid
primitive: the functional action if there is one (attack, use, craft/smelt, equip,
place, destroy, drop), else the movement (forward, with jump: the grid world's jump onto
the faced block; back and strafe: a step that way).  The grid world faces down when the
pitch is 45 degrees or more down, up when 45 or more up, else the nearest of the four
compass directions of the yaw (Minecraft's yaw: 0 south, 90 west, 180 north, -90 east).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import worlds.minedojo.ids as ids
from worlds.gridworld import functional
from worlds.gridworld.spec import EQUIP_SLOTS, FACINGS
from worlds.gridworld.world import GridWorld
from worlds.minedojo.actions import camera_delta
from worlds.minedojo.sensors import IMAGE_SIZE, RAYS

COMPASS = {0: "south", 90: "west", 180: "north", -180: "north", -90: "east"}
STEP = {"south": (0, 1), "north": (0, -1), "east": (1, 0), "west": (-1, 0)}
RAY_STEP = 0.2


def compass(yaw: float) -> str:
    return COMPASS[int(round(((yaw + 180) % 360 - 180) / 90.0)) * 90]


class StandinSim:
    """A MineDojo-shaped simulator over one grid world (see the module docstring)."""

    def __init__(
        self,
        kb: Any,
        *,
        size: tuple[int, int] | None = None,
        biome: str | None = None,
        image_size: tuple[int, int] = IMAGE_SIZE,
        rays: tuple = RAYS,
    ):
        self.grid = GridWorld(kb, size=size, biome=biome)
        self.kb = kb
        self.rays = np.array(rays, np.float64).reshape(-1, 3)
        self.rgb = np.zeros((3, *image_size), np.uint8)
        self.yaw, self.pitch = 0.0, 0.0
        self.slots: list[tuple[str, int] | None] = [None] * ids.data()["n_inv_slots"]
        self.last_info: dict = {}
        env = self.grid.env
        v = env.vocab
        self._names = np.array([("air" if b is None else b) for b in v.block_of], dtype=object)
        self._names[1] = "barrier"  # outside the map: an unbreakable wall, as the grid world treats it
        self._mob_names = np.array(v.mobs, dtype=object)

    # ------------------------------------------------------------------ gym 0.21 API
    def reset(self, seed: int | None = None, options: dict | None = None) -> dict:
        self.grid.reset(seed=seed, options=options)
        self.yaw, self.pitch = 0.0, 0.0
        self.slots = [None] * len(self.slots)
        self.last_info = {}
        self._face()
        return self.observation()

    def step(self, action: Any) -> tuple[dict, float, bool, dict]:
        a = [int(x) for x in np.asarray(action).reshape(-1)]
        if not ids.action_valid(np.asarray(a)):
            raise ids.MineDojoError(f"action {a} is not in MultiDiscrete({ids.data()['action_nvec']})")
        dp, dy = camera_delta(a)
        self.pitch = float(np.clip(self.pitch + dp, -90.0, 90.0))
        self.yaw = float((self.yaw + dy + 180.0) % 360.0 - 180.0)
        self._face()
        grid_action = self._primitive(a)
        if grid_action is None:
            grid_action = {"action": "noop"}
        _, reward, term, trunc, info = self.grid.step(grid_action)
        self._face()
        self.last_info = {**info, "action": grid_action["action"]}
        return self.observation(), reward, bool(term or trunc), dict(info)

    @property
    def fuel_credit(self) -> float:
        """Items the furnace can still smelt on fuel already burnt (the grid world's rule)."""
        return float(self.grid.env.fuel[self.grid.i])

    # ------------------------------------------------------------------ actions
    def _face(self) -> None:
        if self.pitch >= 45:
            f = "down"
        elif self.pitch <= -45:
            f = "up"
        else:
            f = compass(self.yaw)
        self.grid.env.facing[self.grid.i] = FACINGS.index(f)

    def _slot_item(self, s: int) -> str | None:
        it = self.slots[s]
        return it[0] if it else None

    def _primitive(self, a: list[int]) -> dict | None:
        fn = a[ids.FN]
        if fn == ids.ATTACK:
            return {"action": "attack"}
        if fn == ids.USE:
            held = self.grid.equipment.get("mainhand")
            return {"action": "use", "item": held} if held else None
        if fn == ids.CRAFT:
            item = ids.data()["craft_smelt_items"][a[ids.CRAFT_ARG]]
            return {"action": "smelt" if ids.craft_kind(item) == "smelt" else "craft", "item": item}
        if fn in (ids.EQUIP, ids.PLACE, ids.DESTROY, ids.DROP):
            s = 0 if fn == ids.DROP else a[ids.SLOT_ARG]
            item = self._slot_item(s)
            if item is None:
                return None
            if fn == ids.EQUIP:
                return {"action": "equip", "item": item}
            if fn == ids.PLACE:
                return {"action": "use", "item": item}
            self._remove(s, 1 if fn == ids.DROP else None)
            return None
        move = self._move(a)
        return {"action": move} if move else None

    def _move(self, a: list[int]) -> str | None:
        ahead = compass(self.yaw)
        if a[ids.MOVE] == 1:
            return "jump" if a[ids.JUMP] == 1 else f"move_{ahead}"
        order = ["south", "west", "north", "east"]  # yaw +90 each
        k = order.index(ahead)
        if a[ids.MOVE] == 2:
            return f"move_{order[(k + 2) % 4]}"
        if a[ids.STRAFE] in (1, 2):
            return f"move_{order[(k + (1 if a[ids.STRAFE] == 1 else 3)) % 4]}"
        return None

    def _remove(self, s: int, n: int | None) -> None:
        item = self._slot_item(s)
        if item is None:
            return
        env, i = self.grid.env, self.grid.i
        if s == 0 and self.grid.equipment.get("mainhand") == item:
            env.equip[i, EQUIP_SLOTS.index("mainhand")] = 0
            return
        slot = self.slots[s]
        assert slot is not None  # _slot_item found an item in it
        held = slot[1]
        self.grid.discard({item: held if n is None else min(n, held)})

    # ------------------------------------------------------------------ observation
    def _layout_slots(self) -> None:
        """Keep each held item in the slot it had; new ones take the first free slot (1..35);
        slot 0 (the main hand) shows what the grid world holds in its main hand."""
        d = ids.data()
        left = dict(self.grid.inventory)
        new: list[tuple[str, int] | None] = [None] * len(self.slots)
        main = self.grid.equipment.get("mainhand")
        if main:
            new[0] = (main, 1)
        for s in range(1, len(self.slots)):
            it = self.slots[s]
            if it and left.get(it[0], 0) > 0:
                k = min(left[it[0]], d["stack_size"].get(it[0], 64))
                new[s] = (it[0], k)
                left[it[0]] -= k
        free = [s for s in range(1, len(self.slots)) if new[s] is None]
        for name in sorted(left):
            while left[name] > 0 and free:
                k = min(left[name], d["stack_size"].get(name, 64))
                new[free.pop(0)] = (name, k)
                left[name] -= k
        self.slots = new

    def _stacks(self, entries: list[tuple[str, int] | None]) -> dict:
        n = len(entries)
        md = [ids.to_minedojo(e[0]) if e else ("air", 0) for e in entries]
        names = np.array([ids.obs_name(m[0]) for m in md])
        qty = np.array([e[1] if e else 0 for e in entries], np.float32)
        return {
            "name": names,
            "quantity": qty,
            "variant": np.array([m[1] for m in md], np.int64),
            "cur_durability": np.zeros(n, np.float32),
            "max_durability": np.zeros(n, np.float32),
        }

    def observation(self) -> dict:
        self._layout_slots()
        g, env, i = self.grid, self.grid.env, self.grid.i
        inventory = self._stacks(self.slots)
        eq = g.equipment
        equipment = self._stacks([(eq[s], 1) if s in eq else None for s in ids.data()["equipment_slots"]])
        x, y, z = g.position
        table = functional.within_reach(env, i, "crafting_table")
        furnace = functional.within_reach(env, i, "furnace")
        night = g.time_of_day() == "night"
        f1 = np.float32
        obs = {
            "rgb": self.rgb,
            "inventory": inventory,
            "equipment": equipment,
            "voxels": self._voxels(x, y, z),
            "rays": self._lidar(x, y, z),
            "location_stats": {
                "pos": np.array([x + 0.5, y, z + 0.5], f1),
                "yaw": np.array([self.yaw], f1),
                "pitch": np.array([self.pitch], f1),
                "biome_id": np.int64(ids.data()["biomes"].get(g.biome, 1)),
                "rainfall": np.array([0.4], f1),
                "temperature": np.array([0.8], f1),
                "can_see_sky": np.int64(not env.rules.solid[env.cells[i, x, z, y + 1 :]].any()),
                "is_raining": np.int64(0),
                "light_level": np.array([4.0 if night else 15.0], f1),
                "sky_light_level": np.array([0.2 if night else 1.0], f1),
                "sun_brightness": np.array([0.2 if night else 1.0], f1),
                "sea_level": np.array([62.0], f1),
            },
            "life_stats": {
                "life": np.array([float(env.health[i])], f1),
                "food": np.array([20.0], f1),
                "saturation": np.array([5.0], f1),
                "oxygen": np.array([300.0], f1),
                "armor": np.array([0.0], f1),
                "xp": np.array([0.0], f1),
                "is_sleeping": np.int64(0),
            },
            "nearby_tools": {"table": np.bool_(table), "furnace": np.bool_(furnace)},
            "damage_source": self._no_damage(),
            "delta_inv": self._delta(),
        }
        obs["masks"] = ids.masks(inventory, table, furnace)
        return obs

    def _voxels(self, x: int, y: int, z: int) -> dict:
        env, i = self.grid.env, self.grid.i
        off = np.array([-1, 0, 1])
        X, Y, Z = np.meshgrid(x + off, y + off, z + off, indexing="ij")  # MineDojo's (x, y, z) order
        pts = np.stack([X.ravel(), Y.ravel(), Z.ravel()], 1)
        cells = env.cells_at(np.full(len(pts), i), pts).reshape(3, 3, 3)
        r = env.rules
        solid = r.solid[cells]
        return {
            "block_name": self._names[cells].astype(str),
            "block_meta": np.zeros((3, 3, 3), np.int64),
            "is_collidable": solid.copy(),
            "is_tool_not_required": ~r.needs_tool[cells],
            "blocks_movement": solid.copy(),
            "is_liquid": r.liquid[cells].copy(),
            "is_solid": solid.copy(),
            "can_burn": np.zeros((3, 3, 3), bool),
            "blocks_light": solid.copy(),
            "cos_look_vec_angle": np.zeros((3, 3, 3), np.float32),
        }

    def _lidar(self, x: int, y: int, z: int) -> dict:
        """Each ray marched from the eye (the middle of the agent's cell) in RAY_STEP steps:
        the first cell that is not air is its block, the first mob met its entity."""
        env, i = self.grid.env, self.grid.i
        r = env.rules
        n = len(self.rays)
        pitch = np.radians(self.pitch) + self.rays[:, 0]
        yaw = np.radians(self.yaw) + self.rays[:, 1]
        d = np.stack([-np.sin(yaw) * np.cos(pitch), -np.sin(pitch), np.cos(yaw) * np.cos(pitch)], 1)
        ts = np.arange(RAY_STEP, float(self.rays[:, 2].max()) + 1e-9, RAY_STEP)
        eye = np.array([x + 0.5, y + 0.5, z + 0.5])
        pts = np.floor(eye[None, None, :] + ts[None, :, None] * d[:, None, :]).astype(np.int64)  # [n, T, 3]
        flat = pts.reshape(-1, 3)
        cells = env.cells_at(np.full(len(flat), i), flat).reshape(n, len(ts))
        within = ts[None, :] <= self.rays[:, 2:3]
        hit = (cells != 0) & within
        first = np.where(hit.any(1), hit.argmax(1), -1)
        mob_grid = np.zeros((n, len(ts)), np.int64)
        for kind, p in zip(env.mob_kind[i], env.mob_pos[i]):
            if kind:
                mob_grid[(pts == p).all(2) & within & (mob_grid == 0)] = int(kind)
        mob_first = np.where((mob_grid > 0).any(1), (mob_grid > 0).argmax(1), -1)
        rows = np.arange(n)
        got = first >= 0
        cell = np.where(got, cells[rows, np.maximum(first, 0)], 0)
        traced = pts[rows, np.maximum(first, 0)].astype(np.float32)
        ent = mob_first >= 0
        return {
            "block_name": np.where(got, self._names[cell], "air").astype(str),
            "block_distance": np.where(got, ts[np.maximum(first, 0)], -1).astype(np.float32),
            "block_meta": np.zeros(n, np.int64),
            "harvest_level": np.zeros(n, np.int64),
            "is_tool_not_required": ~r.needs_tool[cell],
            "blocks_movement": r.solid[cell].copy(),
            "is_liquid": r.liquid[cell].copy(),
            "is_solid": r.solid[cell].copy(),
            "can_burn": np.zeros(n, bool),
            "entity_name": np.where(ent, self._mob_names[mob_grid[rows, np.maximum(mob_first, 0)]], "null").astype(str),
            "entity_distance": np.where(ent, ts[np.maximum(mob_first, 0)], -1).astype(np.float32),
            "ray_pitch": pitch.astype(np.float32),
            "ray_yaw": yaw.astype(np.float32),
            "traced_block_x": np.where(got, traced[:, 0], 0).astype(np.float32),
            "traced_block_y": np.where(got, traced[:, 1], 0).astype(np.float32),
            "traced_block_z": np.where(got, traced[:, 2], 0).astype(np.float32),
        }

    @staticmethod
    def _no_damage() -> dict:
        z = np.zeros(1, np.float32)
        f = np.bool_(False)
        return {
            "damage_amount": z,
            "damage_distance": z.copy(),
            "damage_pitch": z.copy(),
            "damage_yaw": z.copy(),
            "hunger_damage": z.copy(),
            "is_explosion": f,
            "is_fire_damage": f,
            "is_magic_damage": f,
            "is_projectile": f,
            "is_unblockable": f,
        }

    def _delta(self) -> dict:
        """MineDojo's DeltaInventoryWrapper keys: what the last step added and removed."""
        gained = dict(self.last_info.get("gained") or {})
        crafted = self.last_info.get("ok") and str(self.last_info.get("action", "")) in ("craft", "smelt")
        inc = next(iter(gained.items()), ("air", 0))
        none4 = np.array(["air"] * 4)
        return {
            "inc_name_by_craft": np.array([ids.obs_name(inc[0]) if crafted else "air"]),
            "inc_quantity_by_craft": np.array([inc[1] if crafted else 0], np.float32),
            "inc_name_by_other": np.array([ids.obs_name(inc[0]) if not crafted else "air"]),
            "inc_quantity_by_other": np.array([inc[1] if not crafted else 0], np.float32),
            "dec_name_by_craft": none4,
            "dec_quantity_by_craft": np.zeros(4, np.float32),
            "dec_name_by_other": none4.copy(),
            "dec_quantity_by_other": np.zeros(4, np.float32),
        }
