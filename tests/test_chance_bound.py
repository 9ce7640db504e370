"""experiments/chance_bound.py: the most an apple can succeed on the skill table's worlds."""

from __future__ import annotations

import json

import pytest

from experiments.chance_bound import chance_bound, main


def test_the_bound_is_the_chance_that_a_worlds_oak_leaves_give_an_apple():
    out = chance_bound("mine:apple", 3, 1)
    assert out["worlds"] == 3 and len(out["sources"]) == 3
    expected = sum(1 - (199 / 200) ** n for n in out["sources"]) / 3
    assert out["bound"] == pytest.approx(expected, abs=1e-3) and 0 < out["bound"] < 1


def test_the_command_prints_json_and_refuses_a_goal_that_is_no_chance_drop(capsys):
    assert main(["--goal", "mine:apple", "--episodes", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["goal"] == "mine:apple"
    with pytest.raises(SystemExit) as e:
        main(["--goal", "mine:log", "--episodes", "2"])
    assert e.value.code == 2 and "mine:log is not a chance drop" in capsys.readouterr().err
