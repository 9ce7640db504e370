"""Results are safe (issue 9, items 8-13): no run's state leaks into another's result, task ids
and planted links cannot send a write outside --out, one eval per --out at a time, a changed
task definition is never mixed into a resumed run, episodes.jsonl never keeps half a line,
and report tables survive names with `|`, backticks and newlines.

Real episodes (the oracle planner in the text world: deterministic and cheap) where a user
would run them; a fake episode function only where a test needs to control timing or faults."""

from __future__ import annotations

import errno
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import agent.runner as agent_runner
from agent.fresh import ContaminatedState
from agent.runner import run_episode
from agent.trace import threads
from evaluation import safe_files
from evaluation.cli_eval import eval_command
from evaluation.identity import RUN_JSON, EvalError, run_key_of
from evaluation.out_guard import OutDirLock
from evaluation.report.tables import md_table
from evaluation.runner import run_eval
from evaluation.safe_files import append_line, repair_jsonl, safe_name
from evaluation.store import ResultStore
from nodes.settings import RunSettings
from worlds.tasks import find_task
from worlds.types import Task

ROOT = Path(__file__).resolve().parent.parent
PLANKS = find_task("CraftPlanks")
ORACLE = dict(planner="oracle", world="textworld")


def fake_result(task: Task, settings: RunSettings, **extra) -> dict:
    return {
        "task": task.id,
        "success": True,
        "env_steps": 2,
        "rounds": 0,
        "llm_calls": 0,
        "tokens_in": 0,
        "tokens_out": 0,
        "wall_s": 0.0,
        "plans": ["p"],
        "final_inventory": {},
        "failure_reason": None,
        "thread": f"{task.id}-{settings.seed}",
        **extra,
    }


async def fast(task, settings, *, llm=None):
    return fake_result(task, settings)


def jsonl(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]


def eval_cli(suite, out, **kw) -> tuple[int, str]:
    err = io.StringIO()
    kw.setdefault("settings", RunSettings(**ORACLE))
    kw.setdefault("progress", False)
    code = eval_command(str(suite), str(out), stdout=io.StringIO(), stderr=err, **kw)
    return code, err.getvalue()


def write_suite(path: Path, tasks: list[dict]) -> Path:
    path.write_text(json.dumps(tasks))
    return path


def suite_task(tid: str, group: str = "G", **kw) -> dict:
    return {
        "id": tid,
        "group": group,
        "instruction": "obtain a plank",
        "target": {"planks": 1},
        "max_steps": 3000,
        **kw,
    }


# ------------------------------------------------------------------ 8: no state carried between runs
def test_two_runs_in_one_trace_dir_start_fresh_and_a_reused_thread_is_refused(tmp_path, monkeypatch):
    settings = RunSettings(**ORACLE, trace_dir=str(tmp_path))
    first, second = (run_episode(PLANKS, settings) for _ in range(2))
    assert first["thread"] != second["thread"] and threads(tmp_path) == [first["thread"], second["thread"]]
    for r in (first, second):  # the second run inherited no plan, round or step of the first
        assert r["success"] and r["rounds"] == 0 and len(r["plans"]) == 1
        assert (r["env_steps"], r["plans"]) == (first["env_steps"], first["plans"])

    # a thread that already holds a run (a collision, a caller's mistake) is refused before any step
    monkeypatch.setattr(agent_runner, "new_thread", lambda task: first["thread"])
    with pytest.raises(ContaminatedState, match="already holds a run's checkpoints"):
        run_episode(PLANKS, settings)
    # and were that check bypassed, the first state would betray the merge: no result from it
    monkeypatch.setattr(agent_runner, "check_new_thread", lambda *a, **k: None)
    with pytest.raises(ContaminatedState, match="did not start fresh.*plans"):
        run_episode(PLANKS, settings)


class CrashOnce:
    """The real episode runner, with the first attempt of `victim` killed mid-episode (after
    its first executed goal, its checkpoints already on disk), as a crash would."""

    def __init__(self, victim: str):
        self.victim, self.crashed = victim, False

    def __call__(self, task, settings, *, llm=None):
        def on_update(node, update):
            if node == "execute" and task.id == self.victim and not self.crashed:
                self.crashed = True
                raise RuntimeError("crashed mid-episode")

        return run_episode(task, settings, llm=llm, on_update=on_update)


