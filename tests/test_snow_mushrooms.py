"""Mushrooms in the swamp's shade and the ice plains' snow (issue 20, parity with the text world):
where the game grows them, maps made before unchanged, and the tasks they give solved."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.expert_steps import run_expert
from worlds.gridworld import coverage
from worlds.gridworld.generation import generate
from worlds.gridworld.spec import game_data
from worlds.gridworld.world import GridWorld
from worlds.types import Goal


def test_a_swamps_mushrooms_grow_on_grass_in_the_shade_of_two_leaves(vocab):
    cid = vocab.cell_id
    leaves = [cid[t["leaves"]] for t in game_data()["trees"].values()]
    found = 0
    for seed in range(4):
        m = generate(seed, vocab, (48, 48), biome="swampland")
        for name in ("brown_mushroom", "red_mushroom"):
            for x, z, y in np.argwhere(m.cells == cid[name]):
                assert m.cells[x, z, y - 1] == cid["grass_block"]
                assert np.isin(m.cells[x, z, y + 1 :], leaves).sum() >= 2
                found += 1
    assert found >= 8  # 3 a chunk, 9 chunks a map, on four maps: some tries find no shade


def test_the_mushrooms_drew_from_a_stream_of_their_own_so_a_swamp_map_is_otherwise_unchanged(vocab, monkeypatch):
    with_them = generate(3, vocab, (48, 48), biome="swampland")
    data = {**game_data()}
    data["biomes"] = {b: {k: v for k, v in s.items() if k != "shade_plants"} for b, s in data["biomes"].items()}
    monkeypatch.setattr("worlds.gridworld.generation.game_data", lambda: data)
    without = generate(3, vocab, (48, 48), biome="swampland")
    mushroom = np.isin(with_them.cells, [vocab.cell_id["brown_mushroom"], vocab.cell_id["red_mushroom"]])
    assert mushroom.any() and not np.isin(without.cells, [vocab.cell_id["brown_mushroom"]]).any()
    assert np.array_equal(np.where(mushroom, 0, with_them.cells), without.cells)
    assert with_them.mobs == without.mobs and with_them.spawn == without.spawn


def test_the_ice_plains_lie_under_snow_and_the_agent_starts_in_it(kb, vocab):
    cid = vocab.cell_id
    m = generate(0, vocab, (48, 48), biome="ice_plains")
    ice = np.argwhere(m.biome == vocab.biome_id["ice_plains"])
    tops = [m.cells[x, z, y] for x, z in ice for y in [np.nonzero(m.cells[x, z])[0].max()]]
    assert np.mean([t == cid["snow_layer"] for t in tops]) > 0.9  # the rest: the spruces' leaves
    w = GridWorld(kb)
    w.reset(seed=0, options={"biome": "ice_plains"})
    assert w.biome == "ice_plains"


def test_snow_gives_snowballs_to_a_shovel_and_nothing_to_a_hand(kb):
    w = GridWorld(kb, size=(16, 16))
    layout = {
        "ground": 64,
        "blocks": [[8, 65, 7, "snow_layer"], [8, 65, 9, "snow_layer"]],
        "mobs": [],
        "agent": [8, 65, 8],
    }
    for inv, got in (({"wooden_shovel": 1}, True), ({}, False)):
        w.reset(seed=0, options={"layout": layout, "inventory": inv})
        run_expert(w, Goal("mine", {"snowball": 1}, {}, "wooden_shovel"), 40)
        assert w.has("snowball") == got


@pytest.mark.parametrize(
    ("item", "biome"),
    [
        ("snowball", "ice_plains"),
        ("snow", "ice_plains"),
        ("brown_mushroom", "swampland"),
        ("mushroom_stew", "swampland"),
    ],
)
def test_the_tasks_are_taken_on_a_map_of_the_biome_that_grows_them(kb, item, biome):
    assert coverage.refusal(kb, {item: 1}) is None and coverage.sole_biome(kb, {item: 1}) == biome


@pytest.mark.parametrize("task", ["obtain mushroom stew", "obtain a snow block"])
def test_a_user_gets_them_in_the_grid_world(capsys, task):
    from agent.cli import main

    args = ["run", task, "--world", "gridworld", "--planner", "oracle", "--controller", "scripted"]
    assert main([*args, "--quiet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["success"]


def test_rabbits_live_on_the_ice_plains_only_and_wander_in_nowhere_else(kb):
    w = GridWorld(kb)
    rabbit = w.env.vocab.mob_id["rabbit"]
    w.reset(seed=0, options={"biome": "ice_plains"})
    assert (w.env.mob_kind[0] == rabbit).sum() >= 2
    w.reset(seed=0)  # plains, as seed 0's map always was
    for _ in range(400):  # past restocks: animals wander in only where their biome is
        w.step({"action": "noop"})
    assert not (w.env.mob_kind[0] == rabbit).any()


@pytest.mark.parametrize(
    ("task", "item"), [("obtain a rabbit hide", "rabbit_hide"), ("obtain a rabbit foot", "rabbit_foot")]
)
def test_a_user_hunts_rabbits_on_a_map_of_the_ice_plains(capsys, kb, task, item):
    from agent.cli import main

    assert coverage.sole_biome(kb, {item: 1}) == "ice_plains"
    args = ["run", task, "--world", "gridworld", "--planner", "oracle", "--controller", "scripted"]
    assert main([*args, "--quiet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["success"]


def test_deps_run_help_names_every_biome_the_grid_world_builds():
    from dataclasses import fields

    from nodes.registry import GridWorldOptions

    text = next(f for f in fields(GridWorldOptions) if f.name == "biome").metadata["help"]
    built = list(game_data()["biomes"]) + list(game_data()["biome_variants"])
    assert [b for b in built if b not in text] == []


def test_a_kill_for_a_drop_runs_as_a_mine_goal_for_a_chance_drop_does(kb):
    """Kill rabbits until a foot drops (1 in 10): each rabbit killed is progress, and the skill
    table's try runs to a task's end as the controllers run it (600 steps cut it at 0.85)."""
    from skills.learned.progress import Progress, drop_kill
    from training.controller.rollout import rollout

    w = GridWorld(kb)
    w.reset(seed=0, options={"biome": "ice_plains"})
    foot, rabbit = Goal("kill", {"rabbit_foot": 1}), Goal("kill", {"rabbit": 1})
    assert drop_kill(w.env, foot) and not drop_kill(w.env, rabbit)
    p = Progress(w.env, 0, foot)
    assert p.made({"killed": "rabbit"}) and not Progress(w.env, 0, rabbit).made({"killed": "rabbit"})
    episodes = [(foot, 7, {"biome": "ice_plains"})]
    short = rollout(kb, episodes, "scripted", None, budget=600, n_envs=1, seed=1, mine_budget=5)
    long = rollout(kb, episodes, "scripted", None, budget=600, n_envs=1, seed=1, mine_budget=2400)
    assert short[0]["steps"] <= 5 and long[0]["ok"]


def test_the_learned_controller_counts_a_kill_goals_drop(kb, monkeypatch):
    """The learned controller ends a kill goal for a drop when the item comes, not when a rabbit
    dies: a policy that always attacks, facing a rabbit that drops a foot."""
    from skills.learned import controller as lc

    w = GridWorld(kb, size=(16, 16))
    layout = {"ground": 64, "blocks": [], "mobs": [[8, 65, 7, "rabbit"]], "agent": [8, 65, 8]}
    w.reset(seed=0, options={"layout": layout, "inventory": {}})
    w.env.rules.mob_chance[w.env.vocab.mob_id["rabbit"]][:] = [(w.env.vocab.item_id["rabbit_foot"], 1.0)]
    try:
        ctl = lc.LearnedController.__new__(lc.LearnedController)
        ctl.kb, ctl.goal_budget = kb, 50
        ctl.policy = type("P", (), {"codes": lambda self, g: None, "net": type("N", (), {"shape": None})()})()
        ctl._observe = lambda world, luts, code: None
        ctl._step = lambda world, obs, goal, code, idle, shield, quarry=None: world.step({"action": "attack"})[4]
        out = ctl._drive(Goal("kill", {"rabbit_foot": 1}), w)
    finally:
        w.env.rules.mob_chance[w.env.vocab.mob_id["rabbit"]][:] = [(w.env.vocab.item_id["rabbit_foot"], 0.1)]
    assert out["ok"] and w.has("rabbit_foot"), out
