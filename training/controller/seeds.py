"""Which seed a world is made from: the skill table's rule, shared with training (issue 20, round 20).

The skill table (and a training run's own evaluation) tries a mine goal only in a world that holds
one of its source blocks: a generated 48 x 48 map can hold no sugar cane at all, which no driver
can mine. `with_source` moves a seed on to the first one whose world does. Training may make its
worlds the same way (`--source-seed-p`), so that its starts are the skill table's kind of start, a
world of any biome with the source somewhere on it, where `--source-biome-p` makes the whole map
of the biome the source forms in (round 20: leaves trained in forests failed under the skill
table's tall spruces; trained in worlds of any biome, they went from 0.88 to 0.96).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skills.learned.paths import LearnedError
from worlds.types import Goal

TRIES = 50  # seeds tried after the first before giving up


def with_source(probe: Any, goal: Goal, seed: int, options: dict, tries: int = TRIES) -> int:
    """`seed`, or the first seed after it whose world holds a source block of the mine goal
    or holds the block a find goal looks for (mobs wander in, so a kill or find-a-mob goal keeps
    its seed). `probe` is a one-world BatchGridWorld; it is reset to each seed tried."""
    from skills.find import is_mob, present
    from worlds.gridworld.sources import goal_sources, source_blocks

    if goal.action not in ("mine", "find"):
        return seed
    if goal.action == "mine" and not goal_sources(probe, goal)[0]:  # got from a mob (milk from a cow): as kill
        return seed
    for s in range(seed, seed + tries):
        probe.reset([s], [options])
        if goal.action == "find" and (
            is_mob(probe.vocab, next(iter(goal.obj))) or present(probe, 0, next(iter(goal.obj))).any()
        ):
            return s
        if goal.action == "mine" and source_blocks(probe, 0, goal):
            return s
    raise LearnedError(f"no world among seeds {seed}..{seed + tries - 1} holds a source of {goal.code()}")


def training_seed(probe: Any, rng: np.random.Generator, goal: Goal, seed: int, options: dict, p: float) -> int:
    """A fresh training world's seed: with chance `p`, moved on as the skill table moves its seeds
    (`with_source`; kept as drawn where no seed of the next TRIES holds the source). With p 0 the
    seed is kept and `rng` is not drawn from, so a run without the option is as it was."""
    if not p or rng.random() >= p:
        return seed
    try:
        return with_source(probe, goal, seed, options)
    except LearnedError:
        return seed
