"""The learned controller never repeats an action that just left its world as it was
(skills/learned/idle.py): the round-4 policy pressed `jump` 400 times in front of a wall
two blocks high, as a Markov policy does when its best guess changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

from skills.learned.controller import LearnedController
from skills.learned.idle import IdleActions
from tests.fakes import FakeGoalPolicy
from worlds.gridworld.spec import PRIMITIVE_ID, PRIMITIVES
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

A = len(PRIMITIVES)
JUMP, NORTH = PRIMITIVE_ID["jump"], PRIMITIVE_ID["move_north"]


def _obs(x: int, facing: int = 2) -> dict:
    return {"position": np.array([[x, 65, 8]]), "facing": np.array([facing]), "inventory": np.zeros((1, 4))}


def test_an_action_that_changed_nothing_is_ruled_out_in_that_state_only():
    idle = IdleActions(1, A)
    every = np.ones((1, A), bool)
    assert idle.allowed(_obs(8), every).all()
    idle.chose(np.array([JUMP]))
    after = idle.allowed(_obs(8), every)  # the same state: the jump did nothing
    assert not after[0, JUMP] and after[0, NORTH] and after.sum() == A - 1
    idle.chose(np.array([NORTH]))
    moved = idle.allowed(_obs(9), every)  # a new state: the jump may work here
    assert moved[0, JUMP]
    idle.chose(np.array([PRIMITIVE_ID["move_south"]]))
    back = idle.allowed(_obs(8), every)  # back where the jump did nothing: still ruled out
    assert not back[0, JUMP]


def test_the_clock_alone_is_not_a_change_and_an_only_action_is_never_taken_away():
    idle = IdleActions(2, A)
    only_jump = np.zeros((2, A), bool)
    only_jump[:, JUMP] = True
    two = {k: np.concatenate([v, v]) for k, v in _obs(8).items()}
    idle.allowed({**two, "time": np.array([[0.1, 0], [0.1, 0]])}, only_jump)
    idle.chose(np.array([JUMP, JUMP]))
    out = idle.allowed({**two, "time": np.array([[0.2, 0], [0.2, 0]])}, only_jump)
    assert out[:, JUMP].all()  # nothing else allowed: kept, not an empty row


@pytest.mark.parametrize("wall", [1, 2])
def test_the_controller_jumps_once_at_a_wall_it_cannot_climb(wall):
    kb = load_kb("1.11.2")
    w = GridWorld(kb, size=(16, 16))
    blocks = [[9, 65 + k, 8, "stone"] for k in range(wall)]
    w.reset(seed=0, options={"layout": {"ground": 64, "blocks": blocks, "agent": [8, 65, 8]}, "time_of_day": 0.1})
    w.step({"action": "face_east"})
    policy = FakeGoalPolicy({"mine:log"}, lambda mask: JUMP if mask[JUMP] else NORTH)  # jump first, else north
    LearnedController(kb, policy, None, goal_budget=4, use_fallback=False).run(Goal("mine", {"log": 1}), w)
    if wall == 1:  # one block: the jump climbs it, a new state where jumping is allowed again
        assert policy.sent[:2] == [JUMP, JUMP]
    else:  # two blocks: the jump changes nothing and is not sent again from that spot
        assert policy.sent[0] == JUMP and policy.sent[1] == NORTH, policy.sent


def test_an_attack_is_never_ruled_out():
    """A hit on a mob changes its health, which the observation does not show."""
    idle = IdleActions(1, A)
    every = np.ones((1, A), bool)
    idle.allowed(_obs(8), every)
    idle.chose(np.array([PRIMITIVE_ID["attack"]]))
    assert idle.allowed(_obs(8), every)[0, PRIMITIVE_ID["attack"]]
