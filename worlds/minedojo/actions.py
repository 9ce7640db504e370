"""The project's skills as MineDojo actions: MultiDiscrete([3,3,4,25,25,8,244,36]) arrays.

Functional skills map one to one onto MineDojo's functional actions with its own ids:
craft and smelt -> action 4 with the craft argument (worlds/data/minedojo.json's
`craft_smelt_items` order: planks 29, stick 41, crafting_table 7, wooden_pickaxe 219,
iron_ingot 239); equip, place, destroy -> actions 5, 6, 7 with the inventory slot that holds
the item.  Body actions (move, jump, turn the camera, attack, use) are what the scripted
navigator (navigator.py) sends for mine and kill.
"""

from __future__ import annotations

import numpy as np

from worlds.minedojo.ids import (
    ATTACK,
    CRAFT,
    CRAFT_ARG,
    DESTROY,
    EQUIP,
    FN,
    JUMP,
    MOVE,
    PITCH,
    PLACE,
    SLOT_ARG,
    USE,
    YAW,
    MineDojoError,
    craft_index,
    data,
    obs_name,
    to_minedojo,
)


def noop() -> np.ndarray:
    return np.array(data()["action_noop"], np.int64)


def craft(item: str) -> np.ndarray:
    """Craft (or smelt: MineDojo has one action for both) one batch of `item`."""
    i = craft_index().get(item)
    if i is None:
        raise MineDojoError(
            f"MineDojo cannot craft or smelt {item!r}; accepted: one of its "
            f"{len(craft_index())} craft/smelt items (worlds/data/minedojo.json)"
        )
    a = noop()
    a[FN], a[CRAFT_ARG] = CRAFT, i
    return a


def slot_of(inventory: dict, item: str) -> int | None:
    """The first slot of the inventory observation holding `item` (MineDojo writes
    'crafting table'; a variant such as bone_meal is dye with variant 15)."""
    md, variant = to_minedojo(item)
    want = obs_name(md)
    for s, (n, v) in enumerate(zip(inventory["name"], inventory["variant"])):
        if str(n) == want and int(v) == variant:
            return s
    return None


def _slot_action(fn: int, inventory: dict, item: str) -> np.ndarray:
    s = slot_of(inventory, item)
    if s is None:
        raise MineDojoError(f"no inventory slot holds {item}")
    a = noop()
    a[FN], a[SLOT_ARG] = fn, s
    return a


def equip(inventory: dict, item: str) -> np.ndarray:
    return _slot_action(EQUIP, inventory, item)


def place(inventory: dict, item: str) -> np.ndarray:
    return _slot_action(PLACE, inventory, item)


def destroy(inventory: dict, item: str) -> np.ndarray:
    return _slot_action(DESTROY, inventory, item)


def attack() -> np.ndarray:
    a = noop()
    a[FN] = ATTACK
    return a


def use() -> np.ndarray:
    a = noop()
    a[FN] = USE
    return a


def forward(jump: bool = False) -> np.ndarray:
    a = noop()
    a[MOVE] = 1
    if jump:
        a[JUMP] = 1
    return a


def turn(d_pitch: float = 0.0, d_yaw: float = 0.0) -> np.ndarray:
    """A camera turn by whole 15-degree bins (MineDojo's discretisation): pitch + looks down."""
    a = noop()
    step = float(data()["camera_interval"])
    mid_p, mid_y = a[PITCH], a[YAW]
    a[PITCH] = int(np.clip(mid_p + round(d_pitch / step), 0, data()["action_nvec"][PITCH] - 1))
    a[YAW] = int(np.clip(mid_y + round(d_yaw / step), 0, data()["action_nvec"][YAW] - 1))
    return a


def camera_delta(action) -> tuple[float, float]:
    """(pitch, yaw) degrees an action turns the camera by."""
    step = float(data()["camera_interval"])
    mid = data()["action_noop"]
    return (int(action[PITCH]) - mid[PITCH]) * step, (int(action[YAW]) - mid[YAW]) * step
