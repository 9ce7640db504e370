"""A goal that failed but left enough for the rest of its plan (nodes/enough.py).

The held-out birch boat of 2026-12-05: the plan asks one log for five planks, the craft makes
four, and with the three planks held before, the boat's five are there. The loop goes on to the
boat instead of re-planning a failure that does not matter (`--short-goals go-on`, the default);
`--short-goals replan` keeps the paper's rule.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent.api import EpisodeContext
from agent.runner import run_episode
from nodes.enough import enough_for_rest, outcome_state, uses
from nodes.settings import RunSettings, SettingsError
from tests.fakes import FakeLLM
from worlds.knowledge import load_kb
from worlds.types import Goal, Task

KB = load_kb("1.11.2")
BOAT = Task("custom-birch_boat", "custom", "Obtain a birch boat.", {"birch_boat": 1}, 3000)
OVER_ASKED = """mine({'log':1}, null)  # step 1
craft({'planks':5}, {'log':1}, null)  # step 2: one log gives 4, not 5
craft({'birch_boat':1}, {'planks':5}, 'crafting_table')  # step 3"""


def _boat(short_goals: str, planks: int, max_rounds: int = 2) -> dict:
    settings = RunSettings(
        planner="deps",
        selector="fixed",
        explainer="game",
        inventory={"planks": planks, "crafting_table": 1},
        max_rounds=max_rounds,
        short_goals=short_goals,
    )
    outcomes: list[dict] = []

    def seen(node: str, update: dict) -> None:
        if node == "execute":
            outcomes.extend(update["outcomes"])

    result = run_episode(BOAT, settings, llm=FakeLLM([OVER_ASKED]), kb=KB, on_update=seen)
    return {**result, "outcomes": outcomes}


def test_a_short_craft_with_enough_held_goes_on_to_the_next_goal():
    r = _boat("go-on", planks=3)
    assert r["success"], r["failure_reason"]
    assert r["rounds"] == 0 and r["llm_calls"] == 1
    short = r["outcomes"][1]
    assert short["ok"] and short["short"] == {"planks": [7, 5]}  # 3 held + 4 made; the boat uses 5
    assert "needs 1 log, has 0" in short["error"]  # the world's refusal is kept
    assert r["final_inventory"] == {"birch_boat": 1, "planks": 2, "crafting_table": 1}
    # what the progress line and the trace's timeline say of it
    assert outcome_state(short) == "ok, short but enough (7 planks held, 5 used later): " + short["error"]
    assert outcome_state(r["outcomes"][0]) == "ok"


def test_replan_keeps_the_papers_rule():
    r = _boat("replan", planks=3)
    assert not r["success"]
    assert r["rounds"] == 2 and "re-planning budget spent" in r["failure_reason"]
    assert not r["outcomes"][1]["ok"] and "short" not in r["outcomes"][1]


def test_too_few_held_for_the_rest_is_still_a_failure():
    r = _boat("go-on", planks=0, max_rounds=0)  # 4 planks made, the boat needs 5
    assert not r["success"]
    failed = r["outcomes"][1]
    assert not failed["ok"] and "short" not in failed and "needs 1 log, has 0" in failed["error"]


def test_uses_reads_the_worlds_recipes_not_the_plans_counts():
    assert uses(Goal("craft", {"planks": 5}, {"log": 1}), KB) == {"log": 2}  # two crafts of 4
    assert uses(Goal("smelt", {"iron_ingot": 3}, {"iron_ore": 1}, "furnace"), KB) == {"iron_ore": 3, "furnace": 1}
    assert uses(Goal("mine", {"cobblestone": 2}, {}, "wooden_pickaxe"), KB) == {"wooden_pickaxe": 1}
    assert uses(Goal("mine", {"log": 2}), KB) == {}


def test_only_what_a_later_goal_uses_is_judged():
    made = Goal("craft", {"planks": 5}, {"log": 1})
    table = Goal("craft", {"crafting_table": 1}, {"planks": 4})
    assert enough_for_rest(made, [table], {"planks": 4}, KB) == {"planks": [4, 4]}
    assert enough_for_rest(made, [table], {"planks": 3}, KB) == {}
    assert enough_for_rest(made, [], {"planks": 40}, KB) == {}  # nothing later: not judged here
    furnace = Goal("craft", {"furnace": 1}, {"cobblestone": 8}, "crafting_table")
    smelt = Goal("smelt", {"iron_ingot": 1}, {"iron_ore": 1}, "furnace")
    assert enough_for_rest(furnace, [smelt], {"furnace": 1}, KB) == {"furnace": [1, 1]}  # a station: one


def test_a_bad_value_is_one_line_from_settings_the_api_and_the_cli():
    with pytest.raises(SettingsError, match="unknown short-goals 'maybe'; accepted: go-on, replan"):
        RunSettings(short_goals="maybe").validate()
    assert EpisodeContext(short_goals="replan").settings().short_goals == "replan"
    p = subprocess.run(
        [sys.executable, "-m", "agent.cli", "run", "CraftPlanks", "--short-goals", "maybe"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2
    assert "--short-goals" in p.stderr and "go-on" in p.stderr and "replan" in p.stderr
    assert len(p.stderr.strip().splitlines()) <= 2  # usage line and the error at most


def test_settings_stored_before_the_field_resume_as_they_ran():
    stored = RunSettings(planner="oracle").to_dict()
    assert RunSettings.from_dict(stored).short_goals == "go-on"
    del stored["short_goals"]  # a trace or run.json written before --short-goals existed
    assert RunSettings.from_dict(stored).short_goals == "replan"
