"""Attack held on the quarry: while a mob the goal hunts stands in the cell the agent faces, the
learned controller attacks without asking the policy, as it holds attack while a block breaks
(controller.hold_attack) and as a player keeps clicking on the mob in front of them.

The policy picks where to stand and which way to face; the blows that follow are held. A sampled
policy seldom repeats one action five times running, which is what a zombie takes from a wooden
sword (20 health, 4 a blow), while the zombie hits back every 4 steps: the night's hunts died
fighting (issue 20, rounds 38 and 39). The quarry is the kill goal's own mobs; on a hunt of the
night's mobs (every mob of the goal hostile), at night, every hostile mob, as the scripted expert
goes for them (skills/experts.py: Expert._quarry). Mine and find goals have no quarry.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld.batch import VEC
from worlds.gridworld.sources import goal_sources


class Quarry:
    """The mobs each of a batch's goals hunts: `own` bool [n, M] over mob kinds, `hostiles` bool [n]
    (a hunt of the night's mobs, which at night goes for every hostile one)."""

    def __init__(self, env: Any, goals: list[Any]) -> None:
        kinds = len(env.rules.mob_hostile)
        self.own = np.zeros((len(goals), kinds), bool)
        self.hostiles = np.zeros(len(goals), bool)
        for i, goal in enumerate(goals):
            self.set(env, i, goal)

    def set(self, env: Any, i: int, goal: Any) -> None:
        """Row i hunts what `goal` hunts (a new pursuit in that world)."""
        mobs = sorted(goal_sources(env, goal)[1]) if goal is not None and goal.action == "kill" else []
        self.own[i] = False
        self.own[i, mobs] = True
        self.hostiles[i] = bool(mobs) and bool(env.rules.mob_hostile[mobs].all())

    def faced(self, env: Any, idx: np.ndarray | None = None) -> np.ndarray:
        """bool [len(idx)]: world idx[k]'s agent faces a live mob that row k's goal hunts now."""
        idx = np.arange(len(self.own)) if idx is None else np.asarray(idx)
        tgt = env.pos[idx] + VEC[env.facing[idx]]
        kind = env.mob_kind[idx]
        there = (kind > 0) & (env.mob_pos[idx] == tgt[:, None, :]).all(axis=2)
        if not there.any():
            return np.zeros(len(idx), bool)
        hunted = np.take_along_axis(self.own, kind, axis=1)
        at_night = self.hostiles & env.night()[idx]
        hunted |= at_night[:, None] & env.rules.mob_hostile[kind]
        return (there & hunted & (kind > 0)).any(axis=1)
