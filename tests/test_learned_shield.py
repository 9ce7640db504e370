"""The learned controller never takes an action its view shows to be fatal (skills/learned/
shield.py): in round 14 a third of the policy's lava-bucket tries ended in the lava lake.
The rule is checked against the grid world itself: on random pits of lava, water, air and
stone around the agent (and over its head, where a pillar step rises), an action is ruled out
exactly when taking it kills the agent."""

from __future__ import annotations

import numpy as np
import pytest

from skills.learned.controller import LearnedController
from skills.learned.shield import Shield
from skills.learned.surround import observe
from tests.fakes import FakeGoalPolicy
from worlds.gridworld.spec import MOVES, PRIMITIVE_ID, PRIMITIVES
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

AGENT = (8, 65, 8)  # standing on the ground level 64
FACE = ("face_north", "face_south", "face_east", "face_west")


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def _pit(rng: np.random.Generator) -> list:
    """Random cells in the 3x3 columns around the agent, levels 63 to 66 (the view reaches 63;
    the ground below is solid, so every fall ends inside the view)."""
    x0, y0, z0 = AGENT
    out = []
    for dx in (-1, 0, 1):
        for dz in (-1, 0, 1):
            for y in (63, 64, 65, 66):
                if (dx, dz) == (0, 0):
                    if y == 64:
                        out.append([x0, y, z0, "dirt"])  # what the agent stands on, quick to break
                    elif y in (63, 66):  # under the dirt; over the agent's head
                        out.append([x0, y, z0, str(rng.choice(["lava", "air", "water", "stone"]))])
                    continue
                name = rng.choice(["lava", "air", "water", "stone"], p=[0.3, 0.35, 0.1, 0.25])
                out.append([x0 + dx, y, z0 + dz, str(name)])
    return out


def _world(kb, blocks: list) -> GridWorld:
    w = GridWorld(kb, size=(16, 16))
    layout = {"ground": 64, "blocks": blocks, "agent": list(AGENT)}
    w.reset(seed=0, options={"layout": layout, "time_of_day": 0.1, "inventory": {"cobblestone": 4}})
    return w


def _dies(kb, blocks: list, setup: list[str], action: str, repeat: int = 1) -> tuple[bool, np.ndarray]:
    """Whether `action` (after the `setup` turns) kills the agent, and what the shield ruled out."""
    w = _world(kb, blocks)
    for a in setup:
        w.step({"action": a})
    fatal = Shield(w.env.rules).fatal(observe(w))[0]
    step = {"action": action, "item": "cobblestone"} if action == "jump_place" else {"action": action}
    for _ in range(repeat):
        if getattr(w, "dead", False):
            break
        w.step(step)
    return bool(getattr(w, "dead", False)), fatal


@pytest.mark.parametrize("seed", range(12))
def test_an_action_is_ruled_out_exactly_when_it_kills(kb, seed):
    rng = np.random.default_rng(seed)
    blocks = _pit(rng)
    for move in MOVES:
        died, fatal = _dies(kb, blocks, [], move)
        assert died == fatal[PRIMITIVE_ID[move]], (move, blocks)
    for face in FACE:
        died, fatal = _dies(kb, blocks, [face], "jump")
        assert died == fatal[PRIMITIVE_ID["jump"]], (face, blocks)
    died, fatal = _dies(kb, blocks, ["face_down"], "attack", repeat=40)  # dirt by hand breaks well within 40
    assert died == fatal[PRIMITIVE_ID["attack"]], blocks
    died, fatal = _dies(kb, blocks, [], "jump_place")  # a pillar step: up into the cell over the head
    assert died == fatal[PRIMITIVE_ID["jump_place"]], blocks
    assert not fatal[PRIMITIVE_ID["noop"]] and not fatal[PRIMITIVE_ID["face_up"]]


def test_the_pits_hold_deaths_and_survivals_of_each_kind(kb):
    """The property above is not vacuous: the random pits kill by walking, falling, jumping,
    digging down and pillaring up, and spare the agent in each way too."""
    seen = set()
    for seed in range(12):
        blocks = _pit(np.random.default_rng(seed))
        for move in MOVES:
            seen.add(("move", _dies(kb, blocks, [], move)[0]))
        for face in FACE:
            seen.add(("jump", _dies(kb, blocks, [face], "jump")[0]))
        seen.add(("dig", _dies(kb, blocks, ["face_down"], "attack", repeat=40)[0]))
        seen.add(("pillar", _dies(kb, blocks, [], "jump_place")[0]))
    assert seen == {(k, d) for k in ("move", "jump", "dig", "pillar") for d in (True, False)}


def test_water_stops_a_fall_and_the_last_allowed_action_is_kept(kb):
    x, y, z = AGENT
    over_water = [[x + 1, 65, z, "air"], [x + 1, 64, z, "water"], [x + 1, 63, z, "lava"]]
    died, fatal = _dies(kb, over_water, [], "move_east")
    assert not died and not fatal[PRIMITIVE_ID["move_east"]]
    w = _world(kb, [[x + 1, 65, z, "lava"]])
    only_east = np.zeros((1, len(PRIMITIVES)), bool)
    only_east[0, PRIMITIVE_ID["move_east"]] = True
    assert Shield(w.env.rules).allowed(observe(w), only_east)[0, PRIMITIVE_ID["move_east"]]  # never an empty row


def test_the_controller_walks_round_lava_it_would_have_walked_into(kb):
    x, y, z = AGENT
    w = _world(kb, [[x + 1, 65, z, "lava"]])
    east, north = PRIMITIVE_ID["move_east"], PRIMITIVE_ID["move_north"]
    policy = FakeGoalPolicy({"mine:log"}, lambda mask: east if mask[east] else north)  # east whenever allowed
    out = LearnedController(kb, policy, None, goal_budget=6, use_fallback=False).run(Goal("mine", {"log": 1}), w)
    assert not w.dead and "died" not in (out["error"] or "")
    assert tuple(int(c) for c in w.env.pos[w.i]) != AGENT  # it moved, round the lava
