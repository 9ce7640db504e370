"""Game facts and the controller (issue 9, items 15-18): blocks that drop something else,
cooking recipes from a data set, apples, eggs, renamed and aliased names, the peony's tool,
and a planner that knows no plan exists."""

from __future__ import annotations

import pytest
import yaml

from agent.runner import run_episode
from nodes.planners.base import PlanResult
from nodes.settings import RunSettings
from skills.controller import ScriptedController
from tests.fakes import FakeLLM
from worlds.cooking import bedrock_source, load_cooking
from worlds.knowledge import DATA, load_kb
from worlds.solver import solve
from worlds.textworld import TextWorld
from worlds.types import Goal, Task

VERSIONS = ("1.11.2", "1.16.5", "1.19.2")


def _world(version: str, inventory: dict[str, int], max_steps: int = 12000) -> TextWorld:
    world = TextWorld(load_kb(version))
    world.reset(seed=0, options={"inventory": inventory, "max_steps": max_steps})
    return world


# ---------------------------------------------------------------- 15: blocks that drop something else
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "block, tool, drop, per_block",
    [
        ("stone", "wooden_pickaxe", "cobblestone", 1),
        ("coal_ore", "wooden_pickaxe", "coal", 1),
        ("diamond_ore", "iron_pickaxe", "diamond", 1),
        ("clay", None, "clay_ball", 4),
        ("grass_block", None, "dirt", 1),
    ],
)
def test_mining_a_block_counts_blocks_broken_not_the_block_item(version, block, tool, drop, per_block):
    world = _world(version, {tool: 1} if tool else {})
    kb = world.kb
    out = ScriptedController(kb).run(Goal("mine", {block: 3}, {}, tool), world)
    assert out["ok"], out
    assert kb.count(out["gained"], drop) == 3 * per_block  # three blocks broken, their drops kept
    assert world.steps < world.max_steps  # no loop until the budget is gone


def test_snow_block_mines_to_snowballs_where_the_block_exists():
    world = _world("1.19.2", {"wooden_shovel": 1})
    out = ScriptedController(world.kb).run(Goal("mine", {"snow_block": 2}, {}, None), world)
    assert out["ok"] and out["gained"] == {"snowball": 8}


def test_a_block_that_drops_itself_still_counts_the_item():
    world = _world("1.16.5", {})
    out = ScriptedController(world.kb).run(Goal("mine", {"log": 3}, {}, None), world)
    assert out["ok"] and world.kb.count(out["gained"], "log") == 3


def test_mining_without_the_tool_still_fails_with_the_worlds_cause():
    world = _world("1.16.5", {})
    out = ScriptedController(world.kb).run(Goal("mine", {"stone": 3}, {}, None), world)
    assert not out["ok"] and "wooden_pickaxe" in out["error"]


# ---------------------------------------------------------------- 16: cooking recipes from a data set
COLOURS = (
    "white",
    "orange",
    "magenta",
    "light_blue",
    "yellow",
    "lime",
    "pink",
    "gray",
    "light_gray",
    "cyan",
    "purple",
    "blue",
    "brown",
    "green",
    "red",
    "black",
)


def _cooking(version: str) -> dict[tuple[str, str], tuple[str, ...]]:
    kb = load_kb(version)
    return {(c.input, c.output): c.kinds for c in load_cooking(version, kb._items, kb._groups)}


@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_the_data_set_has_the_cooking_families_the_hand_table_missed(version):
    got = _cooking(version)
    for pair in [
        ("iron_ore", "iron_ingot"),
        ("sand", "glass"),
        ("cobblestone", "stone"),
        ("log", "charcoal"),
        ("clay", "terracotta"),
        ("netherrack", "nether_brick"),
        ("nether_bricks", "cracked_nether_bricks"),
        ("sea_pickle", "lime_dye"),
        ("kelp", "dried_kelp"),
        ("stone", "smooth_stone"),
        ("cactus", "green_dye"),
        ("nether_quartz_ore", "quartz"),
        ("iron_pickaxe", "iron_nugget"),
    ]:
        assert pair in got, pair
    for c in COLOURS:
        assert (f"{c}_terracotta", f"{c}_glazed_terracotta") in got
    assert set(got[("beef", "cooked_beef")]) == {"smelting", "smoking", "campfire"}
    assert set(got[("iron_ore", "iron_ingot")]) == {"smelting", "blasting"}
    assert all("smelting" in kinds for kinds in got.values())  # a furnace cooks all of them
    assert not [p for p in got if p[0] == p[1]]


def test_each_version_reads_the_table_of_its_time():
    assert bedrock_source("1.19.2") == "1.19.1" and bedrock_source("1.16.5") == "1.17.10"
    older = _cooking("1.16.5")
    assert ("raw_iron", "iron_ingot") not in older and ("basalt", "smooth_basalt") not in older
    assert ("raw_iron", "iron_ingot") in _cooking("1.19.2")
    assert load_cooking("1.11.2", {}, {}) == []  # 1.11.2 has no data-pack recipes
    assert [s.output for s in load_kb("1.11.2").smelting("hardened_clay")] == ["hardened_clay"]


@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_the_hand_table_holds_only_what_the_data_set_lacks(version):
    with open(DATA / "smelting.yaml") as f:
        gaps = yaml.safe_load(f)["modern_gaps"]
    got = _cooking(version)
    assert gaps and all((g["input"], g["output"]) not in got and g.get("source") for g in gaps)
    kb = load_kb(version)
    for g in gaps:
        assert g["input"] in [s.input for s in kb.smelting(g["output"])]


