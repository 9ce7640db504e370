"""Obsidian in the grid world, the players' way: a water bucket poured on a lava source makes it
obsidian (worlds/gridworld/pour.py, gridworld.yaml `pour:`), broken with a diamond pickaxe; the
plans make the water bucket first (`gives.holds`), and the scripted expert pours, then breaks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.expert_steps import run_expert
from worlds.gridworld.coverage import gives, refusal
from worlds.gridworld.spec import FACING_VECTORS
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.solver import solve
from worlds.types import Goal


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def facing_lava(kb, inventory):
    """A flat world with a lava source in the cell the agent faces, and that cell's (x, y, z)."""
    w = GridWorld(kb, size=(16, 16))
    layout = {"ground": 64, "blocks": [], "mobs": [], "agent": [8, 65, 8]}
    w.reset(seed=0, options={"layout": layout, "inventory": inventory})
    at = tuple(int(p) + q for p, q in zip(w.env.pos[0], FACING_VECTORS[int(w.env.facing[0])]))
    w.env.cells[0, at[0], at[2], at[1]] = w.env.vocab.cell_id["lava"]
    return w, at


def cell(w, at) -> str:
    return w.env.vocab.cells[int(w.env.cells[0, at[0], at[2], at[1]])]


def test_a_water_bucket_poured_on_lava_makes_obsidian_and_stays_full(kb):
    w, at = facing_lava(kb, {"water_bucket": 1})
    *_, info = w.step({"action": "use", "item": "water_bucket"})
    assert info["ok"], info["error"]
    assert cell(w, at) == "obsidian" and w.inventory == {"water_bucket": 1}
    *_, info = w.step({"action": "use", "item": "water_bucket"})  # obsidian in front: nothing more to pour on
    assert not info["ok"] and cell(w, at) == "obsidian"


def test_an_empty_bucket_on_lava_still_takes_the_lava(kb):
    w, at = facing_lava(kb, {"bucket": 1})
    *_, info = w.step({"action": "use", "item": "bucket"})
    assert info["ok"] and cell(w, at) == "lava"  # the pour rule is the water bucket's alone
    assert w.inventory == {"lava_bucket": 1}


def test_obsidian_breaks_in_the_games_time_and_drops_only_to_a_diamond_pickaxe(kb):
    rules = GridWorld(kb, size=(16, 16)).env.rules
    c = np.array([GridWorld(kb, size=(16, 16)).env.vocab.cell_id["obsidian"]])
    # hardness 50 x 1.5 s / 8 (a diamond pickaxe's speed) = 9.375 s: 38 steps of 0.25 s
    assert int(rules.break_steps(c, np.array([8.0]), np.array([True]))[0]) == 38
    assert rules.min_tool[int(c[0])] == "diamond_pickaxe" and rules.drops[int(c[0])] == {"obsidian": 1}


def test_the_grid_worlds_route_makes_the_water_bucket_and_the_text_worlds_does_not(kb):
    grid = solve(kb, {"obsidian": 1}, {}, gives=gives(kb))
    text = solve(kb, {"obsidian": 1}, {})
    assert [next(iter(g.obj)) for g in grid][-3:] == ["bucket", "water_bucket", "obsidian"]
    assert "holding a water_bucket" in grid[-1].text
    assert not any("water_bucket" in g.obj for g in text)
    assert refusal(kb, {"obsidian": 1}) is None and refusal(kb, {"enchanting_table": 1}) is None


def test_the_expert_pours_then_breaks_and_says_what_is_missing(kb):
    from skills.experts import Expert

    w, at = facing_lava(kb, {"water_bucket": 1, "diamond_pickaxe": 1})
    e = run_expert(w, Goal("mine", {"obsidian": 1}, {}, "diamond_pickaxe"), 100)
    assert e.result["ok"] and w.has("obsidian") and w.has("water_bucket")
    assert cell(w, at) == "air"  # broken where the lava was
    for held, why in (({"diamond_pickaxe": 1}, "needs a water_bucket"), ({"water_bucket": 1}, "diamond_pickaxe")):
        w, _ = facing_lava(kb, held)
        e = Expert(w.env, 0, Goal("mine", {"obsidian": 1}, {}, "diamond_pickaxe"))
        assert e.act() is None and not e.result["ok"] and why in e.result["error"]


