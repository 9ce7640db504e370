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
        prepare=_prepare_mineflayer,
    )


def _prepare_mineflayer(world, goal) -> None:
    """flying-squid spawns no mobs: summon the one a kill goal hunts (the stand-in gives its loot).
    It spawns the bot at random and the mine checks dig down, so a goal that may place a crafting
    table or furnace beside the bot starts on open ground (one CI run failed both with "no free
    cell next to the bot", the bot left where no block could stand beside it)."""
    if goal.action == "kill":
        for mob in goal.obj:
            world.command(f"/summon {mob}")
    if goal.action in ("craft", "smelt"):
        _to_open_ground(world)


GROUND = 7  # tests/mineflayer_server/grove.js: grass_block at y 6, so a player stands at y 7


def _to_open_ground(world) -> None:
    """Teleport the bot to the nearest cell of the terrain's surface with air at its feet and head
    and solid ground under it, its four neighbours the same (logs, boulders and ores stand on a
    9-block grid)."""
    import math
    import time

    pos = world._call("state")["position"]
    x, z = math.floor(pos[0]), math.floor(pos[2])

    def open_at(cx: int, cz: int) -> bool:
        air = all(world._call("block_at", x=cx, y=h, z=cz)["name"] == "air" for h in (GROUND, GROUND + 1))
        return air and world._call("block_at", x=cx, y=GROUND - 1, z=cz)["name"] != "air"

    spots = sorted(((dx, dz) for dx in range(-6, 7) for dz in range(-6, 7)), key=lambda d: abs(d[0]) + abs(d[1]))
    tx, tz = next(
        (x + dx, z + dz)
        for dx, dz in spots
        if open_at(x + dx, z + dz)
        and all(open_at(x + dx + a, z + dz + b) for a, b in ((1, 0), (-1, 0), (0, 1), (0, -1)))
    )
    world.command(f"/tp {tx + 0.5} {GROUND} {tz + 0.5}")
    for _ in range(40):  # the server's position packet arrives within a few ticks
        p = world._call("state")["position"]
        if math.floor(p[0]) == tx and math.floor(p[2]) == tz and abs(p[1] - GROUND) < 0.5:
            return
        time.sleep(0.05)
    raise AssertionError(f"the bot was not teleported to open ground at {tx}, {GROUND}, {tz}")


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
