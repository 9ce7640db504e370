"""A test helper: drive world 0 of a GridWorld with the scripted expert for one goal."""

from __future__ import annotations

from typing import Any

import numpy as np


def run_expert(world: Any, goal: Any, steps: int) -> Any:
    """Step the expert for `goal` until it ends or `steps` actions are taken; the expert (its `result`)."""
    from skills.experts import Expert

    e = Expert(world.env, 0, goal)
    for _ in range(steps):
        a = e.act()
        if a is None:
            break
        world.env.step(np.array([a], np.int64))
    return e
