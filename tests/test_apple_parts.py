"""experiments/apple_parts.py: the logs a trunk cut at its foot leaves hanging, the target map of
given cells (sense.Cells) that points a network at them, and one world run end to end."""

from __future__ import annotations

import json

import pytest

from experiments.apple_parts import hanging, main
from skills.learned import sense
from tests.test_leaf_decay import _world, tree
from worlds.gridworld.sources import felling_sources
from worlds.knowledge import load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def test_a_standing_trunk_hangs_nothing_and_a_cut_one_hangs_all_above_the_cut(kb):
    w = _world(kb, tree(10, 10) + tree(20, 20))  # trunks at y 65..69
    env, oak = w.env, sorted(felling_sources(w.env, "apple"))
    assert hanging(env, 0, oak) == []
    env.cells[0, 10, 10, 65] = 0  # the foot of the first trunk, cut
    assert sorted(hanging(env, 0, oak)) == [(10, y, 10) for y in range(66, 70)]
    env.cells[0, 20, 20, 67] = 0  # the second trunk cut halfway up: only what is over the cut hangs
    assert (20, 66, 20) not in hanging(env, 0, oak) and (20, 68, 20) in hanging(env, 0, oak)


def test_a_target_map_of_given_cells_counts_those_cells_and_no_others(kb):
    w = _world(kb, tree(8, 8), agent=(4, 65, 4))
    env = w.env
    points = [(8, 66, 8), (8, 67, 8)]
    tmap = sense.target_map(env, [0], [sense.Cells(env, points)])
    assert tmap.sum() == 2  # both within the map's window and bands, the other logs not counted
    assert sense.target_map(env, [0], [sense.Cells(env, [])]).sum() == 0


def test_one_world_ends_in_a_row_whose_jobs_add_up_to_its_steps(capsys):
    assert main(["--episodes", "1", "--last", "1", "--finish", "none"]) == 0
    row, summary = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert sum(row["drove"].values()) == row["steps"]  # one job a step, each a primitive of one step
    assert row["drove"]["finish"] == 0  # --finish none: no trunk is finished
    assert summary == {"finish": "none", "finisher": "shipped", "worlds": 1, "ok": int(row["ok"])}
    assert row["oak_logs_felled"] >= 0 and row["logs_hanging"] >= 0