def test_the_learned_controller_pours_its_water_bucket(kb):
    from skills.learned.controller import item_args

    held = {"water_bucket", "dirt", "diamond_pickaxe"}
    assert item_args(kb, Goal("mine", {"obsidian": 1}), held.__contains__)["use"] == "water_bucket"


def test_a_user_gets_obsidian_in_the_grid_world(capsys):
    from agent.cli import main

    args = ["run", "obtain obsidian", "--world", "gridworld", "--planner", "oracle", "--controller", "scripted"]
    assert main([*args, "--quiet", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["success"]


def test_a_mine_of_obsidian_waits_for_its_water_bucket_in_the_selector(kb):
    """The enchanting table with the learned controller (2026-12-04): the horizon selector chose
    `mine 4 obsidian` before the bucket and the water bucket, its tool (the diamond pickaxe) being
    held, and the policy spent 2,743 steps at lava it could not pour on. What the world wants held
    (`gives.holds`) is a precondition of the mine goal like its tool."""
    from types import SimpleNamespace

    from nodes.select import select
    from nodes.selectors import RandomSelector, preconditions_hold

    w, _ = facing_lava(kb, {"diamond_pickaxe": 1, "bucket": 1})
    obsidian = Goal("mine", {"obsidian": 4}, {}, "diamond_pickaxe")
    goals = [obsidian, Goal("mine", {"water_bucket": 1}, {}, "bucket")]
    runtime = SimpleNamespace(context=SimpleNamespace(world=w, kb=kb, selector=RandomSelector(0)))
    state = {"goals": [g.to_dict() for g in goals], "outcomes": [], "plans": ["plan"], "inventory": w.inventory}
    assert select(state, runtime)["selection"]["candidates"] == [1]
    state["inventory"] = {"diamond_pickaxe": 1, "water_bucket": 1}  # filled: the bucket is gone, obsidian waits no more
    assert select(state, runtime)["selection"]["candidates"] == [0]
    # a world with no `gives` (the text world) states nothing more than the goal's own tool
    assert preconditions_hold(obsidian, {"diamond_pickaxe": 1}, kb)
    assert not preconditions_hold(obsidian, {"diamond_pickaxe": 1}, kb, gives(kb).holds)


def test_the_learned_controller_refuses_obsidian_with_nothing_to_pour_as_the_expert_does(kb):
    from skills.experts import Expert
    from skills.learned.controller import unpoured

    goal = Goal("mine", {"obsidian": 1}, {}, "diamond_pickaxe")
    w, at = facing_lava(kb, {"diamond_pickaxe": 1})
    expert = Expert(w.env, 0, goal)
    assert expert.act() is None
    assert unpoured(goal, w) == (expert.result["error"], expert.result["missing"])
    assert unpoured(goal, w)[0] == "needs a water_bucket to make obsidian from lava"
    w.env.cells[0, at[0], at[2], at[1]] = w.env.vocab.cell_id["obsidian"]  # made before: break it, no pour
    assert unpoured(goal, w) is None
    w, _ = facing_lava(kb, {"diamond_pickaxe": 1, "water_bucket": 1})
    assert unpoured(goal, w) is None and unpoured(Goal("mine", {"log": 1}), w) is None


def test_the_learned_controller_spends_no_step_on_obsidian_it_cannot_pour(kb):
    from skills.learned.controller import LearnedController
    from skills.learned.features import net_shape
    from skills.learned.model import GoalNet
    from skills.learned.policy import GoalPolicy
    from worlds.gridworld.spec import make_vocab

    policy = GoalPolicy(GoalNet(net_shape(make_vocab(kb))), kb, {"goals": ["mine:obsidian"]})
    ctl = LearnedController(kb, policy, fallback=None, goal_budget=50, use_fallback=False)
    w, _ = facing_lava(kb, {"diamond_pickaxe": 1})
    out = ctl.run(Goal("mine", {"obsidian": 4}, {}, "diamond_pickaxe"), w)
    assert (out["ok"], out["steps"], out["missing"], out["driver"]) == (False, 0, {"water_bucket": 1}, "policy")
    assert w.steps == 0
