"""experiments/teacher_actions.py: the expert's item-taking primitives counted per goal."""

from __future__ import annotations

import pytest

from experiments.teacher_actions import main, teacher_actions
from training.controller import data
from worlds.knowledge import load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def test_the_milk_expert_uses_its_bucket_and_the_dirt_expert_places_nothing(kb):
    with data.weights_set({"mine:log": 2.0}):  # a caller's own weights, as a training run has
        milk = teacher_actions(kb, "mine:milk_bucket", 2, 7)
        dirt = teacher_actions(kb, "mine:dirt", 2, 7)
        assert data.WEIGHTS == {"mine:log": 2.0}  # the caller's weights are left as they were
    assert data.WEIGHTS == {}
    assert milk["ok"] >= 2 and milk["use"] >= milk["ok"]  # one bucket used on a cow per milk
    assert dirt["ok"] >= 2 and dirt["use"] == 0 and dirt["jump_place"] == 0


def test_an_unknown_goal_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--goals", "mine:nope"])
    assert e.value.code == 2
    assert "unknown goal 'mine:nope'" in capsys.readouterr().err
