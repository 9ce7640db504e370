"""MP5's "Random Drop" robustness setting (MP5 section 4.3, Table 7), for any world and any
planner (`--random-drop`).

At the start of each new sub-objective, the items one earlier completed sub-objective
gained are taken away (as much of them as is still held), so a plan that was right when it
was written fails later and the agent must notice and recover.  Here a sub-objective is a
plan goal, and "new" means the first goal for an (action, item) pair in the episode: redoing
a goal after a drop does not trigger another drop, so the drops are bounded and an agent
that re-plans can always recover.

The wrapper forwards everything to the world it wraps; the execute node calls
`begin_goal(goal)` before driving a goal and `end_goal(goal, outcome)` after it.  The world
must offer `discard(items)`.
"""

from __future__ import annotations

import random
from typing import Any


class RandomDrop:
    def __init__(self, world: Any, seed: int = 0):
        if not callable(getattr(world, "discard", None)):
            raise ValueError(
                f"--random-drop needs a world that can take items away; {type(world).__name__} has no discard(items)"
            )
        self.world = world
        self._rng = random.Random(f"random-drop-{seed}")
        self._seen: set[tuple[str, str]] = set()
        self._completed: list[tuple[str, dict[str, int]]] = []  # (goal label, what it gained)
        self.drops: list[dict[str, Any]] = []  # what was taken, in order

    def __getattr__(self, name: str) -> Any:  # everything else is the wrapped world's
        return getattr(self.world, name)

    @property
    def inventory(self) -> dict[str, int]:
        return self.world.inventory

    def begin_goal(self, goal: Any) -> dict[str, int]:
        """Called before a goal is driven: on a new sub-objective, drop one completed one's
        items. Returns what was dropped ({} when nothing was)."""
        key = (goal.action, ",".join(sorted(goal.obj)))
        if key in self._seen:
            return {}
        self._seen.add(key)
        held = [(label, self._still_held(gained)) for label, gained in self._completed]
        held = [(label, items) for label, items in held if items]
        if not held:
            return {}
        label, items = held[self._rng.randrange(len(held))]
        self.world.discard(items)
        self.drops.append(
            {"before": goal.code() if hasattr(goal, "code") else str(goal), "dropped_from": label, "items": items}
        )
        return items

    def end_goal(self, goal: Any, outcome: dict) -> None:
        if outcome.get("ok") and outcome.get("gained"):
            label = goal.code() if hasattr(goal, "code") else str(goal)
            self._completed.append((label, dict(outcome["gained"])))

    def _still_held(self, gained: dict[str, int]) -> dict[str, int]:
        inv = self.world.inventory
        return {k: min(n, inv.get(k, 0)) for k, n in gained.items() if inv.get(k, 0) > 0}
