"""The skill table's and training evaluation's worlds (training/controller/train.py: eval_episodes):
a mine goal's world holds a source block of it, as an episode's own grown map would."""

from __future__ import annotations

import numpy as np
import pytest

from training.controller.seeds import with_source
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


def test_a_training_world_is_made_the_skill_table_s_way_only_as_often_as_asked(probe):
    """training_seed (--source-seed-p): with p 1 a bare seed moves on to the one with_source gives;
    with p 0 it stays and the generator is not drawn from, so runs without the option are as they were."""
    from training.controller.seeds import training_seed

    bare = next(s for s in range(1000, 1200) if canes(probe, s) == 0)
    rng = np.random.default_rng(0)
    assert training_seed(probe, rng, REEDS, bare, {}, 1.0) == with_source(probe, REEDS, bare, {})
    untouched = np.random.default_rng(0)
    assert training_seed(probe, untouched, REEDS, bare, {}, 0.0) == bare
    assert untouched.random() == np.random.default_rng(0).random()


def test_a_seed_with_no_source_near_it_is_kept_for_training_and_refused_for_the_table(probe):
    """No plains world holds emerald ore (it forms only under extreme hills): the table refuses
    such a goal in one line; a training world keeps its drawn seed."""
    from skills.learned.paths import LearnedError
    from training.controller.seeds import training_seed

    emerald, plains = Goal("mine", {"emerald": 1}), {"biome": "plains"}
    with pytest.raises(LearnedError, match="no world among seeds 7..56 holds a source of"):
        with_source(probe, emerald, 7, plains)
    assert training_seed(probe, np.random.default_rng(0), emerald, 7, plains, 1.0) == 7


def test_collected_worlds_hold_their_first_goal_s_source_with_the_option():
    """collect(..., source_seed_p=1): every fresh world's first mine goal has a source on its map,
    as in the skill table; the rows themselves are the expert's as before."""
    from training.controller import data

    kb = load_kb("1.11.2")
    seen = []
    real = data.BatchGridWorld.reset

    def spy(self, seeds, options=None):
        out = real(self, seeds, options)
        if self.n > 1:
            seen.append([int(s) for s in seeds])
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(data.BatchGridWorld, "reset", spy)
        mp.setattr(data, "sample_goal", lambda rng, scatter: (REEDS, {}))
        rows, stats = data.collect(kb, 4, seed=3, n_envs=4, source_seed_p=1.0, seconds=60)
    (seeds,) = seen
    check = BatchGridWorld(1, kb)
    assert all(canes(check, s) > 0 for s in seeds)
    assert stats["pursuits"] >= 4 and len(rows["action"]) > 0
