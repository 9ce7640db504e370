"""Each trained goal starts with what the oracle's route in the grid world holds when it reaches that goal.

A skill is measured (experiments/skill_table.py) and trained from the start inventory in
TRAIN_GOALS. A planner never emits "mine lava_bucket" to an agent holding a bucket and nothing
else: the bucket's iron was mined with a stone pickaxe, which the agent still holds. A start
inventory missing the route's best pickaxe measures a harder skill than any task asks for (the
lava bucket dug through stone by hand: 0.76 on seed 1's worlds, 0.90 with the pickaxe).
"""

from __future__ import annotations

from collections import Counter

import pytest

from training.controller.data import TRAIN_GOALS
from worlds.gridworld import coverage
from worlds.knowledge import load_kb, tool_tier
from worlds.solver import solve

MINE_GOALS = [(item, inv) for action, item, _, inv in TRAIN_GOALS if action == "mine"]


def held_at_last_step(route: list) -> Counter:
    """What a route (the oracle's goals) holds just before its last step."""
    held: Counter = Counter()
    for goal in route[:-1]:
        held.update(goal.obj)
        held.subtract(goal.materials)
    return +held


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


@pytest.mark.parametrize(("item", "inv"), MINE_GOALS, ids=[i for i, _ in MINE_GOALS])
def test_start_inventory_is_what_the_route_holds(kb, item, inv):
    route = coverage.route(kb, {item: 1})  # the grid world's, where the policy mines (obsidian: a water bucket)
    held = held_at_last_step(route)
    assert all(held[name] >= n for name, n in inv.items()), f"{item}: starts with {inv}, the route holds {dict(held)}"
    pickaxes = [name for name in held if name.endswith("_pickaxe")]
    if pickaxes:
        best = max(pickaxes, key=tool_tier)
        assert best in inv, f"{item}: the route holds a {best}, the start inventory {inv} does not"
    last = route[-1]
    assert last.tool is None or last.tool in inv, f"{item}: its step uses a {last.tool}, not held at the start"


def test_the_bucket_goals_hold_the_pickaxe_that_mined_the_iron(kb):
    for item in ("lava_bucket", "water_bucket", "milk_bucket"):
        assert held_at_last_step(solve(kb, {item: 1}, {}))["stone_pickaxe"] == 1
        assert dict(MINE_GOALS)[item] == {"bucket": 1, "stone_pickaxe": 1}
