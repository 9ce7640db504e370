"""Swap any node's part: a user's planner, explainer, describer, parser, selector or controller
loads from package.module:factory on the CLI, gets the LLM and settings when it asks for them,
and keeps the CLI, traces and eval."""

from __future__ import annotations

import json
import sys

import pytest

from agent.cli import main
from agent.components import build_custom, needs_llm
from nodes.settings import RunSettings, SettingsError

# The paper's worked example, as a user's own planner: the first plan forgets the pickaxe and
# the table; after the explanation it writes the fixed one.
PLANNER = '''
FLAWED = """mine({'log':3}, null)
craft({'planks':12}, {'log':3}, null)
craft({'stick':4}, {'planks':2}, null)
mine({'cobblestone':2}, null)
craft({'stone_sword':1}, {'cobblestone':2, 'stick':1}, 'crafting_table')"""
FIXED = """craft({'crafting_table':1}, {'planks':4}, null)
craft({'wooden_pickaxe':1}, {'planks':3, 'stick':2}, 'crafting_table')
mine({'cobblestone':2}, 'wooden_pickaxe')
craft({'stone_sword':1}, {'cobblestone':2, 'stick':1}, 'crafting_table')"""

def factory():
    return lambda request: FIXED if request.explanations else FLAWED
'''

EXPLAINER = """
class Explainer:
    name = "mine"

    def __init__(self, settings):
        self.seed = settings.seed

    def explain(self, failed, error, inventory):
        return f"MY EXPLANATION (seed {self.seed}): {failed} failed because {error}", {}

def factory(settings):
    return Explainer(settings)
"""

DESCRIBER = """
class Describer:
    def describe(self, state):
        return "MY DESCRIPTION: " + state["outcomes"][-1]["error"]

def factory():
    return Describer()
"""


@pytest.fixture
def user_parts(tmp_path, monkeypatch):
    for name, text in (("my_planner", PLANNER), ("my_explainer", EXPLAINER), ("my_describer", DESCRIBER)):
        (tmp_path / f"{name}.py").write_text(text)
        monkeypatch.delitem(sys.modules, name, raising=False)  # another test's module of the same name
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _trace_updates(trace_dir, node):
    lines = [json.loads(line) for line in (trace_dir / "trace.jsonl").read_text().splitlines()]
    return [line["update"] for line in lines if line.get("event") == "update" and line.get("node") == node]


def test_users_explainer_and_describer_run_through_deps_run(user_parts, capsys):
    trace = user_parts / "trace"
    code = main(
        [
            "run",
            "CraftStoneSword",
            "--planner",
            "my_planner:factory",
            "--explainer",
            "my_explainer:factory",
            "--describer",
            "my_describer:factory",
            "--seed",
            "7",
            "--trace-dir",
            str(trace),
            "--inventory",
            '{"planks": 10, "stick": 4}',
            "--json",
        ]
    )
    assert code == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["success"] and result["rounds"] == 1
    explanations = _trace_updates(trace, "explain")
    assert explanations[0]["explanations"][0].startswith("MY EXPLANATION (seed 7): mine({'cobblestone':2}, null)")
    assert _trace_updates(trace, "describe")[0]["descriptions"][0].startswith("MY DESCRIPTION: needs a wooden_pickaxe")


def test_users_explainer_runs_through_deps_eval_with_traces(user_parts, capsys, tmp_path):
    suite = tmp_path / "suite.json"
    suite.write_text(
        json.dumps(
            [
                {
                    "id": "Sword",
                    "group": "G",
                    "instruction": "Obtain a stone sword.",
                    "target": {"stone_sword": 1},
                    "max_steps": 3000,
                    "inventory": {"planks": 10, "stick": 4},
                }
            ]
        )
    )
    out, trace = tmp_path / "out", tmp_path / "traces"
    code = main(
        [
            "eval",
            "--suite",
            str(suite),
            "--out",
            str(out),
            "--planner",
            "my_planner:factory",
            "--explainer",
            "my_explainer:factory",
            "--trace-dir",
            str(trace),
            "--json",
        ]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["success_rate"] == 1.0
    (episode_trace,) = [d for d in trace.iterdir() if d.is_dir()]
    assert _trace_updates(episode_trace, "explain")[0]["explanations"][0].startswith("MY EXPLANATION")


def test_a_factory_gets_what_it_asks_for():
    settings = RunSettings(planner="oracle")
    got = build_custom("tests.test_parts:_probe", llm="LLM", settings=settings, kb="KB")
    assert got == {"llm": "LLM", "kb": "KB"}  # not settings: it did not name it
    assert build_custom("tests.test_parts:_probe_all", llm=1, settings=2, kb=3) == {"llm": 1, "settings": 2, "kb": 3}


def test_a_users_part_that_asks_for_the_llm_gets_one_opened():
    assert not needs_llm(RunSettings(planner="oracle"))
    assert needs_llm(RunSettings(planner="oracle", explainer="tests.test_parts:_probe"))  # names llm
    assert not needs_llm(RunSettings(planner="oracle", describer="tests.test_parts:_no_llm"))  # does not


@pytest.mark.parametrize("flag, spec", [("explainer", "nope"), ("parser", ":x"), ("describer", "x:")])
def test_bad_part_specs_get_one_line(flag, spec):
    with pytest.raises(SettingsError, match=f"--{flag}.*package.module:factory"):
        RunSettings(**{flag: spec}).validate()


def test_a_missing_users_part_is_one_line(capsys):
    assert main(["run", "CraftPlanks", "--planner", "oracle", "--explainer", "no_such_module:factory"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("deps run: error: cannot load 'no_such_module:factory'")


def _probe(llm=None, kb=None):
    return {"llm": llm, "kb": kb}


def _probe_all(**kwargs):
    return kwargs


def _no_llm():
    return None
