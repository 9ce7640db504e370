"""Goal selectors: which of the plan's remaining goals to run next.

The candidates are the remaining goals whose stated preconditions (materials and tool)
hold in the current inventory: DEPS's parallel goals. Where the world says a mine goal also wants
something held and kept (`world.gives.holds`: the grid world's water bucket, poured on lava for
obsidian; a hoe to farm), that is a precondition too: a plan states the bucket as a goal of its
own, and a mine of obsidian chosen before it could only fail. Selectors are registered by name;
`--selector package.module:factory` loads a user's own.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from nodes.horizon import horizon_available
from worlds.types import Goal


class Selector(Protocol):
    name: str

    def choose(
        self, goals: list[Goal], remaining: list[int], candidates: list[int], inventory: dict[str, int], ctx: Any
    ) -> tuple[int, dict]: ...


def preconditions_hold(goal: Goal, inventory: dict[str, int], kb: Any, holds: Any = None) -> bool:
    """Whether the goal's materials and tool are held, and, for a mine goal, what `holds(goal)` (the
    world's `gives.holds`, where it has one) names."""
    needs = dict(goal.materials)
    kept = [goal.tool] if goal.tool else []
    if holds is not None and goal.action == "mine":
        kept += list(holds(goal))
    for item in kept:
        needs[item] = max(needs.get(item, 0), 1)
    return all(kb.count(inventory, item) >= n for item, n in needs.items())


def world_holds(world: Any) -> Any:
    """The world's `gives.holds` (what a goal wants held and kept), or None where it has none."""
    return getattr(getattr(world, "gives", None), "holds", None)


class FixedSelector:
    """DEP: the plan's own order, whatever the state."""

    name = "fixed"

    def choose(self, goals, remaining, candidates, inventory, ctx):
        return remaining[0], {"rule": "plan order"}


class ReadySelector:
    """DEPS's candidates in plan order: the first remaining goal whose preconditions hold, so a goal
    the plan cannot run yet (planks from a log it no longer holds) does not stop a later one that
    can (the torch whose coal and sticks are held); plan order where none holds. A world with no
    distances to rank the candidates by (the text world) has nothing nearer to prefer.

    A mine goal whose blocks all want a harvest tool that is not held is no candidate, whatever
    tool its line names: run before the goal passed over (the shears, the stone pickaxe) it could
    only fail, and its failure, a tool the episode never gained, ends an episode as a loop
    (nodes/loops.py) where the passed-over goal's own failure would have been re-planned."""

    name = "ready"

    def choose(self, goals, remaining, candidates, inventory, ctx):
        ready = runnable(goals, candidates, inventory, ctx.kb)
        if not ready:
            return remaining[0], {"rule": "no candidate holds; plan order"}
        skipped = [i for i in remaining if i < ready[0]]
        why = {"rule": "first candidate in plan order"}
        return ready[0], ({**why, "passed_over": skipped} if skipped else why)


class UnstickSelector:
    """Plan order until it is stuck: where the goal next in plan order cannot run now and the same goal
    line was already refused earlier in the episode, it is passed over for the first later goal that
    can run (as `ready` would choose); every other choice is plan order's. A re-plan that repeats a
    step the world refused (planks from a log the plan has already used, while the torch's coal and
    sticks are held) then no longer stops the plan at that step round after round, and an episode
    that never meets such a step runs exactly as with `fixed`."""

    name = "unstick"
    reads_outcomes = True  # the select node passes the episode's outcomes (nodes/select.py)

    def choose(self, goals, remaining, candidates, inventory, ctx, outcomes=()):
        first = remaining[0]
        if first in candidates or not refused_before(goals[first], outcomes):
            return first, {"rule": "plan order"}
        later = [i for i in runnable(goals, candidates, inventory, ctx.kb) if i > first]
        if not later:
            return first, {"rule": "plan order; stuck, and no later goal can run"}
        passed = [i for i in remaining if i < later[0]]
        return later[0], {"rule": "stuck: passed over a goal the world refused before", "passed_over": passed}


def refused_before(goal: Goal, outcomes: Any) -> bool:
    """Whether an outcome of this episode is the same goal line (action, items, materials and tool)
    failing for a rule of the world (not by chance, where the world says "try again")."""
    line = goal.to_dict()
    return any(not o.get("ok") and not o.get("chance") and o.get("goal") == line for o in outcomes)


def runnable(goals: list[Goal], candidates: list[int], inventory: dict[str, int], kb: Any) -> list[int]:
    """The candidates (preconditions held) that can run now, in plan order: a mine's harvest tool held too."""
    return [i for i in candidates if harvestable(goals[i], inventory, kb)]


def harvestable(goal: Goal, inventory: dict[str, int], kb: Any) -> bool:
    """False for a mine goal of an item whose every source block wants a tool not held (the
    world's rule: iron ore wants a stone pickaxe or better); True for any other goal."""
    if goal.action != "mine":
        return True
    for item in goal.obj:
        sources = kb.sources_to_mine(item)
        if sources and not any(s.harvested_with(lambda t: kb.count(inventory, t) > 0) for s in sources):
            return False
    return True


class RandomSelector:
    """A random goal among those whose preconditions hold (plan order if none does)."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, goals, remaining, candidates, inventory, ctx):
        if not candidates:
            return remaining[0], {"rule": "no candidate holds; plan order"}
        return self.rng.choice(candidates), {"rule": "random candidate"}


class OracleSelector:
    """The candidate the world says is cheapest to reach (the selector's upper bound)."""

    name = "oracle"

    def choose(self, goals, remaining, candidates, inventory, ctx):
        if not candidates:
            return remaining[0], {"rule": "no candidate holds; plan order"}
        distance = getattr(ctx.world, "goal_distance", None)
        if distance is not None:  # a world with space (the grid world): true path steps, -1 = unreachable
            cost = {i: distance(goals[i]) for i in candidates}
            cost = {i: (c if c >= 0 else float("inf")) for i, c in cost.items()}
            best = min(candidates, key=lambda i: (cost[i], i))
            return best, {"rule": "least path steps in the world", "costs": {str(i): c for i, c in cost.items()}}
        from worlds.solver import steps_estimate

        cost = {i: steps_estimate(ctx.kb, [goals[i]]) for i in candidates}
        best = min(candidates, key=lambda i: (cost[i], i))
        return best, {"rule": "least estimated steps", "costs": {str(i): c for i, c in cost.items()}}


def random_selector(settings: Any) -> RandomSelector:
    """The random selector, seeded by the run's seed (nodes/registry.py names it)."""
    return RandomSelector(settings.seed)


def default_selector(world: str = "textworld") -> str:
    """`horizon` where a trained predictor exists for the world (the grid world), else `fixed`
    (the text world has no distances: every skill is one dictionary update)."""
    return "horizon" if horizon_available(world) else "fixed"
