"""The night's hole for the learned controller's mine and kill pursuits (skills/find.py: Shelter,
issue 20 round 33): a zombie or spider close at night sends the agent two blocks under the
ground, by the find expert's rule, where the policy used to die; the quarry itself sends no one."""

from __future__ import annotations

import pytest

from skills.learned.controller import LearnedController
from tests.test_learned_find import CountingPolicy, _layout
from training.controller.rollout import rollout
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

NIGHT = 0.7  # of the day: night is 0.54 to 0.96 (worlds/data/gridworld.yaml)


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def _night(kb, steps: int, time: float = NIGHT) -> GridWorld:
    w = GridWorld(kb, size=(32, 32))
    layout = _layout(mobs=[(10, 65, 8, "zombie")], blocks=[(26, 65, 26, "oak_log")])
    w.reset(seed=0, options={"layout": layout, "time_of_day": time, "max_steps": steps})
    return w


def test_a_zombie_close_at_night_sends_a_mine_pursuit_into_a_hole_without_the_policy(kb):
    w = _night(kb, 40)
    policy = CountingPolicy(kb, ["mine:log"])
    out = LearnedController(kb, policy, None, goal_budget=100, use_fallback=False).run(Goal("mine", {"log": 1}), w)
    assert not out["ok"] and out["error"] == "ran out of environment steps (40)"
    assert policy.asked == 0 and out["sheltered"] == out["steps"] == 40  # every step the hole's
    assert int(w.env.pos[w.i][1]) == 63 and w.env.health[w.i] > 0  # two blocks under the ground (64), alive


def test_by_day_the_zombie_sends_no_one_into_a_hole(kb):
    w = _night(kb, 10, time=0.1)
    policy = CountingPolicy(kb, ["mine:log"])
    out = LearnedController(kb, policy, None, goal_budget=100, use_fallback=False).run(Goal("mine", {"log": 1}), w)
    assert policy.asked == 10 and out["sheltered"] == 0


def test_the_quarry_itself_sends_no_one_into_a_hole(kb):
    w = _night(kb, 10)
    policy = CountingPolicy(kb, ["kill:zombie"])
    out = LearnedController(kb, policy, None, goal_budget=100, use_fallback=False).run(Goal("kill", {"zombie": 1}), w)
    assert policy.asked > 0 and out["sheltered"] == 0


def test_the_skill_table_s_rollout_hides_as_the_controller_does(kb):
    layout = _layout(mobs=[(10, 65, 8, "zombie")], blocks=[(26, 65, 26, "oak_log")])
    night = (Goal("mine", {"log": 1}), 0, {"layout": layout, "time_of_day": NIGHT, "size": [32, 32]})
    policy = CountingPolicy(kb, ["mine:log"])  # an untrained network: left alone at night, it dies
    (row,) = rollout(kb, [night], "learned", policy, budget=300, mine_budget=300)
    assert row == {"ok": False, "steps": 300, "end": "out_of_steps"}  # alive, and the hole's steps are no stall


def test_a_run_s_record_says_how_many_steps_were_the_hole_s(kb):
    from nodes.state import sheltered_steps

    state = {"outcomes": [{"goal": {"action": "mine", "obj": {"log": 1}}, "sheltered": 40}, {"sheltered": 2}, {}]}
    assert sheltered_steps(state) == 42 and sheltered_steps({}) == 0


def _skeleton(kb, wall: bool) -> GridWorld:
    """A skeleton 8 cells east of the agent at night: beyond THREAT, within its 15-cell reach; with
    `wall`, a stone wall three high between them."""
    blocks = [(26, 65, 26, "oak_log")]
    if wall:
        blocks += [(12, y, z, "stone") for y in (65, 66, 67) for z in range(2, 15)]
    w = GridWorld(kb, size=(32, 32))
    layout = _layout(mobs=[(16, 65, 8, "skeleton")], blocks=blocks)
    w.reset(seed=0, options={"layout": layout, "time_of_day": NIGHT, "max_steps": 40})
    return w


def test_a_skeleton_that_sees_the_agent_from_afar_sends_it_into_the_hole_and_keeps_it_there(kb):
    """The enchanting table, seed 5 (2026-12-04): the learned controller's pursuit was killed by a
    skeleton at night; the hole answered only to mobs within 4 cells, and a skeleton shoots from 15."""
    from skills.find import THREAT, Shelter, hostile_within

    goal = Goal("mine", {"log": 1})
    w = _skeleton(kb, wall=False)
    assert not hostile_within(w.env, w.i, THREAT) and Shelter(w.env, w.i, goal).needed()
    assert not Shelter(_skeleton(kb, wall=True).env, 0, goal).needed()  # it sees nothing through stone
    policy = CountingPolicy(kb, ["mine:log"])
    out = LearnedController(kb, policy, None, goal_budget=100, use_fallback=False).run(goal, _skeleton(kb, False))
    assert policy.asked == 0 and out["sheltered"] == out["steps"] == 40  # into the hole, kept there out of sight


def test_on_ground_it_cannot_dig_the_policy_goes_on_rather_than_wait_for_the_blows(kb):
    """The same run's death, once the skeleton had come beside it: the agent stood on a block the
    hole cannot be dug in (here a crafting table) and waited there, struck every 8 steps, until it died."""
    from skills.find import Shelter

    w = GridWorld(kb, size=(32, 32))
    layout = _layout(mobs=[(10, 65, 8, "zombie")], blocks=[(8, 64, 8, "crafting_table"), (26, 65, 26, "oak_log")])
    w.reset(seed=0, options={"layout": layout, "time_of_day": NIGHT, "max_steps": 10})
    assert not Shelter(w.env, w.i, Goal("mine", {"log": 1})).needed()
    assert Shelter(_night(kb, 10).env, 0, Goal("mine", {"log": 1})).needed()  # on dirt it digs in
