"""The grid world's routes go around what it does not build (worlds/solver.py `gives`,
worlds/gridworld/coverage.py `route`).

Found by trying a task as a user would: on seed 0, "obtain mossy cobblestone" with the learned
controller lost its last cobblestone to the policy's pillar while it cut a vine, and the
oracle's re-plan from {vine, pickaxes} asked to mine mossy cobblestone, a dungeon block the
grid world never builds, until the run ended.  The grid world now tells the planners what it
has sources for, and the re-plan mines one cobblestone and crafts."""

from __future__ import annotations

import pytest

from nodes.planners.base import PlanRequest
from nodes.planners.oracle import OraclePlanner
from worlds.gridworld import coverage
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.solver import Unreachable, solve
from worlds.types import Task


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


MOSSY = Task("ObtainMossy", "user", "obtain mossy cobblestone", {"mossy_cobblestone": 1}, 12000)
HELD = {"vine": 1, "wooden_pickaxe": 1, "stone_pickaxe": 1, "shears": 1}


def _plan(kb, gives) -> str:
    result = OraclePlanner().plan(PlanRequest(MOSSY, dict(HELD), [], [], [], kb=kb, gives=gives))
    assert result.no_plan_cause() is None
    return result.text


def test_the_replan_after_a_lost_cobblestone_crafts_instead_of_mining_a_dungeon_block(kb):
    world = GridWorld(kb, size=(16, 16))
    text = _plan(kb, world.gives)
    assert "mine({'cobblestone':1}" in text and "craft({'mossy_cobblestone':1}" in text
    assert "mine({'mossy_cobblestone'" not in text
    # the recipe book alone (the text world, which has every block) mines it: one goal is shorter
    assert _plan(kb, None).startswith("mine({'mossy_cobblestone':1}")


def test_a_task_the_book_routes_through_a_missing_mob_is_taken_when_another_way_exists(kb):
    # arrows: the book's shortest kills a skeleton (here only at night, after a task's dawn waits for
    # dusk: gives.waits); flint, a feather and a stick make them by day
    assert any(g.action == "kill" and "skeleton" in g.obj for g in solve(kb, {"arrow": 1}, {}))
    assert coverage.refusal(kb, {"arrow": 1}) is None
    goals = coverage.route(kb, {"arrow": 1}, {})
    assert goals is not None and not any("skeleton" in g.obj for g in goals)
    assert goals[-1].action == "craft" and {"flint", "feather", "stick"} <= set(goals[-1].materials)


def test_a_night_kill_two_recipes_up_is_priced_with_its_wait_so_a_way_by_day_is_taken(kb):
    # pink dye: the book's way is rose red and bone meal (a skeleton's bone); on the grid world that
    # waits for dusk, and a peony by day (two pink dye) is taken, though the bone is no item of the
    # target itself (the solver's unit costs count the night's wait: worlds/solver.py `_unit_costs`)
    book = solve(kb, {"pink_dye": 1}, {})
    assert any(g.action == "kill" and "skeleton" in g.obj for g in book)
    grid = coverage.route(kb, {"pink_dye": 1}, {})
    assert grid is not None and [g.text for g in grid] == ["mine 1 peony", "craft 2 pink_dye from 1 peony"]
    assert coverage.night_refusal(kb, {"pink_dye": 1}, None, 0, 3000) is None  # no night needed: not refused
    # where every way waits for the night, the route is the book's (string: only spiders drop it)
    assert [g.obj for g in coverage.route(kb, {"string": 1}, {}) or []][-1] == {"spider": 1}


def test_with_no_way_at_all_the_refusal_still_names_the_missing_feature(kb):
    why = coverage.refusal(kb, {"gunpowder": 1})
    assert why is not None and "creeper" in why and "there are no creepers" in why
    with pytest.raises(Unreachable, match="this world has no block or mob that gives gunpowder"):
        solve(kb, {"gunpowder": 1}, {}, gives=coverage.gives(kb))


def test_routes_the_grid_world_already_had_sources_for_are_unchanged(kb):
    """Every item of the recipe book that the book routes through blocks and mobs the grid
    world has, and that holds nothing the world asks for besides (obsidian's water bucket,
    tests/test_obsidian.py): the same goals with the world's filter as without it."""
    compared, world = 0, coverage.gives(kb)
    for item in list(kb.item_names()):
        try:
            book = solve(kb, {item: 1}, {})
        except (Unreachable, ValueError):
            continue
        if not all(world(g) for g in book if g.action in ("mine", "kill")) or any(map(world.holds, book)):
            continue
        assert solve(kb, {item: 1}, {}, gives=coverage.gives(kb)) == book, item
        compared += 1
    assert compared >= 200


def test_deps_kb_gives_the_grid_worlds_route_or_its_refusal(capsys):
    import json

    from agent.cli import main

    assert main(["kb", "arrow", "--json"]) == 0
    book = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert book["world"] == "textworld" and book["oracle_plan"] == ["kill({'skeleton':1}, null)"]
    assert main(["kb", "arrow", "--world", "gridworld", "--json"]) == 0
    grid = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert grid["world"] == "gridworld" and grid["oracle_plan"][-1].startswith("craft({'arrow':4}")
    assert grid["how_to_make"].startswith("craft 4 arrow from") and book["how_to_make"].startswith("kill 1 skeleton")
    assert not any("skeleton" in line for line in grid["oracle_plan"])
    assert main(["kb", "gunpowder", "--world", "gridworld", "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out.strip().splitlines()[-1])["oracle_plan"] == []
    assert "there are no creepers" in out.err
