"""The grid world made for one episode (the factory nodes/registry.py names)."""

from __future__ import annotations

from typing import Any


def make_world(settings: Any, kb: Any, task: Any) -> Any:
    """The grid world reset for `task`; an unknown biome or
    a seed out of range is a one-line GridWorldError (a WorldError)."""
    from worlds.gridworld.world import GridWorld

    opts = settings.option("gridworld")
    world = GridWorld(kb, allowed_skills=set(settings.skills) if settings.skills else None)
    world.reset(
        seed=settings.seed,
        options={
            "inventory": {**task.inventory, **settings.inventory},
            "biome": opts.biome or task.biome,
            "max_steps": GridWorld.budget_steps(task.max_steps),
            "target": task.target,
        },
    )
    return world
