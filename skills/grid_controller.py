"""The `scripted` controller on the grid world: the experts (skills/experts.py, and
skills/find.py for find) drive one goal through primitive actions until its item count is reached, the step budget runs
out, or the expert finds a precondition missing; the outcome is the text world's
{ok, error, steps, gained, missing}, with the world's precise cause on failure.

`on_step(world)` is called after every primitive step (`deps run --render` draws there).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from skills.find import expert_for
from worlds.gridworld.spec import PRIMITIVE_ID
from worlds.types import Goal

NAMED = (PRIMITIVE_ID["craft"], PRIMITIVE_ID["smelt"])


def _draw(world: Any, every: int) -> None:
    """--render: the local view on stderr every `every` steps."""
    if world.steps % every == 0:
        print(world.render() + "\n", file=sys.stderr, flush=True)


class GridScriptedController:
    name = "scripted"

    def __init__(
        self, kb: Any, on_step: Callable[[Any], None] | None = None, render: bool = False, render_every: int = 10
    ):
        self.kb = kb
        self.on_step = on_step
        if render and on_step is None:
            self.on_step = lambda world: _draw(world, render_every)

    def run(self, goal: Goal, world: Any) -> dict:
        env, i = world.env, world.i
        steps0, inv0 = world.steps, dict(world.inventory)
        expert = None
        for item, wanted in goal.obj.items():
            one = Goal(goal.action, {item: wanted}, goal.materials, goal.tool, goal.text, dict(goal.where))
            expert = expert_for(env, i, one)
            while True:
                if world.steps >= world.max_steps:
                    return self._outcome(
                        False, f"ran out of environment steps ({world.max_steps})", world, steps0, inv0
                    )
                a = expert.act()
                if a is None:
                    break
                acts = np.array([a], np.int64)
                named = a[0] in NAMED and getattr(expert, "arg_name", None)  # cactus_green, not dye
                _, _, _, _, info = env.step(acts, {i: (expert.arg_name, None)} if named else None)
                ev = info["events"].get(i, {})
                expert.feedback(ev)
                if self.on_step:
                    self.on_step(world)
            res = expert.result or {"ok": False, "error": "the expert stopped", "missing": {}}
            if not res["ok"]:
                return self._outcome(False, res["error"], world, steps0, inv0, res.get("missing"))
        return self._outcome(True, None, world, steps0, inv0)

    @staticmethod
    def _outcome(ok: bool, error: str | None, world: Any, steps0: int, inv0: dict, missing=None) -> dict:
        inv = world.inventory
        gained = {k: n - inv0.get(k, 0) for k, n in inv.items() if n > inv0.get(k, 0)}
        return {"ok": ok, "error": error, "steps": world.steps - steps0, "gained": gained, "missing": missing or {}}
