"""The baseline planners behind the one planner interface, with scripted LLM replies."""

from __future__ import annotations

from agent.runner import run_episode
from nodes import registry
from nodes.settings import RunSettings
from tests.fakes import FakeLLM
from worlds.knowledge import load_kb
from worlds.types import Task

KB = load_kb("1.11.2")
PICKAXE = Task("CraftWoodenPickaxe", "MT2", "Obtain a wooden pickaxe.", {"wooden_pickaxe": 1}, 3000)
STEPS = """step 1: mine 3 log
step 2: craft 12 planks
step 3: craft 4 stick
step 4: craft 1 crafting_table
step 5: craft 1 wooden_pickaxe"""


CONTRACT_PLANNERS = (
    "deps",
    "dep",
    "zero-shot",
    "progprompt",
    "cot",
    "inner-monologue",
    "code-as-policies",
    "rider",
    "mp5",
    "oracle",
)  # the --planner values the command-line contract names (docs/cli.md)


def test_every_contract_planner_is_registered():
    assert set(CONTRACT_PLANNERS) <= set(registry.names("planner"))
    for name in CONTRACT_PLANNERS:  # each factory can be found
        assert callable(registry.get("planner", name).load())


def test_zero_shot_plans_once_and_succeeds_with_a_good_plan():
    result = run_episode(PICKAXE, RunSettings(planner="zero-shot"), llm=FakeLLM([STEPS]), kb=KB)
    assert result["success"] and result["llm_calls"] == 1 and result["rounds"] == 0


def test_zero_shot_never_replans_after_a_failure():
    bad = "step 1: craft 1 wooden_pickaxe"
    result = run_episode(PICKAXE, RunSettings(planner="zero-shot"), llm=FakeLLM([bad]), kb=KB)
    assert not result["success"] and result["rounds"] == 0 and result["llm_calls"] == 1
    assert "0 of 0 rounds" in result["failure_reason"]


def test_cot_skips_its_thinking_lines():
    text = "\n".join(f"{line}\nThinking: the inventory changes." for line in STEPS.splitlines())
    result = run_episode(PICKAXE, RunSettings(planner="cot"), llm=FakeLLM([text]), kb=KB)
    assert result["success"]


def test_progprompt_program():
    program = """from actions import mine_log, craft_planks, craft_stick, craft_crafting_table, craft_wooden_pickaxe
def obtain_wooden_pickaxe(inventory={}):
    mine_log(num=3)
    craft_planks(num=12)
    craft_stick(num=4)
    craft_crafting_table(num=1)
    craft_wooden_pickaxe(num=1)
    return "wooden_pickaxe\""""
    result = run_episode(PICKAXE, RunSettings(planner="progprompt"), llm=FakeLLM([program]), kb=KB)
    assert result["success"]


def test_code_as_policies_replans_on_the_games_message():
    first = """while not inventory.has({'wooden_pickaxe': 1}):
    craft(obj="wooden_pickaxe", tool="crafting_table")"""
    second = """while not inventory.has({'log': 3}):
    mine(obj="log", tool=null)
while not inventory.has({'planks': 12}):
    craft(obj="planks", tool=null)
while not inventory.has({'stick': 4}):
    craft(obj="stick", tool=null)
while not inventory.has({'crafting_table': 1}):
    craft(obj="crafting_table", tool=null)
while not inventory.has({'wooden_pickaxe': 1}):
    craft(obj="wooden_pickaxe", tool="crafting_table")"""
    result = run_episode(PICKAXE, RunSettings(planner="code-as-policies"), llm=FakeLLM([first, second]), kb=KB)
    assert result["success"] and result["rounds"] == 1 and result["llm_calls"] == 2  # no LLM explainer


def test_inner_monologue_asks_for_one_goal_at_a_time():
    goals = ["mine 3 log", "craft 12 planks", "craft 4 stick", "craft 1 crafting_table", "craft 1 wooden_pickaxe"]
    result = run_episode(PICKAXE, RunSettings(planner="inner-monologue", max_rounds=1), llm=FakeLLM(goals), kb=KB)
    assert result["success"]
    assert result["plans"] == goals and result["llm_calls"] == 5


def test_dep_uses_the_fixed_selector_and_deps_the_default():
    from agent.components import make_selector

    assert make_selector(RunSettings(planner="dep")).name == "fixed"
    assert make_selector(RunSettings(planner="dep", selector="random")).name == "random"