def test_a_retried_episode_under_resume_gets_a_fresh_thread(tmp_path, monkeypatch):
    tasks = [PLANKS, find_task("CraftSticks")]
    out, trace = tmp_path / "out", tmp_path / "traces"
    settings = RunSettings(**ORACLE, trace_dir=str(trace))
    crash = CrashOnce("CraftSticks")
    s1 = run_eval(tasks, settings, episodes=1, out_dir=out, progress=False, episode_fn=crash, report=False)
    assert s1["n"] == 1 and len(s1["errors"]) == 1
    folder = trace / "CraftSticks-e0"
    [crashed_thread] = threads(folder)

    # were the retry handed the crashed attempt's thread, it would continue that state: refused, not stored
    monkeypatch.setattr(agent_runner, "new_thread", lambda task: crashed_thread)
    s2 = run_eval(tasks, settings, episodes=1, out_dir=out, progress=False, resume=True, episode_fn=crash, report=False)
    assert s2["n"] == 1 and "ContaminatedState" in s2["errors"][0]["error"]
    monkeypatch.undo()

    s3 = run_eval(tasks, settings, episodes=1, out_dir=out, progress=False, resume=True, episode_fn=crash, report=False)
    assert s3["n"] == 2 and not s3["errors"]
    retried = next(r for r in jsonl(out) if r["task_id"] == "CraftSticks")
    clean = run_episode(tasks[1], RunSettings(**ORACLE, seed=retried["seed"]))
    assert retried["thread"] not in (crashed_thread, None) and threads(folder)[-1] == retried["thread"]
    assert (retried["rounds"], retried["plans"], retried["env_steps"]) == (0, clean["plans"], clean["env_steps"])


def test_a_result_on_a_thread_already_stored_is_not_stored(tmp_path):
    async def same_thread(task, settings, *, llm=None):
        return fake_result(task, settings, thread="one-thread")

    tasks = [Task("A", "G", "x", {"planks": 1}, 10), Task("B", "G", "x", {"planks": 1}, 10)]
    s = run_eval(
        tasks, RunSettings(), episodes=1, out_dir=tmp_path, progress=False, episode_fn=same_thread, report=False
    )
    assert s["n"] == 1 and "ContaminatedResult" in s["errors"][0]["error"]
    assert len(jsonl(tmp_path)) == 1


# ------------------------------------------------------------------ 9: file names and links
def test_task_ids_cannot_write_outside_out(tmp_path):
    suite = write_suite(tmp_path / "evil.json", [suite_task("../../escaped"), suite_task("/abs/x"), suite_task("..")])
    work = tmp_path / "a" / "b"
    out, trace = work / "out", work / "out" / "traces"
    code, err = eval_cli(suite, out, settings=RunSettings(**ORACLE, trace_dir=str(trace)))
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "evil.json"]  # nothing written beside
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["b"]
    assert sorted(p.name for p in work.iterdir()) == ["out"]
    assert {p.name for p in out.iterdir()} <= {
        "traces",
        ".lock",
        "run.json",
        "summary.json",
        "report.md",
        "episodes.jsonl",
        "results.sqlite",
        "success_by_group.png",
        "traces.html",
    }
    assert not Path("/abs/x-e0").exists()
    names = sorted(p.name for p in trace.iterdir())
    assert len(names) == 3 and all("/" not in n and not n.startswith(".") for n in names)
    assert {r["task_id"] for r in jsonl(out)} == {"../../escaped", "/abs/x", ".."}  # the ids stay as data
    assert safe_name("CraftPlanks") == "CraftPlanks" and safe_name("a/b") != safe_name("a_b")


def test_links_in_out_are_never_written_through(tmp_path):
    out, victim = tmp_path / "out", tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out.mkdir()
    for name in ("episodes.jsonl.tmp", "summary.json.tmp", "run.json.tmp", "report.md.tmp"):
        (out / name).symlink_to(victim)
    tasks = [Task("A", "G", "x", {"planks": 1}, 10)]
    run_eval(tasks, RunSettings(), episodes=2, out_dir=out, progress=False, episode_fn=fast)
    assert victim.read_text() == "precious\n" and len(jsonl(out)) == 2
    assert not any(p.is_symlink() for p in out.iterdir())

    (out / "report.md").unlink()
    (out / "report.md").symlink_to(victim)  # a link where a result file goes: refused, one line
    code, err = eval_cli("x", out, loader=lambda s: tasks, episode_fn=fast, resume=True, settings=RunSettings())
    assert code == 2 and "symbolic link" in err and len(err.strip().splitlines()) == 1
    assert victim.read_text() == "precious\n"
    with pytest.raises(OSError) as exc:  # and the line appender refuses a link outright
        append_line(out / "report.md", "{}")
    assert exc.value.errno == errno.ELOOP and victim.read_text() == "precious\n"


