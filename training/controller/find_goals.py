"""Find goals for the policy's training data: the thing to reach, and where-conditions drawn
for the world the pursuit runs in.

The things and conditions are those MP5's context tasks use (worlds/suites/mp5-context.yaml:
tree, grass, cow, pig; near a pig, grass or water; in the plains, forest or desert) widened to
the other animals and to every biome a map holds, so that the policy learns the skill rather
than sixteen tasks. A biome condition names a biome of the pursuit's own map (generated maps
hold four), the spawn biome or another; a near condition names a thing the map holds. Time,
weather and brightness are not drawn: they are met by waiting where the rest holds, which
the learned controller does itself (skills/learned/controller.py). The worlds are the
training seeds, never the evaluation's (training/controller/train.py: eval_episodes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.types import Goal

THINGS = ("tree", "grass", "cow", "pig", "sheep", "chicken")
NEAR = ("pig", "cow", "sheep", "grass", "water", "tree")
P_NEAR = 0.3  # share of find goals with a near condition
P_BIOME = 0.5  # share with a biome condition
P_NIGHT = 0.3  # share of worlds whose first goal is a find that start at night


def settle(env: Any, i: int, goal: Goal, rng: np.random.Generator) -> Goal:
    """A find goal with its where-conditions drawn for world i (other goals unchanged)."""
    if goal.action != "find" or goal.where:
        return goal
    from skills.find import present

    ((thing, _),) = goal.obj.items()
    where: dict[str, str] = {}
    if rng.random() < P_BIOME:
        ids = np.unique(env.biome_map[i])
        where["biome"] = env.vocab.biomes[int(rng.choice(ids))]
    if rng.random() < P_NEAR:
        held = [w for w in NEAR if w != thing and present(env, i, w).any()]
        if held:
            where["near"] = str(rng.choice(held))
    return Goal("find", {thing: 1}, where=where)


def night_start(rng: np.random.Generator) -> float | None:
    """A start time at night (0.54 to 0.96 of the cycle, worlds/data/gridworld.yaml) for some find worlds, else None."""
    return float(rng.uniform(0.56, 0.94)) if rng.random() < P_NIGHT else None
