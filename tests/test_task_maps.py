"""experiments/task_maps.py: the expert (or the policy alone) on the skill table's worlds, maps grown as a task's."""

from __future__ import annotations

import json

import pytest

from experiments.task_maps import main


def test_one_world_of_dirt_ends_in_a_row_and_a_summary(capsys):
    assert main(["--goal", "mine:dirt", "--episodes", "1"]) == 0
    row, summary = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert row["ok"] and row["sources"] > 0 and row["side"] >= 48 and 0 < row["steps"] <= 2400
    assert row["driver"] == "scripted"
    assert summary == {
        "goal": "mine:dirt",
        "controller": "scripted",
        "worlds": 1,
        "ok": 1,
        "mean_steps_ok": float(row["steps"]),
    }


def test_the_learned_policy_alone_drives_a_world_when_asked(capsys):
    assert main(["--goal", "mine:dirt", "--episodes", "1", "--controller", "learned"]) == 0
    row, summary = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert row["driver"] == "policy" and row["ok"] and 0 < row["steps"] <= 2400
    assert summary["controller"] == "learned" and summary["ok"] == 1


def test_a_task_start_is_dawn_and_the_default_is_the_skill_tables(capsys):
    assert main(["--goal", "mine:dirt", "--episodes", "1", "--start", "task"]) == 0
    dawn = json.loads(capsys.readouterr().out.splitlines()[0])
    assert main(["--goal", "mine:dirt", "--episodes", "1"]) == 0
    table = json.loads(capsys.readouterr().out.splitlines()[0])
    assert dawn["start_clock"] == 0 < table["start_clock"]  # dawn is the clock's step 0


def test_a_find_goal_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--goal", "find:tree", "--episodes", "1"])
    assert e.value.code == 2 and "not a mine or kill goal" in capsys.readouterr().err