# ------------------------------------------------------------------ 10: one eval per --out
SLOW_EVAL = """
import asyncio, sys
from evaluation.runner import run_eval
from nodes.settings import RunSettings
from worlds.types import Task

async def slow(task, settings, *, llm=None):
    await asyncio.sleep(0.2)
    return {"task": task.id, "success": True, "env_steps": 1, "rounds": 0, "llm_calls": 0, "tokens_in": 0,
            "tokens_out": 0, "wall_s": 0.2, "plans": [], "final_inventory": {}, "failure_reason": None}

tasks = [Task(f"T{i}", "G", "x", {"planks": 1}, 10) for i in range(4)]
run_eval(tasks, RunSettings(), episodes=50, out_dir=sys.argv[1], progress=False, episode_fn=slow)
"""


def test_a_second_eval_on_the_same_out_is_refused_and_a_killed_one_frees_it(tmp_path):
    out = tmp_path / "out"
    tasks = [Task(f"T{i}", "G", "x", {"planks": 1}, 10) for i in range(4)]
    held = tmp_path / "held"
    held.mkdir()
    with OutDirLock(held):  # a held lock refuses, in this process too
        code, err = eval_cli("x", held, loader=lambda s: tasks, episode_fn=fast, settings=RunSettings())
    assert code == 2 and "another deps eval" in err and len(err.strip().splitlines()) == 1
    with OutDirLock(held):  # a sweep's folder too (each of its runs also locks its own sub-folder)
        code, err = eval_cli(
            "x", held, loader=lambda s: tasks, episode_fn=fast, settings=RunSettings(), sweep="max-rounds=0,1"
        )
    assert code == 2 and "another deps eval" in err and not any(held.glob("max-rounds=*"))

    script = tmp_path / "slow.py"
    script.write_text(SLOW_EVAL)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(out)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not (out / RUN_JSON).exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        code, err = eval_cli("x", out, loader=lambda s: tasks, episode_fn=fast, resume=True, settings=RunSettings())
        assert code == 2 and f"(pid {proc.pid}) is writing to {out}" in err, err
        assert proc.poll() is None, proc.stderr.read().decode()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    s = run_eval(
        tasks, RunSettings(), episodes=50, out_dir=out, progress=False, resume=True, episode_fn=fast, report=False
    )
    assert s["n"] == 200 and not s["errors"]  # the OS freed the lock; nothing lost or repeated
    assert sorted((r["task_id"], r["episode"]) for r in jsonl(out)) == sorted(
        (t.id, e) for t in tasks for e in range(50)
    )


# ------------------------------------------------------------------ 11: task definitions on resume
def test_resume_after_a_task_changed_is_refused_naming_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    suite = write_suite(tmp_path / "mine.json", [suite_task("Keep"), suite_task("Edit")])
    out = tmp_path / "out"
    kw = dict(settings=RunSettings(), episode_fn=fast)
    assert eval_cli("mine.json", out, **kw)[0] == 0  # by relative path
    assert eval_cli(tmp_path / "mine.json", out, resume=True, **kw)[0] == 0  # the same suite by absolute path
    write_suite(tmp_path / "other.json", [suite_task("Keep"), suite_task("Edit")])
    code, err = eval_cli("other.json", out, resume=True, **kw)  # another file, even with equal tasks: refused
    assert code == 2 and "suite: stored" in err

    write_suite(suite, [suite_task("Keep"), suite_task("Edit", max_steps=10)])
    code, err = eval_cli(suite, out, resume=True, episodes=2, **kw)
    assert code == 2 and "'Edit'" in err and "'Keep'" not in err and len(err.strip().splitlines()) == 1
    assert len(jsonl(out)) == 2  # nothing stored was touched
    code, err = eval_cli(suite, out, resume=True, episodes=2, tasks="Keep", **kw)  # the unchanged task resumes
    assert code == 0, err
    with ResultStore(out / "results.sqlite") as st:
        assert set(st.task_hashes(st.run_keys()[0])) == {"Keep", "Edit"}


def test_an_out_dir_from_before_hashes_and_resolved_paths_still_resumes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_suite(tmp_path / "old.json", [suite_task("A"), suite_task("B")])
    out = tmp_path / "out"
    assert eval_cli("old.json", out, settings=RunSettings(), episode_fn=fast)[0] == 0
    # make it look written by the previous version: suite path as given, no task_hash column
    run = json.loads((out / RUN_JSON).read_text())
    run["identity"]["suite"] = "old.json"
    old_key = run_key_of(run["identity"])
    run["run_key"] = old_key
    (out / RUN_JSON).write_text(json.dumps(run))
    with sqlite3.connect(out / "results.sqlite") as c:
        c.execute("UPDATE episodes SET run_key = ?", (old_key,))
        c.execute("ALTER TABLE episodes DROP COLUMN task_hash")
    code, err = eval_cli(tmp_path / "old.json", out, settings=RunSettings(), episode_fn=fast, resume=True, episodes=2)
    assert code == 0, err
    with ResultStore(out / "results.sqlite") as st:
        assert st.run_keys() == [old_key] and st.count() == 4


