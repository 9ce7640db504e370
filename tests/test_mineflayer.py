"""The mineflayer world against flying-squid 1.16.5 on 127.0.0.1 (started and stopped here):
what plain flying-squid supports (join, move, dig with the drop collected, place, inventory,
time), the connection failures as one line, a sidecar crash, and a whole wooden-pickaxe plan
against the project's crafting stand-in (tests/mineflayer_server/standin.js), step for step
the text world's."""

from __future__ import annotations

import math
import os
import signal
import socket

import pytest

from skills.controller import ScriptedController
from tests import mineflayer_support
from worlds.knowledge import load_kb
from worlds.mineflayer import MineflayerError, MineflayerOptions, MineflayerWorld
from worlds.mineflayer.sidecar import Sidecar
from worlds.textworld import TextWorld
from worlds.types import Goal

SKIP = mineflayer_support.skip_reason()
needs_node = pytest.mark.skipif(SKIP is not None, reason=SKIP or "")
KB = load_kb("1.11.2")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_missing_node_is_one_line(monkeypatch):
    monkeypatch.setattr("worlds.mineflayer.sidecar.shutil.which", lambda name: None)
    with pytest.raises(MineflayerError) as e:
        Sidecar().start()
    assert e.value.kind == "no_node" and "\n" not in str(e.value) and "Node.js is not installed" in str(e.value)


def test_bad_server_option_is_one_line():
    with pytest.raises(MineflayerError) as e:
        MineflayerOptions(server="localhost").address()
    assert str(e.value) == "bad --server 'localhost'; accepted: HOST:PORT, e.g. 127.0.0.1:25565"


@needs_node
def test_refused_server_is_one_line():
    port = _free_port()  # nothing listens there
    world = MineflayerWorld(KB, MineflayerOptions(server=f"127.0.0.1:{port}", connect_timeout=10))
    with pytest.raises(MineflayerError) as e:
        world.reset(seed=0, options={})
    assert e.value.kind == "refused" and e.value.connection
    assert str(e.value).startswith(f"cannot join the Minecraft server at 127.0.0.1:{port}: ")
    assert "ECONNREFUSED" in str(e.value) and "\n" not in str(e.value)
    assert not world.sidecar.alive


@pytest.fixture(scope="module")
def plain_server():
    if SKIP:
        pytest.skip(SKIP)
    with mineflayer_support.flying_squid(standin=False) as port:
        yield port


GROUND = 7  # grove.js: grass_block at y 6, so a player stands at y 7


@needs_node
def test_join_move_dig_place_inventory_time(plain_server):
    """On flying-squid as it is: the sidecar's own commands."""
    side = Sidecar(timeout_s=60)
    side.start()
    try:
        state = side.call("connect", host="127.0.0.1", port=plain_server, username="walker", timeout_ms=20000)
        assert state["version"] == "1.16.5" and state["inventory"] == {} and state["game_mode"] == "survival"
        x, z = math.floor(state["position"][0]), math.floor(state["position"][2])
        # flying-squid spawns at random; grove.js puts logs, boulders and ores (which an empty
        # hand cannot dig through) on a 9-block grid, so the walk ends on a cell that is open ground
        tx, tz = next(
            (x + dx, z + dz)
            for dx in range(2, 8)
            for dz in range(1, 8)
            if all(side.call("block_at", x=x + dx, y=h, z=z + dz)["name"] == "air" for h in (GROUND, GROUND + 1))
        )
        moved = side.call("goto", x=tx, y=GROUND, z=tz, range=0)
        assert abs(moved["position"][0] - (tx + 0.5)) < 1 and abs(moved["position"][2] - (tz + 0.5)) < 1
        dug = side.call("collect", blocks=["dirt", "grass_block"])
        assert dug["after"].get("dirt", 0) == dug["before"].get("dirt", 0) + 1  # grass_block drops dirt
        placed = side.call("place", item="dirt")
        # the dirt placed is the dirt dug; other items may have come too (the path to the nearest
        # dirt can break one of grove.js's logs in the way, and the bot picks up what it drops)
        assert placed["block"] == "dirt"
        assert side.call("state")["inventory"].get("dirt", 0) == dug["before"].get("dirt", 0)
        side.call("command", text="/time set 13000")
        night = side.call("state")["time"]
        assert 13000 <= night["time_of_day"] < 14000 and night["is_day"] is False
        side.call("command", text="/time set day")
        assert side.call("state")["time"]["is_day"] is True
        logs = side.call("state")["inventory"].get("oak_log", 0)  # one may have come with the dirt (above)
        side.call("command", text="/give walker oak_log 2")
        # the sidecar's default wait is 5 s; on a loaded 2-core CI machine the give has come later
        got = side.call("wait_item", item="oak_log", count=logs + 2, timeout_ms=30000)["inventory"]
        assert got["oak_log"] == logs + 2
    finally:
        side.close()


@needs_node
def test_sidecar_crash_restarts_and_rejoins(plain_server):
    world = MineflayerWorld(KB, MineflayerOptions(server=f"127.0.0.1:{plain_server}", bot_name="phoenix"))
    try:
        world.reset(seed=0, options={})
        os.kill(world.sidecar.proc.pid, signal.SIGKILL)
        world.sidecar.proc.wait()
        assert world.refresh()["version"] == "1.16.5"  # restarted, rejoined
        assert world.sidecar.alive
    finally:
        world.close()


