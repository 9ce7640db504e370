"""The skill table's `--count N`: every mine and kill try asks for N of its item or mob, as a
plan's `mine 4 log` runs in a task (training/controller/rollout.py counts them), on the same
worlds as the table at one; a find is asked once; bad counts get one line and exit 2; the logs
written before the option keep their chunks' keys."""

from __future__ import annotations

import pytest

from experiments import chunk_log, skill_table
from training.controller.rollout import rollout
from worlds.knowledge import load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


@pytest.fixture(scope="module")
def eps():
    return skill_table.episodes_for(2, 3, "mine:dirt,kill:cow,find:pig")


def test_count_sets_mine_and_kill_goals_and_leaves_finds_and_worlds(eps):
    three = skill_table.with_count(eps, 3)
    assert [(sd, o) for _, sd, o in three] == [(sd, o) for _, sd, o in eps]  # the same worlds
    for (g, _, _), (g3, _, _) in zip(eps, three):
        assert g3.action == g.action and list(g3.obj) == list(g.obj)
        assert list(g3.obj.values()) == ([1] if g.action == "find" else [3])
    assert skill_table.with_count(eps, 1) is eps


@pytest.mark.parametrize("goal", ["mine:dirt", "kill:cow"])
def test_a_try_asked_for_three_goes_on_after_the_first(kb, eps, goal):
    """The scripted expert on the same two worlds: asked for one it stops at the first dirt (or
    cow), asked for three it gets them all, so each of its tries takes more steps."""
    some = [e for e in eps if skill_table._key(e[0]) == goal]
    one = rollout(kb, some, "scripted", budget=2400, n_envs=2)
    three = rollout(kb, skill_table.with_count(some, 3), "scripted", budget=2400, n_envs=2)
    assert all(r["ok"] for r in one + three)
    assert all(t["steps"] > o["steps"] for o, t in zip(one, three))


def test_the_table_writes_its_count(tmp_path):
    import json

    out = tmp_path / "t.json"
    args = ["--episodes", "1", "--skills", "mine:dirt", "--no-learned", "--count", "2", "--out", str(out)]
    assert skill_table.main(args) == 0
    table = json.loads(out.read_text())
    assert table["count"] == 2 and table["rows"][0]["scripted_success"] == 1.0


@pytest.mark.parametrize("bad", ["0", "65", "-1"])
def test_a_count_out_of_range_is_one_line_and_exit_2(capsys, bad):
    with pytest.raises(SystemExit) as e:
        skill_table.main(["--skills", "mine:dirt", "--count", bad])
    assert e.value.code == 2
    assert "--count must be from 1 to 64" in capsys.readouterr().err


def test_a_count_of_one_keeps_the_chunk_keys_logged_before_it():
    job = {k: 0 for k in chunk_log.KEY_FIELDS} | {"path": None}
    assert chunk_log.chunk_key(job | {"count": 1}) == chunk_log.chunk_key(job)
    assert chunk_log.chunk_key(job | {"count": 3}) != chunk_log.chunk_key(job)
