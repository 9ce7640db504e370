"""Every skill of the oracle planner's plans for a suite, played through the MineDojo adapter
on the stand-in simulator, every MineDojo action and observation handed to a checker.

Used by tests/test_minedojo.py twice: in the main environment with the project's own checks
(ids.action_valid, ids.masks), and in MineDojo's environment (tests/minedojo_check.py) with
the objects the minedojo package builds.  Plans are worlds.solver.solve's, which is what the
oracle planner (nodes/planners/oracle.py) writes.

Each goal runs from the inventory the plan has at that point (the text world plays the plan
up to it), so every crafting, smelting and equipping step is played; a mine or kill goal
is played once per (skill, item) and inventory tier, within a step budget, on a generated map.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from skills.controller import ScriptedController
from worlds.knowledge import load_kb
from worlds.minedojo.standin import StandinSim
from worlds.minedojo.world import MineDojoWorld
from worlds.solver import Unreachable, solve
from worlds.tasks import load_suite, localize
from worlds.textworld import TextWorld
from worlds.types import Goal

Checker = Callable[[dict, np.ndarray], None]


def plan_steps(kb: Any, suite: str) -> list[tuple[str, Goal, dict[str, int]]]:
    """(task id, goal, the inventory before it) for every goal of every task's oracle plan."""
    out = []
    for task in load_suite(suite):
        task = localize(task, kb)
        try:
            goals = solve(kb, task.target, dict(task.inventory))
        except Unreachable:
            continue
        text = TextWorld(kb)
        text.reset(seed=0, options={"inventory": dict(task.inventory), "target": task.target})
        ctl = ScriptedController(kb)
        for g in goals:
            out.append((task.id, g, dict(text.inventory)))
            if not ctl.run(g, text)["ok"]:
                break
    return out


def sweep(
    check: Checker, suite: str = "deps71", body_budget: int = 300, limit: int | None = None, seed: int = 0
) -> dict:
    """Play the plans' goals (see the module docstring); counts of what ran and what failed."""
    kb = load_kb("1.11.2")
    stats: dict[str, Any] = {"goals": 0, "ok": 0, "actions": 0, "by_skill": {}, "failed": []}
    seen_body: set[tuple] = set()
    steps = plan_steps(kb, suite)

    def counted(obs: dict, a: np.ndarray) -> None:
        stats["actions"] += 1
        check(obs, a)

    for task_id, goal, inventory in steps[:limit]:
        body = goal.action in ("mine", "kill")
        if body:
            tools = tuple(sorted(k for k in inventory if k.endswith(("pickaxe", "sword", "axe", "bucket"))))
            key = (goal.action, tuple(goal.obj), tools)
            if key in seen_body:
                continue
            seen_body.add(key)
        world = MineDojoWorld(StandinSim(kb), kb, observer=counted, unit_budget=body_budget)
        world.reset(seed=seed, options={"inventory": inventory, "max_steps": body_budget * 4 if body else 20000})
        out = ScriptedController(kb).run(goal, world)
        s = stats["by_skill"].setdefault(goal.action, {"goals": 0, "ok": 0})
        s["goals"] += 1
        stats["goals"] += 1
        if out["ok"]:
            s["ok"] += 1
            stats["ok"] += 1
        else:
            stats["failed"].append(f"{task_id}: {goal.code()}: {out['error']}")
    return stats
