"""The world contract (tests/world_contract.py) on every world: the text world, the grid world,
the MineDojo adapter on its stand-in simulator, and the mineflayer world on a flying-squid 1.16.5 server with the project's crafting/furnace
stand-in (tests/mineflayer_server/), playing the agent's 1.11.2 names.

A new world joins with one entry in CASES (see tests/world_contract.py's docstring)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from skills.controller import ScriptedController
from skills.grid_controller import GridScriptedController
from tests import mineflayer_support
from tests.world_contract import CHECKS, Unsupported, WorldCase
from worlds.gridworld import functional
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.textworld import TextWorld

KB = load_kb("1.11.2")


def _textworld() -> WorldCase:
    return WorldCase("textworld", make=lambda: (TextWorld(KB), ScriptedController(KB)), kb=KB)


def _gridworld() -> WorldCase:
    return WorldCase(
        "gridworld",
        make=lambda: (GridWorld(KB), GridScriptedController(KB)),
        kb=KB,
        near=lambda world, block: functional.within_reach(world.env, world.i, block),
    )


@pytest.fixture(scope="module")
def mineflayer_world():
    reason = mineflayer_support.skip_reason()
    if reason:
        pytest.skip(reason)
    from worlds.mineflayer import MineflayerOptions, MineflayerWorld

    with mineflayer_support.flying_squid(standin=True, kb=load_kb(mineflayer_support.VERSION)) as port:
        world = MineflayerWorld(KB, MineflayerOptions(server=f"127.0.0.1:{port}", bot_name="contract"))
        try:
            yield world
        finally:
            world.close()


def _mineflayer(request: pytest.FixtureRequest) -> WorldCase:
    world = request.getfixturevalue("mineflayer_world")
    return WorldCase(
        "mineflayer",
        make=lambda: (world, ScriptedController(KB)),
        kb=KB,
        seeded=False,
        near=lambda w, block: w.near(block),
        prepare=_summon_mobs,
    )


def _summon_mobs(world, goal) -> None:
    """flying-squid spawns no mobs: summon the one a kill goal hunts (the stand-in gives its loot)."""
    if goal.action == "kill":
        for mob in goal.obj:
            world.command(f"/summon {mob}")


def _minedojo() -> WorldCase:
    """MineDojo's adapter on the project's stand-in simulator (worlds/minedojo/standin.py): the grid
    world behind MineDojo's observation dict and MultiDiscrete actions.  Its observation is nested
    (MineDojo's), so the seeded-reset comparison is tests/test_minedojo.py's test_standin_is_seeded."""
    from worlds.minedojo.standin import StandinSim
    from worlds.minedojo.world import MineDojoWorld

    return WorldCase(
        "minedojo",
        make=lambda: (MineDojoWorld(StandinSim(KB), KB), ScriptedController(KB)),
        kb=KB,
        seeded=False,
        near=lambda world, block: bool(world.obs["nearby_tools"]["table" if block == "crafting_table" else "furnace"]),
    )


CASES: dict[str, Callable[..., WorldCase]] = {
    "textworld": lambda request: _textworld(),
    "gridworld": lambda request: _gridworld(),
    "mineflayer": _mineflayer,
    "minedojo": lambda request: _minedojo(),
}


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("world_name", list(CASES))
def test_world_contract(world_name: str, check: str, request: pytest.FixtureRequest) -> None:
    case = CASES[world_name](request)
    try:
        CHECKS[check](case)
    except Unsupported as e:
        pytest.skip(f"{world_name} cannot check {check}: {e}")
