"""The DEPS reader (training/deps_reader.py, issue 23): each plan it writes can be read off the
DEPS planner's own dialogue (the target's recipe line, the world's refusal and its recipe lines,
the plan before), it solves items through the real graph, and the describer says how much of a
part-made goal is still to make so that a re-plan can copy the number."""

from __future__ import annotations

import re
import subprocess
import sys

from agent.runner import run_episode
from nodes.describe import describe_outcomes
from nodes.parse import code_goals, parse_call
from nodes.registry import DialogueOptions
from nodes.settings import RunSettings
from training.deps_reader import MAX_GOALS, plan_text, recorded_examples
from training.whole_game import item_task
from worlds.knowledge import load_kb
from worlds.types import Goal

KB = load_kb("1.11.2")
READER = "training.deps_reader:factory"
_FAILED = re.compile(r'failed on step \d+ "([^"]+)"(?: with (\d+) of its \d+ \w+ still to make)?')


def _item(g: Goal) -> str:
    return next(iter(g.obj))


def test_the_reader_solves_items_through_the_graph():
    settings = RunSettings(planner=READER, explainer="game", max_rounds=30)
    for item in ("spruce_boat", "ladder", "stone_pickaxe"):
        row = run_episode(item_task(item, "empty", {}), settings, kb=KB)
        assert row["success"], (item, row["failure_reason"])
        assert row["rounds"] >= 2  # it went down the recipe tree, led by the refusals
        assert len(code_goals(row["plans"][0])) == 1  # the first plan is the target's own recipe line


def test_every_plan_is_read_off_its_own_dialogue():
    """The first plan: the verb and item of the question's recipe line, the task's count. A re-plan:
    each goal is a goal of the plan before (the failed one with the count the description gives),
    or makes a thing the last message names (the refusal or its recipe lines)."""
    tasks = [item_task(i, "empty", {}) for i in ("acacia_fence_gate", "bucket", "bread")]
    examples = recorded_examples(tasks, KB, history_chars=2000)
    assert examples and all(e["messages"][0]["role"] == "system" for e in examples)
    replans = 0
    for e in examples:
        asked, reply = e["messages"][-2]["content"], e["messages"][-1]["content"]
        goals = code_goals(reply)
        assert 1 <= len(goals) <= MAX_GOALS
        assert _item(goals[-1]) in asked  # the plan ends with the task's item
        if e["round"] == 0:
            assert len(goals) == 1 and f"obtain {goals[0].obj[_item(goals[0])]} {_item(goals[0])}" in asked
            continue
        replans += 1
        before = {g.code() for g in code_goals(e["messages"][-3]["content"])}
        failed = _FAILED.search(asked)
        for g in goals:
            copied = g.code() in before
            named = re.search(rf"\b{re.escape(_item(g))}\b", asked) is not None
            assert copied or named, (g.code(), asked)
        if failed and failed.group(2):  # a part-made goal comes back with the number still to make
            redo = parse_call(failed.group(1))
            again = [g for g in goals if g.action == redo.action and g.obj.keys() == redo.obj.keys()]
            assert again and again[0].obj[_item(redo)] == int(failed.group(2))
    assert replans >= 6


def test_the_describer_says_what_a_part_made_goal_still_has_to_make():
    goal = Goal("craft", {"spruce_planks": 5}, {"spruce_log": 1}, None).to_dict()
    state = {
        "plans": ["x"],
        "inventory": {"spruce_planks": 4},
        "outcomes": [
            {
                "plan": 0,
                "step": 0,
                "goal": goal,
                "ok": False,
                "error": "cannot craft spruce_planks: needs 1 spruce_log, has 0",
                "gained": {"spruce_planks": 4},
            }
        ],
    }
    text = describe_outcomes(state)
    assert "with 1 of its 5 spruce_planks still to make: cannot craft" in text
    state["outcomes"][0]["gained"] = {}
    assert "still to make" not in describe_outcomes(state)


def test_a_plan_longer_than_the_grammar_keeps_its_last_goal():
    goals = [Goal("mine", {"log": k + 1}) for k in range(20)]
    text = plan_text(goals)
    kept = code_goals(text)
    assert len(kept) == MAX_GOALS and kept[-1].obj == {"log": 20}
    assert all(line.endswith(": ") for line in text.splitlines())  # the grammar's empty step comment


def test_history_chars_is_a_deps_option_with_bounds():
    assert DialogueOptions().history_chars == 8000
    from nodes.planners.llm import deps_planner

    settings = RunSettings(planner="deps", options={"deps": DialogueOptions(history_chars=2000)})
    assert deps_planner(None, settings).history_chars == 2000
    bad = subprocess.run(
        [sys.executable, "-m", "agent.cli", "run", "obtain a stick", "--planner", "oracle", "--history-chars", "10"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0 and "--history-chars" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
