"""DAgger for the DEPS adapter (training/deps_dagger.py): the model's plans drive the episode, the
DEPS reader rule's answer to each same request is the label, the records are written as each
episode ends and a rerun goes on from them, and no held-out item is ever a target."""

from __future__ import annotations

import json

from nodes.registry import DialogueOptions
from nodes.settings import RunSettings
from tests.fakes import FakeLLM
from tests.shipped_adapter import check_shipped_adapter
from training.deps_dagger import RECORDS, SOURCE, _tasks, collect
from training.deps_reader import fact_goal, plan_text
from training.whole_game import item_task, split_items
from worlds.knowledge import load_kb

KB = load_kb("1.11.2")
WRONG = "mine({'log':1}, null)  # step 1: \n"  # a model that never reads the recipe line


def test_the_model_plays_and_the_rule_labels(tmp_path):
    settings = RunSettings(
        planner="training.deps_dagger:factory",
        explainer="game",
        max_rounds=3,
        options={"deps": DialogueOptions(history_chars=2000)},
    )
    tasks = [item_task("ladder", "empty", {}), item_task("bread", "empty", {})]
    records = collect(tmp_path, settings, tasks[:1], progress=False, llm=FakeLLM([WRONG]))
    assert records and all(r["model_plan"] == WRONG for r in records)  # the model's plans ran
    first = records[0]
    assert first["round"] == 0 and first["source"] == SOURCE and first["task"] == tasks[0].id
    assert first["messages"][-1]["content"] == plan_text([fact_goal(KB, "ladder", 1)])  # the rule's answer
    assert "ladder" in first["messages"][-2]["content"]  # to the planner's own question
    assert any(r["revision"] for r in records)  # re-plans after the model's own failures are labelled too
    # a rerun skips the task already recorded and goes on with the next
    again = collect(tmp_path, settings, tasks, progress=False, llm=FakeLLM([WRONG]))
    lines = (tmp_path / RECORDS).read_text().splitlines()
    assert len(again) == len(lines) > len(records)
    assert {json.loads(x)["task"] for x in lines} == {t.id for t in tasks}


def test_the_tasks_are_the_training_split_only():
    held = set(split_items(KB).held_out)
    tasks = _tasks(0, (0, 1), seed=0)
    assert len(tasks) > 500 and not {next(iter(t.target)) for t in tasks} & held
    halves = _tasks(40, (0, 2), seed=0) + _tasks(40, (1, 2), seed=0)
    assert sorted(t.id for t in halves) == sorted(t.id for t in _tasks(40, (0, 1), seed=0))


def test_the_deps_reader_adapter_ships_as_local_deps_reader_and_is_the_one_its_card_describes():
    check_shipped_adapter("deps-reader", KB)
