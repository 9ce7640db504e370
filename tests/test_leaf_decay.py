"""Leaf decay (worlds/gridworld/decay.py) and items on the ground (ground.py): a felled oak's
leaves decay and drop their saplings and apples, which fall and are picked up, and the
apple expert farms them the players' way."""

from __future__ import annotations

import numpy as np
import pytest

from worlds.gridworld import decay, ground
from worlds.gridworld.generation import CANOPY, canopy_leaves
from worlds.gridworld.sources import felling_sources
from worlds.gridworld.spec import game_data
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def tree(x: int, z: int, ground_y: int = 64, h: int = 5, kind: str = "oak") -> list[list]:
    """An oak as the generator grows one (generation.py's CANOPY), trunk on the ground at (x, z)."""
    t = game_data()["trees"][kind]
    top = ground_y + h
    out = [
        [x + dx, top + dy, z + dz, t["leaves"]]
        for dy, r in CANOPY
        for dx in range(-r, r + 1)
        for dz in range(-r, r + 1)
        if (dx, dz) != (0, 0) or dy > 0
    ]
    return out + [[x, y, z, t["log"]] for y in range(ground_y + 1, top + 1)]


def _world(kb, blocks, agent=(4, 65, 4)) -> GridWorld:
    w = GridWorld(kb, size=(32, 32))
    w.reset(seed=0, options={"layout": {"ground": 64, "blocks": blocks, "agent": list(agent)}, "max_steps": 9000})
    return w


def _fell(w: GridWorld, x: int, z: int) -> None:
    """Break the trunk at (x, z) as the agent's hits would, the engine's hook included."""
    env, log = w.env, w.env.vocab.cell_id["oak_log"]
    for y in range(65, env.H):
        if env.cells[0, x, z, y] == log:
            env.cells[0, x, z, y] = 0
            decay.on_break(env, np.array([0]), np.array([[x, y, z]]), np.array([log]))


def test_a_felled_oak_drops_its_leaves_on_the_ground_within_the_random_ticks(kb):
    w = _world(kb, tree(10, 10))
    env, leaf = w.env, w.env.vocab.cell_id["oak_leaves"]
    assert (env.cells[0] == leaf).sum() == canopy_leaves() == 65
    w.step({"action": "noop"})
    assert (env.cells[0] == leaf).sum() == 65  # a standing tree keeps its leaves
    _fell(w, 10, 10)
    assert (env.decay_in[0] >= 0).sum() == 65
    mean = game_data()["leaf_decay"]["mean_steps"]
    left = []
    for _ in range(8 * mean):
        w.step({"action": "noop"})
        left.append(int((env.cells[0] == leaf).sum()))
    assert left[-1] == 0 and left[mean // 4] > 40  # gone in time, not at once
    lying = env.ground_age[0] >= 0
    assert (env.ground_pos[0][lying][:, 1] == 65).all()  # fallen to the ground, not left in the air


def test_leaves_a_log_still_reaches_stay(kb):
    """Two oaks 4 apart: felling one dooms only its leaves that the other's trunk does not
    reach along leaves within the version's range (4 before 1.13)."""
    w = _world(kb, tree(10, 10) + tree(14, 10))
    env, leaf = w.env, w.env.vocab.cell_id["oak_leaves"]
    assert decay.reach(kb) == 4 and decay.reach(load_kb("1.19.2")) == 6
    before = int((env.cells[0] == leaf).sum())  # the two canopies share a column of leaves
    _fell(w, 10, 10)
    doomed = {tuple(p) for p in env.decay_pos[0][env.decay_in[0] >= 0].tolist()}
    assert (8, 67, 10) in doomed  # the far side: 6 leaves from the other trunk
    assert (12, 67, 10) not in doomed and (11, 67, 10) not in doomed  # 2 and 3 leaves from it
    for _ in range(3000):
        w.step({"action": "noop"})
    assert (env.cells[0] == leaf).sum() == before - len(doomed)
    assert env.cells[0, 12, 10, 67] == leaf


def test_items_fall_and_the_agent_picks_up_what_lies_within_reach(kb):
    w = _world(kb, [[10, 68, 10, "oak_leaves"]], agent=(4, 65, 4))
    env, apple = w.env, w.env.vocab.item_id["apple"]
    assert ground.drop(env, 0, (10, 69, 10), apple)
    w.step({"action": "noop"})
    assert ground.ground_items(env, 0, "apple") == [(10, 69, 10)]  # held up by the leaf
    env.cells[0, 10, 10, 68] = 0
    w.step({"action": "noop"})
    assert ground.ground_items(env, 0, "apple") == [(10, 65, 10)]  # fallen to the ground
    env.pos[0] = (9, 65, 11)  # one block away
    out = w.step({"action": "noop"})
    assert ground.ground_items(env, 0, "apple") == [] and w.inventory.get("apple") == 1
    assert out[4]["gained"] == {"apple": 1}  # the step says what it gave


def test_the_apple_is_farmed_by_felling_oaks_and_the_sapling_is_not(kb):
    from skills.grid_controller import GridScriptedController
    from worlds.types import Goal

    env = GridWorld(kb, size=(32, 32)).env
    assert {env.vocab.cells[c] for c in felling_sources(env, "apple")} == {"oak_log"}
    assert felling_sources(env, "sapling") == set()  # 1 in 20: a tree's leaves give about 3
    blocks = [b for x in (8, 14, 20, 26) for z in (8, 14, 20, 26) for b in tree(x, z)]
    w = _world(kb, blocks)
    out = GridScriptedController(kb).run(Goal("mine", {"apple": 1}), w)
    assert out["ok"] and w.inventory["apple"] == 1, out
    leaf = w.env.vocab.cell_id["oak_leaves"]
    assert (w.env.cells[0] == w.env.vocab.cell_id["oak_log"]).sum() < 16 * 5  # trunks felled
    assert (w.env.cells[0] == leaf).sum() < 16 * 65  # and their leaves decayed
