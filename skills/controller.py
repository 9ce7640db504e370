"""Controllers: drive one goal in the world until its item appears, a budget runs out, or
a precondition is missing (the world says which).

The scripted controller issues the world's unit skills (mine one block, craft one batch,
smelt one item, kill one mob, equip once) and counts what they yield: DEPS's success
detector watches the inventory in the same way.
"""

from __future__ import annotations

from typing import Any, Protocol

from worlds.base import World
from worlds.types import Goal


class Controller(Protocol):
    name: str

    def run(self, goal: Goal, world: World) -> dict:
        """Drive `goal` in `world`: {ok, error, steps, gained, missing}."""
        ...


def _outcome(ok: bool, error: str | None, steps: int, gained: dict[str, int], missing=None) -> dict:
    return {"ok": ok, "error": error, "steps": steps, "gained": gained, "missing": missing or {}}


def names_a_block_dropping_else(kb: Any, item: str) -> bool:
    """Does `mine item` name a block that drops something else ("mine 3 stone" gives
    cobblestone)?  The world breaks the block and hands over its drop, so such a goal
    counts blocks broken rather than the named item (the grid world's experts can too)."""
    name = kb.canonical(item) or item
    return (
        not kb.mine_sources(name) and not kb.interactions(name) and name in kb.blocks() and bool(kb.block_drops(name))
    )


class ScriptedController:
    name = "scripted"

    def __init__(self, kb: Any, max_retries: int = 50):
        self.kb = kb
        self.max_retries = max_retries  # failed attempts of one unit before giving up (stochastic worlds)

    def breaks_block(self, goal: Goal, item: str) -> bool:
        return goal.action == "mine" and names_a_block_dropping_else(self.kb, item)

    def run(self, goal: Goal, world: Any) -> dict:
        steps, gained = 0, {}
        for item, wanted in goal.obj.items():
            is_mob = goal.action == "kill" and item in self.kb.mobs()
            by_unit = is_mob or goal.action == "equip" or self.breaks_block(goal, item)
            got, misses = 0, 0
            while got < wanted:
                if world.steps >= world.max_steps:
                    return _outcome(False, f"ran out of environment steps ({world.max_steps})", steps, gained)
                _, _, _, _, info = world.step({"action": goal.action, "item": item})
                steps += info.get("cost", 0)
                for k, n in info.get("gained", {}).items():
                    gained[k] = gained.get(k, 0) + n
                if info["ok"]:
                    got = got + 1 if by_unit else self.kb.count(gained, item)
                    misses = 0
                elif info.get("error") and not info.get("chance"):
                    return _outcome(False, info["error"], steps, gained, info.get("missing"))
                else:
                    misses += 1
                    if misses >= self.max_retries:
                        return _outcome(
                            False,
                            f"gave up after {misses} failed attempts ({info.get('error') or 'no progress'})",
                            steps,
                            gained,
                        )
        return _outcome(True, None, steps, gained)


def make_learned(kb: Any, settings: Any, task: Any = None) -> Controller:
    from skills.learned.controller import make_learned_controller  # torch only when asked for

    return make_learned_controller(kb, settings, fallback=make_scripted(kb, settings), task=task)


def make_scripted(kb: Any, settings: Any) -> Controller:
    """The text world's unit skills, or the grid world's experts (skills/grid_controller.py)."""
    if getattr(settings, "world", "textworld") == "gridworld":
        from skills.grid_controller import GridScriptedController

        return GridScriptedController(kb, render=settings.option("gridworld").render)
    return ScriptedController(kb)


def default_controller(world: str = "textworld") -> str:
    """`learned` where a trained policy exists for the world (the grid world), else `scripted`."""
    from skills.learned.paths import available

    return "learned" if world == "gridworld" and available("controller") else "scripted"
