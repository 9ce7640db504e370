"""The horizon predictor mu(h | s, g) as the selector uses it: expected steps per goal.

Goals the policy drives (mine, kill) get the network's expected horizon from the world's
current observation, times the count asked for. The functional goals (craft, smelt,
equip) are single actions in the grid world, so their horizon is that action count (a
smelt is one action whose game time the world charges as its step cost), not a guess.
A mine/kill goal the predictor was never trained on ranks last (the largest horizon bin).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skills.learned.features import LEARNED_SKILLS
from skills.learned.model import HORIZON_EDGES
from skills.learned.policy import GoalPolicy
from skills.learned.surround import observe

UNKNOWN = float(HORIZON_EDGES[-1] * 2)


def current_obs(world: Any) -> dict:
    """The grid world's observation of its current state (one world), with the surroundings
    map (skills/learned/surround.py) where the world is a grid world."""
    if hasattr(world, "env") and hasattr(world, "i") and hasattr(world, "observation"):
        return observe(world)
    for name in ("observe", "observation", "obs"):
        fn = getattr(world, name, None)
        if callable(fn):
            return fn()
    raise TypeError(f"{type(world).__name__} gives no observation; the horizon selector needs the grid world")


class HorizonPredictor:
    def __init__(self, policy: GoalPolicy):
        self.policy = policy

    @classmethod
    def load(cls, kb: Any = None, device: str | None = None, path: str | None = None) -> HorizonPredictor:
        return cls(GoalPolicy.load("selector", kb=kb, device=device, path=path))

    def horizons(self, world: Any, goals: list[Any]) -> list[float]:
        out = [0.0] * len(goals)
        learned = []
        for k, g in enumerate(goals):
            count = max(sum(g.obj.values()), 1)
            if g.action not in LEARNED_SKILLS:
                out[k] = float(count)
            elif not self.policy.knows(g):
                out[k] = UNKNOWN * count
            else:
                learned.append(k)
        if learned:
            obs = current_obs(world)
            codes = self.policy.codes([goals[k] for k in learned])
            hs = self.policy.expected_horizon(obs, codes)
            for k, h in zip(learned, np.asarray(hs, dtype=float)):
                out[k] = float(h) * max(sum(goals[k].obj.values()), 1)
        return out
