"""What every world offers the agent: a Gymnasium-shaped environment plus the few
read-outs the skill nodes need (inventory, step budget, target check).

The text world (worlds/textworld.py) implements it today; the grid world and the MineDojo
adapter implement the same protocol, so the graph, the controllers and the eval harness
never ask which world they are in.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

# What `step(action)` accepts in every world: one unit of a skill, as a dict.
#   {"action": "mine", "item": "log"}     {"action": "smelt", "item": "iron_ingot", "fuel": "coal"}
# Worlds with a body add their own primitive actions (move, turn, attack...) and say so in
# `action_space`.
ACTION_KEYS = ("action", "item", "fuel")


class WorldError(ValueError):
    """A world that cannot be made or reached (an unknown biome, a server that refuses): one line,
    which the CLI shows as it is and an eval stores as the episode's failure."""


@runtime_checkable
class World(Protocol):
    steps: int  # environment steps used so far in this episode
    max_steps: int  # the episode's step budget (the task's max_steps)
    observation_space: Any  # a description of `obs`: {key: what it holds}
    action_space: Any  # a description of what `step` accepts

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Start an episode: options carry inventory, biome, max_steps and target."""
        ...

    def step(self, action: dict) -> tuple[dict, float, bool, bool, dict]:
        """(obs, reward, terminated, truncated, info); info has ok, error, cost, gained, missing."""
        ...

    @property
    def inventory(self) -> dict[str, int]: ...

    def has(self, name: str, count: int = 1) -> bool: ...

    # Optional: `gives(goal) -> bool`, where a world builds less than the recipe book knows (the
    # grid world: no dungeons, no creepers). The oracle's re-plans route around what it lacks.
    # With `gives.holds(goal) -> tuple[str, ...]` too, the plans make those items before that mine
    # or kill goal and keep them (the grid world's water bucket, poured on lava to make obsidian;
    # its wooden sword before a hunt of the night's mobs); with `gives.waits(goal) -> float`, a
    # goal's option is ranked as if it cost that many more steps (the wait for the night).
