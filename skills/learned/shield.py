"""Deadly actions: the ones that, by what the agent sees, would put it in lava.

The scripted experts' paths never enter a deadly cell (worlds/gridworld/paths.py), so the
policy learned that only by imitation, and imperfectly: in round 14 a third of its lava-bucket
tries ended in the lava lake it was sent to (docs/results/learned-parts.md). This rules out,
per world, every action the observation shows to be fatal, as a player does not walk into
lava it can see:
- a move into a deadly cell, or into a free cell over a drop that ends in one (the fall is
  followed as far as the view goes down, two levels; what lies deeper is not known, so not
  ruled out);
- a jump onto a block with a deadly cell above it (where the jump lands);
- an attack facing down when the cell under the block it would break is deadly (the agent
  falls into it when the block goes);
- a pillar step (`jump_place`) under a deadly cell: the agent rises into the cell above its
  feet (an emerald dig on seed 3 of `deps run "obtain an emerald"` pillared into a lava lake's
  underside at level 5, 2026-11-29).
Lava does not flow in the grid world (worlds/data/gridworld.yaml), so breaking a block beside
it is safe. Like skills/learned/idle.py, it reads only the observation and never takes a
world's last allowed action: one rule for the learned controller and the skill table's rollout.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld.spec import FACING_VECTORS, FACINGS, MOVES, PRIMITIVE_ID, PRIMITIVES, VIEW_LEVELS, VIEW_RADIUS

LEVEL = {dy: k for k, dy in enumerate(VIEW_LEVELS)}  # a level dy relative to the feet -> its index in the view
DOWN = FACINGS.index("down")


class Shield:
    """Built once per world kind from its cell rules (worlds/gridworld/rules.py: `deadly`,
    `passable`, `liquid`, each a bool per cell id)."""

    def __init__(self, rules: Any, n_actions: int = len(PRIMITIVES)):
        self.deadly = np.asarray(rules.deadly, dtype=bool)
        self.passable = np.asarray(rules.passable, dtype=bool)
        self.liquid = np.asarray(rules.liquid, dtype=bool)
        self.n_actions = n_actions

    def fatal(self, obs: dict) -> np.ndarray:
        """bool [n, A]: the actions each world's view shows to be fatal."""
        blocks = np.asarray(obs["blocks"])
        blocks = blocks.reshape((-1, *blocks.shape[-3:]))  # [n, L, V, V]
        facing = np.asarray(obs["facing"]).reshape(-1)
        n, R = len(blocks), VIEW_RADIUS
        out = np.zeros((n, self.n_actions), dtype=bool)
        own = blocks[:, :, R, R]  # the agent's own column
        head = own[:, LEVEL[1]]  # the cell over its feet: a jump passes through it, a pillar step rises into it
        for f, move in enumerate(MOVES):  # a move's index in MOVES is its facing's (worlds/gridworld/spec.py)
            dx, _, dz = FACING_VECTORS[f]
            column = blocks[:, :, R + dz, R + dx]  # [n, L]: the cells of the column stepped into
            out[:, PRIMITIVE_ID[move]] = self._falls_into_death(column, 0)
            front, above = column[:, LEVEL[0]], column[:, LEVEL[1]]  # a jump lands above the front block
            jumps = (facing == f) & ~self.passable[front] & self.passable[head]
            out[:, PRIMITIVE_ID["jump"]] |= jumps & self.deadly[above]
        out[:, PRIMITIVE_ID["attack"]] = (facing == DOWN) & self._falls_into_death(own, -1)
        out[:, PRIMITIVE_ID["jump_place"]] = self.deadly[head]
        return out

    def _falls_into_death(self, column: np.ndarray, dy: int) -> np.ndarray:
        """bool [n]: the agent entering `column` at level dy (0: the cell a move steps into; -1:
        the cell under its feet, which the attack frees) ends in a deadly cell within the view."""
        dead = np.zeros(len(column), dtype=bool)
        going = np.ones(len(column), dtype=bool)  # still entering or falling
        for level in range(dy, VIEW_LEVELS[0] - 1, -1):
            cell = column[:, LEVEL[level]]
            if not (dy < 0 and level == dy):  # every cell but the one the attack frees (air once broken)
                going &= self.passable[cell]  # a solid cell stops the move or the fall
                dead |= going & self.deadly[cell]
                going &= ~self.liquid[cell]  # a liquid stops the fall (water saves it)
        return dead

    def allowed(self, obs: dict, mask: np.ndarray) -> np.ndarray:
        """`mask` [n, A] less each world's fatal actions, unless that leaves it none."""
        out = np.array(mask, dtype=bool, copy=True).reshape(-1, self.n_actions)
        keep = out & ~self.fatal(obs)
        some = keep.any(1)
        out[some] = keep[some]
        return out
