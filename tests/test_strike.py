"""Attack held on the quarry (skills/learned/strike.py, issue 20 round 46): while a mob the kill goal
hunts stands in the faced cell, the learned controller attacks without asking the policy, as it
holds attack while a block breaks. A night hunt's quarry is every hostile mob, at night."""

from __future__ import annotations

import numpy as np
import pytest

from skills.learned.controller import LearnedController
from skills.learned.strike import Quarry
from tests.test_learned_find import CountingPolicy, _layout
from worlds.gridworld import mobs
from worlds.gridworld.batch import VEC
from worlds.gridworld.spec import PRIMITIVE_ID
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

NIGHT, DAY = 0.7, 0.1  # of the day (worlds/data/gridworld.yaml: night is 0.54 to 0.96)


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def _facing(kb, mob: str, time: float) -> GridWorld:
    """A flat map, the agent holding a wooden sword, `mob` in the cell it faces."""
    w = GridWorld(kb, size=(16, 16))
    w.reset(seed=0, options={"layout": _layout(), "time_of_day": time, "inventory": {"wooden_sword": 1}})
    x, y, z = (int(c) for c in w.env.pos[w.i] + VEC[w.env.facing[w.i]])
    w.spawn(mob, x, y, z)
    return w


def _faced(w: GridWorld, goal: Goal) -> bool:
    return bool(Quarry(w.env, [goal]).faced(w.env, [w.i])[0])


def test_the_quarry_is_the_goal_s_own_mob_and_at_night_on_a_hunt_every_hostile_one(kb):
    night = _facing(kb, "zombie", NIGHT)
    assert _faced(night, Goal("kill", {"zombie": 1}))
    assert _faced(night, Goal("kill", {"rotten_flesh": 1}))  # a drop's mob
    assert _faced(night, Goal("kill", {"skeleton": 1}))  # a hunt of the night's mobs clears them all
    assert not _faced(night, Goal("kill", {"cow": 1}))  # a cow hunt does not strike the zombie for it
    assert not _faced(night, Goal("mine", {"log": 1}))
    day = _facing(kb, "zombie", DAY)
    assert _faced(day, Goal("kill", {"zombie": 1}))
    assert not _faced(day, Goal("kill", {"skeleton": 1}))  # by day only its own, as the expert's _quarry
    cow = _facing(kb, "cow", DAY)
    assert _faced(cow, Goal("kill", {"cow": 1})) and not _faced(cow, Goal("kill", {"pig": 1}))


class NoopPolicy(CountingPolicy):
    """A policy that never strikes: whatever is asked, noop."""

    def act(self, obs, codes, mask=None, greedy=True, rng=None, temperature=1.0):
        self.asked += 1
        return np.full(len(np.atleast_1d(codes)) if np.ndim(codes) > 1 else 1, PRIMITIVE_ID["noop"])


def test_the_controller_strikes_the_zombie_in_front_until_it_dies_without_the_policy(kb, monkeypatch):
    monkeypatch.setattr(mobs, "NIGHT_SPAWN_CHANCE", 0.0)  # this zombie alone
    w = _facing(kb, "zombie", NIGHT)
    policy = NoopPolicy(kb, ["kill:zombie"])
    out = LearnedController(kb, policy, None, goal_budget=50, use_fallback=False).run(Goal("kill", {"zombie": 1}), w)
    assert out["ok"] and out["driver"] == "policy", out
    assert policy.asked == 0 and out["steps"] == 5  # 20 health, 4 a blow from a wooden sword
    assert w.env.health[w.i] > 0


def test_a_cow_in_front_of_a_zombie_hunt_is_left_alone(kb):
    w = _facing(kb, "cow", DAY)
    policy = NoopPolicy(kb, ["kill:zombie"])
    out = LearnedController(kb, policy, None, goal_budget=3, use_fallback=False).run(Goal("kill", {"zombie": 1}), w)
    assert not out["ok"] and policy.asked == 3  # each step the policy's (noop): no blow held on the cow
    assert (w.env.mob_kind[w.i] == w.env.vocab.mob_id["cow"]).any()


