"""The command-line contract: JSON on the last stdout line, one-line errors, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agent.cli import main
from tests.contract import RUN_KEYS


def _last_json(out: str):
    return json.loads(out.strip().splitlines()[-1])


def test_run_oracle_diamond_json(capsys):
    assert main(["run", "obtain a diamond", "--planner", "oracle", "--json"]) == 0
    result = _last_json(capsys.readouterr().out)
    assert RUN_KEYS <= set(result)
    assert result["success"] is True and result["llm_calls"] == 0
    assert result["final_inventory"].get("diamond", 0) >= 1
    assert len(result["plans"]) == 1


def test_exit_code_says_whether_the_episode_succeeded(capsys):
    failing = ["run", "CraftWoodenPickaxe", "--planner", "oracle", "--skills", "craft", "--quiet"]
    assert main(failing) == 0  # a failed episode is a result
    assert main([*failing, "--exit-code"]) == 1  # unless the caller asks for the outcome as the exit code
    assert main(["run", "CraftPlanks", "--planner", "oracle", "--quiet", "--exit-code"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("version", ["1.16.5", "1.19.2"])
def test_run_task_id_in_other_versions(capsys, version):
    assert main(["run", "CraftWoodenDoor", "--planner", "oracle", "--mc-version", version, "--json", "--quiet"]) == 0
    assert _last_json(capsys.readouterr().out)["success"]


def test_inventory_and_skills_flags(capsys):
    args = [
        "run",
        "obtain a stone pickaxe",
        "--planner",
        "oracle",
        "--json",
        "--quiet",
        "--inventory",
        '{"cobblestone": 3, "stick": 2, "crafting_table": 1}',
        "--skills",
        "craft",
    ]
    assert main(args) == 0
    result = _last_json(capsys.readouterr().out)
    assert result["success"] and result["final_inventory"]["stone_pickaxe"] == 1


def test_tasks_json_lists_the_contract_keys(capsys):
    assert main(["tasks", "--json"]) == 0
    listing = _last_json(capsys.readouterr().out)
    assert listing["suite"] == "deps71"  # one JSON object, like every --json command
    rows = listing["tasks"]
    assert len(rows) == 76
    assert {"id", "group", "instruction", "target", "max_steps"} <= set(rows[0])
    assert {r["group"] for r in rows} == {f"MT{i}" for i in range(1, 9)}


@pytest.mark.parametrize(
    "args, expected",
    [
        (["run", "obtain a frobnicator", "--planner", "oracle"], "unknown task"),
        (["run", "CraftBed", "--planner", "nonsense"], "accepted:"),
        (["run", "CraftBed", "--world", "mars"], "invalid choice"),
        (["run", "CraftBed", "--inventory", "{not json"], "--inventory is not valid JSON"),
        (["run", "CraftBed", "--inventory", '{"log": -1}'], "bad inventory entry"),
        (["run", "CraftBed", "--skills", "fly"], "unknown skill type"),
        (["run", "CraftBed", "--llm", "http://127.0.0.1:9/v1"], "deps run: error:"),
        (["run", "CraftBed", "--llm", "bogus:"], "deps run: error:"),
        (["tasks", "--suite", "nope"], "deps tasks: error:"),
    ],
)
def test_bad_input_gets_one_line_and_nonzero_exit(args, expected):
    proc = subprocess.run([sys.executable, "-m", "agent.cli", *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip() and not line.startswith("task ")]
    assert len(lines) == 1, proc.stderr
    assert expected in lines[0]
    assert "Traceback" not in proc.stderr


def test_graph_prints_mermaid(capsys):
    assert main(["graph"]) == 0
    from tests.test_graph import LOOP_EDGES, mermaid_edges

    assert mermaid_edges(capsys.readouterr().out) == LOOP_EDGES


def test_doctor_quick(capsys):
    code = main(["doctor", "--quick", "--json"])
    report = _last_json(capsys.readouterr().out)
    assert code == (0 if report["ok"] else 1)
    names = {c["name"] for c in report["checks"]}
    assert {"minecraft data 1.11.2", "task suites", "local LLM"} <= names
    assert all(c["ok"] for c in report["checks"] if c["required"]), report


def test_bench_reports_side_by_side_ratios(capsys):
    assert main(["bench", "--repeat", "1", "--json"]) == 0
    metrics = _last_json(capsys.readouterr().out)["metrics"]
    for key in ("graph_overhead_ratio", "parse_embedding_vs_exact_ratio", "solve_diamond_vs_wooden_pickaxe_ratio"):
        assert isinstance(metrics[key], float) and metrics[key] > 0


def test_kb_query(capsys):
    assert main(["kb", "Wooden Pickaxe", "--json"]) == 0
    info = _last_json(capsys.readouterr().out)
    assert info["item"] == "wooden_pickaxe"
    assert info["how_to_make"] == "craft 1 wooden_pickaxe from 3 planks + 2 stick on a crafting_table"
    assert info["oracle_plan"][0].startswith("mine({'log'")
    assert main(["kb", "unobtainium"]) == 2


def test_every_flag_of_every_command_has_help():
    import argparse

    from agent.cli import build_parser

    missing = []

    def walk(parser, name):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, sp in action.choices.items():
                    walk(sp, f"{name} {sub}")
            elif not action.help and not isinstance(action, argparse._HelpAction):
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")

    walk(build_parser(), "deps")
    assert missing == []
