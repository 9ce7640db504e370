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
    milk = teacher_actions(kb, "mine:milk_bucket", 2, 7)
    assert milk["ok"] >= 2 and milk["use"] >= milk["ok"]  # one bucket used on a cow per milk
    dirt = teacher_actions(kb, "mine:dirt", 2, 7)
    assert dirt["ok"] >= 2 and dirt["use"] == 0 and dirt["jump_place"] == 0
    assert data.WEIGHTS == {}  # the training goal weights are left as they were


def test_an_unknown_goal_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--goals", "mine:nope"])
    assert e.value.code == 2
    assert "unknown goal 'mine:nope'" in capsys.readouterr().err
