"""The batched grid world's trajectory, bit for bit (issue 21): changes made for speed alone must
leave every world's state, observation, reward and event as they were for a fixed action stream."""

from dataclasses import replace

import numpy as np

from experiments.grid_hash import trajectory_digest
from worlds.gridworld import rules


def test_the_batched_worlds_step_for_step_as_recorded():
    # recorded on commit c2e4f51, after the night's hostiles stopped spawning on leaves and cactus
    # (a rule of the game, not a change for speed): 64 worlds from dawn, from dusk and near the
    # night's end, and 16 small low maps at night (mobs at the map's rim and floor), 300 steps
    # each, the full state hashed every 10 steps
    assert trajectory_digest(64, 300, 10) == "0bcebd306cc4823e008d0672ddd6d6e0fe81665d"


def test_without_the_spawn_rule_the_trajectory_is_the_one_recorded_before_it(monkeypatch):
    # the digest recorded on commit 651f327, before the step was made faster and before the spawn
    # rule: with `no_spawn` cleared the world steps as it did then, so the rule is all that changed
    made = rules._rules

    def without(*args):
        r = made(*args)
        return replace(r, no_spawn=np.zeros_like(r.no_spawn))

    monkeypatch.setattr(rules, "_rules", without)
    assert trajectory_digest(64, 300, 10) == "89a719af0d217d0f060c21a36ca643af6a4b14e1"
