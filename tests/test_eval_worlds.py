"""The skill table's and training evaluation's worlds (training/controller/train.py: eval_episodes):
a mine goal's world holds a source block of it, as an episode's own grown map would."""

from __future__ import annotations

import numpy as np
import pytest

from training.controller.train import with_source
from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.sources import goal_sources
from worlds.knowledge import load_kb
from worlds.types import Goal

REEDS = Goal("mine", {"reeds": 1})


@pytest.fixture(scope="module")
def probe():
    return BatchGridWorld(1, load_kb("1.11.2"))


def canes(probe, seed: int) -> int:
    probe.reset([seed], [{}])
    cells, _ = goal_sources(probe, REEDS)
    return int(np.isin(probe.cells[0], np.array(sorted(cells), dtype=probe.cells.dtype)).sum())


def test_a_world_with_no_sugar_cane_is_replaced_by_the_next_that_has_some(probe):
    bare = next(s for s in range(1000, 1200) if canes(probe, s) == 0)
    kept = next(s for s in range(1000, 1200) if canes(probe, s) > 0)
    chosen = with_source(probe, REEDS, bare, {})
    assert chosen > bare and canes(probe, chosen) > 0
    assert all(canes(probe, s) == 0 for s in range(bare, chosen))  # the first one after it
    assert with_source(probe, REEDS, kept, {}) == kept


def test_a_kill_goal_keeps_its_seed_since_animals_wander_in(probe):
    assert with_source(probe, Goal("kill", {"cow": 1}), 12345, {}) == 12345