def test_glazed_terracotta_is_smelted_in_the_text_world():
    world = _world("1.19.2", {"furnace": 1, "red_terracotta": 2, "coal": 1})
    out = ScriptedController(world.kb).run(Goal("smelt", {"red_glazed_terracotta": 2}, {}, "furnace"), world)
    assert out["ok"] and world.inventory.get("red_glazed_terracotta") == 2


# ---------------------------------------------------------------- 17: apples, eggs, names, the peony
@pytest.mark.parametrize("version", VERSIONS)
def test_apples_fall_from_leaves_broken_by_hand_in_every_version(version):
    kb = load_kb(version)
    assert any(s.tools is None and s.chance == 0.005 for s in kb.mine_sources("apple"))  # 1 in 200 (issue 22)
    world = _world(version, {}, max_steps=10**6)
    out = ScriptedController(kb).run(Goal("mine", {"apple": 2}, {}, None), world)
    assert out["ok"] and world.inventory.get("apple") == 2
    leaves = kb.mine_sources("apple")[0].block
    assert world.steps == 400 * world.costs.mine(leaves).cost  # 200 breaks an apple, as expected


@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_leaves_broken_by_hand_drop_saplings_sticks_and_apples_by_chance_not_themselves(version):
    kb = load_kb(version)
    assert kb.block_drops("oak_leaves") == {}
    assert kb.chance_drops("oak_leaves") == {"oak_sapling": 0.05, "stick": 0.02, "apple": 0.005}
    assert kb.chance_drops("birch_leaves") == {"birch_sapling": 0.05, "stick": 0.02}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("item", ["golden_apple", "cake", "pumpkin_pie", "wheat_seeds"])
def test_foods_that_needed_an_apple_an_egg_or_seeds_have_a_plan(version, item):
    goals = solve(load_kb(version), {item: 1})
    assert goals and any(item in g.obj for g in goals)


@pytest.mark.parametrize("version", VERSIONS)
def test_chickens_lay_eggs_picked_up_with_nothing_held(version):
    kb = load_kb(version)
    (way,) = kb.interactions("egg")
    assert (way.source, way.on, way.uses) == ("chicken", "mob", None)
    world = _world(version, {"bucket": 1})
    out = ScriptedController(kb).run(Goal("mine", {"egg": 2}, {}, None), world)
    assert out["ok"] and world.inventory == {"bucket": 1, "egg": 2}  # nothing consumed
    assert kb.mob_drops("chicken").get("egg") is None  # killing one gives none


@pytest.mark.parametrize(
    "version, name, meant",
    [
        ("1.19.2", "grass_path", "dirt_path"),
        ("1.16.5", "dirt_path", "grass_path"),
        ("1.11.2", "dirt_path", "grass_path"),
        ("1.16.5", "red_flower", "poppy"),
        ("1.19.2", "yellow_flower", "dandelion"),
        ("1.11.2", "poppy", "red_flower"),
        ("1.11.2", "snow_block", "snow"),
    ],
)
def test_renamed_items_translate_between_versions(version, name, meant):
    assert load_kb(version).canonical(name) == meant
    world = _world(version, {name: 2})  # an inventory naming it is accepted
    assert world.inventory == {meant: 2}


@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_a_peony_is_picked_by_hand(version):
    kb = load_kb(version)
    assert kb.harvest_tools("peony") is None
    world = _world(version, {})
    out = ScriptedController(kb).run(Goal("mine", {"peony": 1}, {}, None), world)
    assert out["ok"] and world.inventory == {"peony": 1}


# ---------------------------------------------------------------- 18: no plan is possible
BEDROCK = Task("ObtainBedrock", "MT1", "Obtain bedrock.", {"bedrock": 1}, 3000)


def test_the_oracle_ends_at_once_with_the_real_cause_when_no_plan_exists():
    updates: list[str] = []
    result = run_episode(
        BEDROCK, RunSettings(planner="oracle"), kb=load_kb("1.16.5"), on_update=lambda node, u: updates.append(node)
    )
    assert not result["success"]
    assert result["rounds"] == 0 and len(result["plans"]) == 1  # planned once, not 12 times
    assert result["failure_reason"].startswith("no plan is possible: nothing gives bedrock")
    assert "describe" not in updates and "explain" not in updates


def test_a_skill_restriction_that_blocks_every_route_is_the_stated_cause():
    settings = RunSettings(planner="oracle", skills=("craft",))
    task = Task("CraftPlanks", "MT1", "Obtain planks.", {"planks": 4}, 3000)
    result = run_episode(task, settings, kb=load_kb("1.11.2"))
    assert not result["success"] and result["rounds"] == 0
    assert result["failure_reason"].startswith("no plan is possible: ")


def say_no():
    """A custom planner (package.module:factory form) that answers in plain text."""

    def plan(request):
        return "no plan is possible: this world has no trees"

    return plan


def test_any_planner_may_say_no_plan_is_possible_in_its_text():
    result = run_episode(
        BEDROCK, RunSettings(planner="tests.test_game_facts:say_no"), llm=FakeLLM([]), kb=load_kb("1.11.2")
    )
    assert result["failure_reason"] == "no plan is possible: this world has no trees"
    assert result["rounds"] == 0


def test_no_plan_cause_reads_the_flag_or_the_first_line_only():
    assert PlanResult("x", impossible="no furnace").no_plan_cause() == "no furnace"
    assert PlanResult("\n# no plan: gave up").no_plan_cause() == "gave up"
    assert PlanResult("mine({'log':1}, null)\n# no plan: later").no_plan_cause() is None
    assert PlanResult("mine({'log':1}, null)").no_plan_cause() is None
