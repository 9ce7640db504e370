"""When a mine or kill goal is still getting somewhere: what renews its budget in the learned controller.

`GOAL_BUDGET` (600 steps, controller.py) ends one unit of a mine or kill goal that the policy cannot
reach, so that the planner hears of it and replans. Some items come by chance from a source
that is at hand: a sapling from 1 leaf in 20, flint from 1 gravel in 10, an apple from 1 oak
leaf in 200, seeds from 1 tall grass in 8 (worlds/data: the blocks' chance drops), and an egg
from a chicken every 1,200 to 2,400 steps (worlds/data/gridworld.yaml `eggs:`). A pursuit that
breaks leaf after leaf is doing what the scripted expert does, and the scripted controller
runs it to the episode's end; the learned one cut it at 600 steps however it went.

The same cut ended a pursuit that was on its way: lava lies 50 levels down, and a bucket
holder with no pickaxe breaks stone by hand (30 steps a block), so the dig alone takes some
1,500 steps (the scripted expert's digs take as long, to 0.90 success in the skill table).

So the budget bounds the steps since the pursuit last made progress (`Progress.made`):
- a source block of the goal broken (the leaf that dropped nothing this time), or
- a mob of a kill goal for its drop killed (a rabbit that dropped no foot: `drop_kill`), or on a
  hunt of the night's mobs any hostile one killed (the scripted expert clears them all: the
  skeleton shooting at the hunter, and a full cap of hostiles leaves no spawn for the quarry), or
- the agent within WAIT_REACH columns of a mob that gives the item without being hit or used
  (a chicken, for an egg), where the scripted expert waits, or
- the agent nearer the goal's nearest source than ever before in this unit of the pursuit
  (`restart` begins each unit; sources are the goal's cells, its mobs, a laying mob, a laid
  egg; the distance is in steps along the three axes): a block dug on the way down, a step
  towards the tree, a zombie spawned or come closer. The distance only falls, and to no less
  than 0, so this renews the budget at most as many times as the nearest source was steps away
  when first seen; for speed it
  looks at the NEAREST source cells of the pursuit's start only (more than enough: a goal with
  that many sources breaks one soon).
- Each source broken is forgotten, and "nearer than ever" counts afresh from where the agent then
  stands to the nearest source left: a flint pursuit that has broken the gravel at hand without a
  flint (1 in 10) and digs towards the next vein is getting somewhere, as a leaf pursuit walking
  to the next tree is. Before 2026-11-27 (night) the distance was to the start's sources, broken
  or not, so once at the first vein no walk or dig to another counted (most of flint's stalls,
  docs/results/learned-parts.md, round 16). Still bounded: each break renews the walk at most as
  many times as the next source is steps away.
Since 2026-12-04 a kill goal runs by this rule too: before, it had 600 steps in all, and a
night's quarry comes one spawn in three, a spawn in about 50 steps (worlds/gridworld/mobs.py), so
the scripted expert it imitates, waiting for one, ran out of steps in 12 of 150 hunts
(docs/results/learned-parts.md, rounds 57 to 60).
A policy that wanders, oscillates, or hits the wrong block, still stops after 600 steps; the
episode's own step limit bounds the rest. The same rule ends the skill table's tries
(training/controller/rollout.py), so its figures are the controller's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld.ground import ground_items
from worlds.gridworld.sources import felling_sources, goal_sources, hunts_hostiles, laying_mobs, source_cells

WAIT_REACH = 3  # columns from a laying mob within which the scripted expert waits (skills/experts.py: _pick_up)
NEAREST = 4096  # source cells nearest the start that the distance is measured to


def drop_kill(env: Any, goal: Any) -> bool:
    """A kill goal for an item its mobs drop (a rabbit's foot, 1 kill in 10), not for the mob itself:
    like a mine goal for a chance drop, it runs until the item has come, each kill renewing its budget."""
    return goal.action == "kill" and next(iter(goal.obj)) not in env.vocab.mob_id


class Progress:
    """One mine or kill goal's signs of progress in world `i` of a batched grid world."""

    def __init__(self, env: Any, i: int, goal: Any):
        self.env, self.i = env, i
        drop = drop_kill(env, goal)  # kill until a rabbit's foot drops: each kill of a rabbit is progress
        cells, mobs = goal_sources(env, goal) if goal.action in ("mine", "kill") else (set(), set())
        self.kills = {env.vocab.mobs[m] for m in mobs} if drop else set()
        if hunts_hostiles(env, goal):
            # a hunt of the night's mobs: each hostile killed clears the ground (and the cap) for the quarry
            self.kills |= {env.vocab.mobs[m] for m in np.nonzero(env.rules.mob_hostile)[0] if m > 0}
        if goal.action == "mine":  # an apple: felling an oak is progress (its leaves decay)
            cells = cells | felling_sources(env, next(iter(goal.obj)))
        self.cells = {env.vocab.cells[c] for c in cells}  # the names a step's event gives as "broke"
        self.ids = sorted(cells)
        item = next(iter(goal.obj)) if goal.action == "mine" else None
        self.layers = sorted(laying_mobs(env, item)) if item else []
        self.mobs = sorted(set(mobs) | set(self.layers))
        self.item = item
        spots = source_cells(env, i, cells)
        if len(spots) > NEAREST:
            spots = spots[np.argsort(np.abs(spots - env.pos[i]).sum(1), kind="stable")[:NEAREST]]
        self.spots = spots
        self.best = self.distance()

    def distance(self) -> float:
        """Steps along the three axes from the agent to the nearest source (inf with none)."""
        env, i = self.env, self.i
        d = float(np.abs(self.spots - env.pos[i]).sum(1).min()) if len(self.spots) else np.inf
        if self.mobs:
            here = np.isin(env.mob_kind[i], self.mobs)
            if here.any():
                d = min(d, float(np.abs(env.mob_pos[i][here] - env.pos[i]).sum(1).min()))
        lying = ground_items(env, i, self.item) if self.item else []  # a laid egg, a dropped apple
        if lying:
            d = min(d, float(np.abs(np.array(lying) - env.pos[i]).sum(1).min()))
        return d

    def forget_broken(self) -> None:
        """Drop the source cells that no longer hold a source; nearer than ever counts from here."""
        s = self.spots
        if len(s):
            self.spots = s[np.isin(self.env.cells[self.i][s[:, 0], s[:, 2], s[:, 1]], self.ids)]
        self.best = self.distance()

    def restart(self) -> None:
        """A new unit of the goal (the second iron ore of three): nearer than ever counts from here."""
        self.best = self.distance()

    def made(self, event: dict | None) -> bool:
        """Did the step that gave `event` (the world's event for this world, or None) make progress?"""
        if event and event.get("broke") in self.cells:
            self.forget_broken()
            return True
        if event and event.get("killed") in self.kills:  # a source mob killed that dropped nothing this time
            self.best = self.distance()
            return True
        d = self.distance()
        if d < self.best:
            self.best = d
            return True
        if not self.layers:
            return False
        env, i = self.env, self.i
        near = np.isin(env.mob_kind[i], self.layers)
        if not near.any():
            return False
        d = np.abs(env.mob_pos[i][near][:, [0, 2]] - env.pos[i][[0, 2]]).max(1)
        return bool((d <= WAIT_REACH).any())
