"""The parser: the DEPS code form exactly, other plan forms by grammar or embedding, and
nothing dropped silently."""

from __future__ import annotations

import pytest

from nodes.parse import GoalParser, parse_call
from nodes.planners.baselines import cap_to_code
from nodes.planners.llm import goals_to_json, json_to_goals, plan_schema
from worlds.knowledge import load_kb
from worlds.types import Goal

KB = load_kb("1.11.2")


@pytest.fixture(scope="module")
def parser():
    return GoalParser(KB)


def test_code_form_positional_and_keyword():
    g = parse_call("craft({'stone_pickaxe':1}, {'cobblestone':3,'stick':2}, 'crafting_table')")
    assert g == Goal("craft", {"stone_pickaxe": 1}, {"cobblestone": 3, "stick": 2}, "crafting_table")
    g = parse_call('mine(obj = {"log":3}, tool = None)')
    assert g.action == "mine" and g.obj == {"log": 3} and g.tool is None
    assert parse_call("mine({'cobblestone':2}, null)").tool is None


def test_code_form_round_trips_through_goal_code():
    g = Goal("smelt", {"iron_ingot": 3}, {"iron_ore": 3, "planks": 2}, "furnace")
    assert parse_call(g.code()) == g


def test_a_whole_deps_plan_with_comments_and_wrapper(parser):
    text = """def obtain_1_stone_sword(inventory = {}):
    mine({'log':3}, null); # step 1: mine 3 log without tool
    craft({'planks':12}, {'log':3}, null); # step 2: craft 12 planks from 3 log
    return 'stone_sword'"""
    goals, notes = parser.parse(text)
    assert [g.code() for g in goals] == ["mine({'log':3}, null)", "craft({'planks':12}, {'log':3}, null)"]
    assert goals[1].text.startswith("step 2")
    assert notes == []


def test_aliases_resolve_to_game_names(parser):
    goals, notes = parser.parse(
        "craft({'wooden_pressure':1}, {'planks':2}, null)\ncraft({'door':1}, {'planks':6}, 'crafting_table')"
    )
    assert [next(iter(g.obj)) for g in goals] == ["wooden_pressure_plate", "wooden_door"]


def test_progprompt_action_functions(parser):
    goals, _ = parser.parse(
        "from actions import mine_log, craft_planks\n    mine_log(num = 3)  # step 1\n    craft_planks(num=12)"
    )
    assert [(g.action, g.obj) for g in goals] == [("mine", {"log": 3}), ("craft", {"planks": 12})]


def test_free_form_steps_by_grammar(parser):
    goals, notes = parser.parse(
        "step 1: mine 3 log without tool\nstep 2: craft 12 planks from 3 log\n"
        "Thinking: 12 planks.\nstep 3: craft 1 crafting table\nstep 4: kill 2 cows"
    )
    assert [(g.action, g.obj) for g in goals] == [
        ("mine", {"log": 3}),
        ("craft", {"planks": 12}),
        ("craft", {"crafting_table": 1}),
        ("kill", {"cow": 2}),
    ]
    assert notes == []


def test_free_form_by_embedding_and_unknown_names_reported(parser):
    goals, notes = parser.parse("chop down an oak tree for wood")
    assert len(goals) == 1 and goals[0].action == "mine" and "log" in next(iter(goals[0].obj))
    goals, notes = parser.parse("mine({'wood':2}, null)")
    assert goals[0].obj == {"log": 2} and notes == []  # the game's display name for log
    goals, notes = parser.parse("craft({'wooden_plank':4}, {'log':1}, null)\ncraft({'iron_pick':1}, {}, null)")
    assert [g.obj for g in goals] == [{"planks": 4}, {"iron_pickaxe": 1}]  # nearest known names...
    assert any("'wooden_plank'" in n for n in notes) and any("'iron_pick'" in n for n in notes)  # ...and said so


def test_unmappable_goals_are_reported(parser):
    goals, notes = parser.parse("please sing a song to the villagers\nmine({'log':1}, null)")
    assert len(goals) == 1
    assert any("sing a song" in n for n in notes)
    goals, notes = parser.parse("craft({'stick':4}, {'planks':2, null)")
    assert goals == [] and any("could not read" in n for n in notes)


def test_code_as_policies_loops_become_goals():
    text = """def obtain(inventory={}):
    while not inventory.has({'log': 3}):
        mine(obj="log", tool=null)
    while not inventory.has({'wooden_pickaxe': 1}):
        assert inventory.has({'crafting_table': 1}), "no table"
        craft(obj="wooden_pickaxe", tool="crafting_table")"""
    assert cap_to_code(text).splitlines() == [
        "mine({'log':3}, null)",
        "craft({'wooden_pickaxe':1}, {}, 'crafting_table')",
    ]


def test_structured_plans_round_trip_and_schema_names_are_game_names():
    goals = [Goal("mine", {"log": 1}), Goal("craft", {"planks": 4}, {"log": 1})]
    assert json_to_goals(goals_to_json(goals)) == goals
    schema = plan_schema(KB)
    item = schema["properties"]["goals"]["items"]["properties"]["item"]
    assert "wooden_pickaxe" in item["enum"] and "cow" in item["enum"] and "cloak" not in item["enum"]
