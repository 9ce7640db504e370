"""One checkpoint thread per run: runs sharing a --trace-dir never share state; a killed run
resumes from its last checkpoint; `deps replay` re-runs from any checkpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agent.cli import main
from agent.runner import run_episode
from agent.trace import read_trace, threads
from nodes.settings import RunSettings
from tests.fakes import FakeLLM
from tests.test_graph import EXPLANATION, FIXED, FLAWED, KB, STONE_SWORD

ROOT = Path(__file__).resolve().parent.parent

# A user's planner that writes the paper's flawed plan, then (after the explanation) the fixed
# one; with CRASH_AT_REPLAN set the process dies at the re-plan, as a killed run would.
CRASHING_PLANNER = f"""
import os
FLAWED = {FLAWED!r}
FIXED = {FIXED!r}

def factory():
    def plan(request):
        if not request.explanations:
            return FLAWED
        if os.environ.get("CRASH_AT_REPLAN"):
            os._exit(137)
        return FIXED
    return plan
"""


def _deps(args, cwd, **env):
    full_env = {**os.environ, "PYTHONPATH": f"{cwd}{os.pathsep}{ROOT}", **env}
    return subprocess.run(
        [sys.executable, "-m", "agent.cli", *args], cwd=cwd, env=full_env, capture_output=True, text=True, timeout=300
    )


def test_two_runs_in_one_trace_dir_share_nothing(tmp_path):
    results = [
        run_episode(
            STONE_SWORD,
            RunSettings(planner="deps", trace_dir=str(tmp_path), max_rounds=2),
            llm=FakeLLM([FLAWED, EXPLANATION, FIXED]),
            kb=KB,
        )
        for _ in range(2)
    ]
    assert results[0]["thread"] != results[1]["thread"]
    for r in results:  # the second run did not inherit the first one's dialogue, rounds or tokens
        assert r["success"] and r["rounds"] == 1 and r["plans"] == [FLAWED, FIXED]
        assert r["llm_calls"] == results[0]["llm_calls"]
    assert threads(tmp_path) == [r["thread"] for r in results]
    assert all(line["thread"] in threads(tmp_path) for line in read_trace(tmp_path))


def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path):
    (tmp_path / "crashy.py").write_text(CRASHING_PLANNER)
    trace = tmp_path / "trace"
    args = [
        "run",
        "CraftStoneSword",
        "--planner",
        "crashy:factory",
        "--trace-dir",
        str(trace),
        "--inventory",
        '{"planks": 10, "stick": 4}',
        "--quiet",
        "--json",
    ]
    killed = _deps(args, tmp_path, CRASH_AT_REPLAN="1")
    assert killed.returncode == 137
    (thread,) = threads(trace)
    resumed = _deps(["run", "--resume", thread, "--trace-dir", str(trace), "--json", "--quiet"], tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert result["thread"] == thread and result["success"]
    # the failure before the crash is part of the resumed run: one re-plan, both plans
    assert result["rounds"] == 1 and result["plans"] == [FLAWED, FIXED]


def test_replay_forks_from_a_checkpoint_and_finished_runs_are_not_resumed(tmp_path, capsys):
    first = run_episode(
        STONE_SWORD, RunSettings(planner="oracle", trace_dir=str(tmp_path), inventory={"planks": 10, "stick": 4}), kb=KB
    )
    assert main(["run", "--resume", first["thread"], "--trace-dir", str(tmp_path)]) == 2
    assert "has already finished" in capsys.readouterr().err
    assert main(["replay", first["thread"], "--from", "3", "--trace-dir", str(tmp_path), "--json", "--quiet"]) == 0
    again = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert again["success"] and again["thread"] == first["thread"]
    assert again["final_inventory"] == first["final_inventory"]  # the world was restored to step 3, not reset
    assert main(["replay", first["thread"], "--from", "999", "--trace-dir", str(tmp_path)]) == 2
    assert "has no step 999" in capsys.readouterr().err


def test_resume_of_an_unknown_thread_is_one_line(tmp_path, capsys):
    assert main(["run", "--resume", "nope", "--trace-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("deps run: error: no run 'nope'")
