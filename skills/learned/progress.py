"""When a mine goal is still getting somewhere: what renews its step budget in the learned controller.

`GOAL_BUDGET` (600 steps, controller.py) ends one unit of a mine goal that the policy cannot
reach, so that the planner hears of it and replans. Some items come by chance from a source
that is at hand: a sapling from 1 leaf in 20, flint from 1 gravel in 10, an apple from 1 oak
leaf in 200, seeds from 1 tall grass in 8 (worlds/data: the blocks' chance drops), and an egg
from a chicken every 1,200 to 2,400 steps (worlds/data/gridworld.yaml `eggs:`). A pursuit that
breaks leaf after leaf is doing what the scripted expert does, and the scripted controller
runs it to the episode's end; the learned one cut it at 600 steps however it went.

So the budget bounds the steps since the pursuit last made progress (`Progress.made`):
- a source block of the goal broken (the leaf that dropped nothing this time), or
- the agent within WAIT_REACH columns of a mob that gives the item without being hit or used
  (a chicken, for an egg), where the scripted expert waits.
A policy that wanders, or hits the wrong block, still stops after 600 steps; the episode's own
step limit bounds the rest. The same rule ends the skill table's tries
(training/controller/rollout.py), so its figures are the controller's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld.sources import goal_sources, laying_mobs

WAIT_REACH = 3  # columns from a laying mob within which the scripted expert waits (skills/experts.py: _pick_up)


class Progress:
    """One mine goal's signs of progress in world `i` of a batched grid world."""

    def __init__(self, env: Any, i: int, goal: Any):
        self.env, self.i = env, i
        cells, _ = goal_sources(env, goal) if goal.action == "mine" else (set(), set())
        self.cells = {env.vocab.cells[c] for c in cells}  # the names a step's event gives as "broke"
        item = next(iter(goal.obj)) if goal.action == "mine" else None
        self.layers = sorted(laying_mobs(env, item)) if item else []

    def made(self, event: dict | None) -> bool:
        """Did the step that gave `event` (the world's event for this world, or None) make progress?"""
        if event and event.get("broke") in self.cells:
            return True
        if not self.layers:
            return False
        env, i = self.env, self.i
        near = np.isin(env.mob_kind[i], self.layers)
        if not near.any():
            return False
        d = np.abs(env.mob_pos[i][near][:, [0, 2]] - env.pos[i][[0, 2]]).max(1)
        return bool((d <= WAIT_REACH).any())