# ------------------------------------------------------------------ 12: whole lines only
def test_a_short_write_leaves_no_half_line_and_resume_repairs_one(tmp_path, monkeypatch):
    path = tmp_path / "e.jsonl"
    append_line(path, json.dumps({"n": 1}))
    before = path.read_bytes()
    real_write = os.write
    monkeypatch.setattr(safe_files.os, "write", lambda fd, data: real_write(fd, bytes(data)[: len(data) // 2]))
    with pytest.raises(OSError) as exc:
        append_line(path, json.dumps({"n": 2, "pad": "x" * 100}))
    monkeypatch.undo()
    assert exc.value.errno == errno.ENOSPC and path.read_bytes() == before

    # an eval whose disk fills mid-run: every result still stored, the file whole at the end
    out = tmp_path / "out"
    tasks = [Task(f"T{i}", "G", "x", {"planks": 1}, 10) for i in range(3)]
    short, next_size = [], []

    def flaky_write(fd, data):  # the second appended line comes back short, once
        data = bytes(data)
        if data.startswith(b'{"task": "T1"') and not short:
            short.append(os.fstat(fd).st_size)
            return real_write(fd, data[:7])
        if data.startswith(b'{"task": "T2"'):
            next_size.append(os.fstat(fd).st_size)  # the half line was cut back before anything else
        return real_write(fd, data)

    err = io.StringIO()
    monkeypatch.setattr(safe_files.os, "write", flaky_write)
    monkeypatch.setattr(sys, "stderr", err)
    s = run_eval(tasks, RunSettings(), episodes=1, out_dir=out, progress=False, episode_fn=fast, report=False)
    monkeypatch.undo()
    assert (
        short
        and next_size == short
        and "episodes.jsonl not appended" in err.getvalue()
        and "short write" in err.getvalue()
    )
    assert s["n"] == 3 and [r["task_id"] for r in jsonl(out)] == ["T0", "T1", "T2"]

    # a truncated last line (an older writer, a crash) is dropped with a warning on resume
    with open(out / "episodes.jsonl", "ab") as f:
        f.write(b'{"task_id": "T0", "epis')
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    run_eval(tasks, RunSettings(), episodes=1, out_dir=out, progress=False, episode_fn=fast, resume=True, report=False)
    assert "dropped a truncated last line" in err.getvalue() and len(jsonl(out)) == 3
    (out / "x.jsonl").write_bytes(b'{"a": 1}\n{"b":')
    assert repair_jsonl(out / "x.jsonl") and (out / "x.jsonl").read_bytes() == b'{"a": 1}\n'
    assert repair_jsonl(out / "x.jsonl") is None


# ------------------------------------------------------------------ 13: Markdown escaping
def test_report_tables_escape_pipes_backticks_and_newlines(tmp_path):
    table = md_table(["Group", "n"], [["G|H", "1"], ["a`b\nc", "2"]])
    lines = table.splitlines()
    assert len(lines) == 4 and all(line.replace("\\|", "").count("|") == 3 for line in lines)
    assert "G\\|H" in table and "a\\`b<br>c" in table

    tasks = [
        Task("id|with`tick\nnewline", "G|H", "x", {"planks": 1}, 10),
        Task("plain", "G\nI", "x", {"planks": 1}, 10),
    ]
    run_eval(tasks, RunSettings(), episodes=1, out_dir=tmp_path, progress=False, episode_fn=fast)
    report = (tmp_path / "report.md").read_text()
    rows = [line for line in report.splitlines() if line.startswith("|")]
    widths = {
        line.replace("\\|", "").count("|") for line in rows if "Task" in line or "plain" in line or "id\\|with" in line
    }
    assert len(widths) == 1, report  # the per-task table's rows all have the header's cell count
    assert "id\\|with\\`tick<br>newline" in report and "G\\|H" in report
    with pytest.raises(EvalError):  # and a bad out dir is still one line
        run_eval(tasks, RunSettings(), episodes=1, out_dir=tmp_path / "report.md", progress=False, episode_fn=fast)
