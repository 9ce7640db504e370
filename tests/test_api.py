"""The Python API (agent/api.py) as docs/python-api.md shows it, and parts added through the one
registry (nodes/registry.py) appearing everywhere a part is listed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent.cli import main
from nodes import registry
from nodes.planners.oracle import OraclePlanner
from nodes.selectors import FixedSelector

DOC = Path(__file__).resolve().parent.parent / "docs" / "python-api.md"


def test_the_docs_python_example_runs_as_written(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 5
    scope: dict = {}
    for block in blocks:  # in order, in one namespace, as a reader would paste them
        exec(compile(block, str(DOC), "exec"), scope)
    out = capsys.readouterr().out
    assert "True" in out and "about to run:" in out


def test_two_runs_of_the_studio_graph_do_not_share_a_world():
    from agent.studio import graph

    first = graph.invoke({"task": "CraftWoodenPickaxe"}, context={"planner": "oracle"})
    second = graph.invoke({"task": "CraftWoodenPickaxe"}, context={"planner": "oracle"})
    assert first["status"] == second["status"] == "success"
    # each run mined its own logs: the second started from nothing, not from the first's leftovers
    assert first["env_steps"] == second["env_steps"] > 0
    assert second["inventory"] == first["inventory"]


class _TinyWorld:
    """A world of one rule: `mine dirt` gives one dirt."""

    def __init__(self, task):
        self.inventory, self.steps, self.max_steps, self.target = {}, 0, task.max_steps, task.target
        self.observation_space = self.action_space = {}

    def reset(self, seed=None, options=None):
        return {"inventory": dict(self.inventory)}, {}

    def step(self, action):
        self.steps += 1
        if action.get("action") == "mine" and action.get("item") == "dirt":
            self.inventory["dirt"] = self.inventory.get("dirt", 0) + 1
            return {}, 0.0, False, False, {"ok": True, "gained": {"dirt": 1}, "cost": 1}
        return (
            {},
            0.0,
            False,
            False,
            {"ok": False, "error": f"the tiny world cannot {action.get('action')}", "gained": {}, "cost": 1},
        )

    def has(self, name, count=1):
        return self.inventory.get(name, 0) >= count


@pytest.fixture
def added_parts():
    registry.register("world", "tiny", lambda task: _TinyWorld(task), help="one rule: mine dirt")
    registry.register("planner", "dirt-digger", lambda: _DirtPlanner(), help="always: mine one dirt")
    registry.register("selector", "first-ready", lambda: FixedSelector(), help="plan order, by another name")
    yield
    for kind, name in (("world", "tiny"), ("planner", "dirt-digger"), ("selector", "first-ready")):
        registry.unregister(kind, name)


class _DirtPlanner(OraclePlanner):
    name = "dirt-digger"

    def plan(self, req):
        from nodes.planners.base import PlanResult

        return PlanResult("mine({'dirt':1}, null)")


def test_parts_added_through_the_registry_appear_everywhere(added_parts, tmp_path, capsys, monkeypatch):
    from agent.api import context_schema
    from agent.cli import build_parser

    monkeypatch.setenv("COLUMNS", "1000")  # argparse wraps help at hyphens; one line per flag here
    help_text = build_parser()._subparsers._group_actions[0].choices["run"].format_help()
    assert "tiny" in help_text and "dirt-digger" in help_text and "first-ready" in help_text
    props = context_schema().model_json_schema()["properties"]
    assert "tiny" in props["world"]["enum"] and "dirt-digger" in props["planner"]["enum"]
    assert "first-ready" in json.dumps(props["selector"])
    code = main(
        [
            "eval",
            "--suite",
            str(_suite(tmp_path)),
            "--world",
            "tiny",
            "--planner",
            "dirt-digger",
            "--selector",
            "first-ready",
            "--out",
            str(tmp_path / "out"),
            "--json",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    summary = json.loads(out.out.strip().splitlines()[-1])
    assert summary["success_rate"] == 1.0 and summary["world"] == "tiny"


def _suite(tmp_path: Path) -> Path:
    p = tmp_path / "dirt.json"
    p.write_text(
        json.dumps(
            [{"id": "GetDirt", "group": "G", "instruction": "obtain a dirt", "target": {"dirt": 1}, "max_steps": 10}]
        )
    )
    return p


def test_a_registration_needs_a_known_kind_and_a_fresh_name():
    with pytest.raises(registry.RegistryError, match="accepted: world, planner"):
        registry.register("gadget", "x", lambda: None, help="")
    with pytest.raises(registry.RegistryError, match="already registered"):
        registry.register("planner", "oracle", lambda: None, help="")


class _LostWorld(_TinyWorld):
    """A world whose server goes away at the first step."""

    def step(self, action):
        from worlds.base import WorldError

        raise WorldError("the server at 127.0.0.1:25565 closed the connection")


def test_a_world_that_fails_mid_episode_ends_it_as_failed_with_the_cause():
    from agent.api import run_episode

    registry.register("world", "lost", lambda task: _LostWorld(task), help="a server that goes away")
    registry.register("planner", "dirt-digger", lambda: _DirtPlanner(), help="always: mine one dirt")
    try:
        record = run_episode("obtain a dirt", world="lost", planner="dirt-digger")
    finally:
        registry.unregister("world", "lost")
        registry.unregister("planner", "dirt-digger")
    assert not record["success"]
    assert record["failure_reason"] == "world failed: the server at 127.0.0.1:25565 closed the connection"