def test_the_skill_table_s_rollout_strikes_as_the_controller_does(kb, monkeypatch):
    from training.controller.rollout import rollout

    monkeypatch.setattr(mobs, "NIGHT_SPAWN_CHANCE", 0.0)
    probe = _facing(kb, "zombie", NIGHT)
    x, y, z = (int(c) for c in probe.env.pos[probe.i] + VEC[probe.env.facing[probe.i]])
    options = {
        "layout": _layout(mobs=[(x, y, z, "zombie")]),
        "time_of_day": NIGHT,
        "inventory": {"wooden_sword": 1},
        "size": [16, 16],
    }
    policy = NoopPolicy(kb, ["kill:zombie"])
    (row,) = rollout(kb, [(Goal("kill", {"zombie": 1}), 0, options)], "learned", policy, budget=50)
    assert row["ok"] and row["steps"] == 5, row


def _beside(kb, mob: str, time: float) -> GridWorld:
    """A flat map, the agent holding a wooden sword, `mob` in the cell behind it (not faced)."""
    w = GridWorld(kb, size=(16, 16))
    w.reset(seed=0, options={"layout": _layout(), "time_of_day": time, "inventory": {"wooden_sword": 1}})
    x, y, z = (int(c) for c in w.env.pos[w.i] - VEC[w.env.facing[w.i]])
    w.spawn(mob, x, y, z)
    return w


def test_on_a_night_hunt_the_controller_turns_to_a_mob_beside_it_and_strikes(kb, monkeypatch):
    monkeypatch.setattr(mobs, "NIGHT_SPAWN_CHANCE", 0.0)
    monkeypatch.setattr(mobs, "_move", lambda env, movers, ch: None)  # the zombie stays where it is
    w = _beside(kb, "zombie", NIGHT)
    back = int(w.env.facing[w.i]) ^ 1  # north <-> south, east <-> west
    turn = Quarry(w.env, [Goal("kill", {"zombie": 1})]).turn(w.env, [w.i])
    assert turn[0] == PRIMITIVE_ID["face_" + ("north", "south", "east", "west")[back]]
    policy = NoopPolicy(kb, ["kill:zombie"])
    out = LearnedController(kb, policy, None, goal_budget=50, use_fallback=False).run(Goal("kill", {"zombie": 1}), w)
    assert out["ok"] and out["driver"] == "policy", out
    assert policy.asked == 0 and out["steps"] == 6  # a turn, then 5 blows of a wooden sword


def test_no_turn_by_day_on_an_animal_hunt_or_away_from_the_quarry(kb):
    day = _beside(kb, "zombie", DAY)
    assert Quarry(day.env, [Goal("kill", {"zombie": 1})]).turn(day.env, [day.i])[0] == -1  # by day
    cow = _beside(kb, "cow", DAY)
    assert Quarry(cow.env, [Goal("kill", {"cow": 1})]).turn(cow.env, [cow.i])[0] == -1  # not a night hunt
    night = _beside(kb, "zombie", NIGHT)
    assert Quarry(night.env, [Goal("mine", {"log": 1})]).turn(night.env, [night.i])[0] == -1
    policy = NoopPolicy(kb, ["mine:log"])  # a mine goal: the policy's step, every one
    LearnedController(kb, policy, None, goal_budget=3, use_fallback=False).run(Goal("mine", {"log": 1}), night)
    assert policy.asked >= 1


def test_a_breaking_block_s_attack_is_held_except_on_a_hunt_of_the_night_s_mobs(kb):
    w = _beside(kb, "cow", NIGHT)  # nothing hostile beside or in front: only the block decides
    attack = PRIMITIVE_ID["attack"]
    for goal, held in (
        (Goal("mine", {"log": 1}), attack),
        (Goal("kill", {"cow": 1}), attack),
        (Goal("kill", {"zombie": 1}), -1),  # the policy's step: it digs only while it picks attack
        (Goal("kill", {"skeleton": 1}), -1),
    ):
        assert Quarry(w.env, [goal]).held(w.env, [True], [w.i])[0] == held, goal
        assert Quarry(w.env, [goal]).held(w.env, [False], [w.i])[0] == -1, goal