@needs_node
def test_server_gone_is_one_line():
    with mineflayer_support.flying_squid(standin=False) as port:
        world = MineflayerWorld(KB, MineflayerOptions(server=f"127.0.0.1:{port}", bot_name="orphan"))
        world.reset(seed=0, options={})
    try:  # the server has stopped
        with pytest.raises(MineflayerError) as e:
            for _ in range(50):
                world.refresh()
                world.sidecar.call("wait_ticks", ticks=4, timeout_s=5)
        assert e.value.connection and "\n" not in str(e.value)
        assert e.value.kind in ("disconnected", "timeout")
    finally:
        world.close()


# ------------------------------------------------------------------ a whole plan, against the text world

PLAN = [
    Goal("craft", {"wooden_pickaxe": 1}),  # refused: nothing held yet
    Goal("mine", {"log": 3}),
    Goal("craft", {"planks": 12}),
    Goal("craft", {"stick": 4}),
    Goal("mine", {"cobblestone": 1}),  # refused: no pickaxe yet
    Goal("craft", {"wooden_pickaxe": 1}),  # refused: no table yet
    Goal("craft", {"crafting_table": 1}),
    Goal("craft", {"wooden_pickaxe": 1}),
    Goal("mine", {"cobblestone": 1}),  # now with the pickaxe
]


def _play(world, plan):
    from nodes.describe import describe_outcomes

    controller = ScriptedController(KB)
    rows, outcomes = [], []
    for i, goal in enumerate(plan):
        out = controller.run(goal, world)
        outcomes.append({"plan": 0, "step": i, "ok": out["ok"], "error": out["error"], "goal": goal.to_dict()})
        text = (
            describe_outcomes(
                {
                    "plans": [plan],
                    "outcomes": [o for o in outcomes if o["ok"]] + [outcomes[-1]],
                    "inventory": world.inventory,
                }
            )
            if not out["ok"]
            else None
        )
        rows.append(
            {
                "goal": goal.code(),
                "ok": out["ok"],
                "error": out["error"],
                "missing": out["missing"],
                "steps": out["steps"],
                "inventory": world.inventory,
                "description": text,
            }
        )
    return rows


@pytest.fixture(scope="module")
def standin_server():
    if SKIP:
        pytest.skip(SKIP)
    with mineflayer_support.flying_squid(standin=True, kb=load_kb(mineflayer_support.VERSION)) as port:
        yield port


@needs_node
def test_wooden_pickaxe_plan_matches_the_text_world(standin_server):
    text = TextWorld(KB)
    text.reset(seed=0, options={"max_steps": 3000})
    expected = _play(text, PLAN)
    world = MineflayerWorld(KB, MineflayerOptions(server=f"127.0.0.1:{standin_server}", bot_name="crafter"))
    try:
        # A real server is physics: now and then a drop lands out of reach and is picked up with the
        # next one, so a unit yields two logs (about one run in eight, more on a loaded machine). Such a
        # run is played again from a fresh reset, up to three more times, each 45 blocks (five of the
        # grove's 9-block tiles) further east: a reset clears the inventory but not the drops left on
        # the ground, which a replay on the same spot may pick up (one CI run failed all three tries
        # on one spot). One try must match the text world exactly.
        for attempt in range(4):
            if attempt:
                x, y, z = world._call("state")["position"]
                world.command(f"/tp {math.floor(x) + 45.5} {y} {math.floor(z) + 0.5}")
            world.reset(seed=0, options={"max_steps": 3000})
            got = _play(world, PLAN)
            if got == expected:
                break
    finally:
        world.close()
    for want, have in zip(expected, got):
        assert have == want, f"{want['goal']}: the mineflayer world gave {have}, the text world {want}"
    assert [r["ok"] for r in got] == [False, True, True, True, False, False, True, True, True]
    assert got[-1]["inventory"] == {"cobblestone": 1, "crafting_table": 1, "planks": 3, "stick": 2, "wooden_pickaxe": 1}
    assert got[5]["error"] == "cannot craft wooden_pickaxe: needs a crafting_table"
    assert got[5]["description"].startswith("I succeeded on steps 2, 3, 4 but I failed on step 6 ")


@needs_node
def test_deps_run_obtains_dirt_on_flying_squid(plain_server, capsys):
    """The issue's own command, in process: `deps run "obtain a dirt" --world mineflayer --server ...`
    (the oracle planner: no LLM here)."""
    from agent.cli import main

    rc = main(
        [
            "run",
            "obtain a dirt",
            "--world",
            "mineflayer",
            "--server",
            f"127.0.0.1:{plain_server}",
            "--bot-name",
            "cli",
            "--planner",
            "oracle",
        ]
    )
    cap = capsys.readouterr()
    text = cap.out + cap.err
    assert rc == 0, text
    assert "world mineflayer" in text and "[execute] step 1: ok" in text and "\nSUCCESS:" in text


@needs_node
def test_deps_run_refused_server_is_one_line(capsys):
    from agent.cli import main

    port = _free_port()
    rc = main(["run", "obtain a dirt", "--world", "mineflayer", "--server", f"127.0.0.1:{port}", "--planner", "oracle"])
    err = capsys.readouterr().err.strip().splitlines()[-1]  # after the task's header line
    assert rc == 2
    assert (
        err == f"deps run: error: cannot join the Minecraft server at 127.0.0.1:{port}: "
        f"connect ECONNREFUSED 127.0.0.1:{port}"
    )
