"""Tests of the evaluation harness (`deps eval`): store, runner, metrics, resume, kill-safety,
reports, CLI errors. Fast and deterministic: the episode function is a fake. (One file for the
harness's contract, hence over 400 lines; data safety is in test_data_safety.py.)"""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from evaluation.cli_eval import compare_command, eval_command, parse_sweep, select_tasks
from evaluation.identity import EvalError, episode_seed, stable_hash
from evaluation.metrics import summarize
from evaluation.report import report as report_mod
from evaluation.runner import run_eval
from evaluation.store import ResultStore
from evaluation.sweep import run_sweep
from nodes.settings import RunSettings
from tests.contract import EVAL_KEYS, RUN_KEYS
from worlds.types import Task

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- fakes
def make_tasks(suite: str = "fake") -> list[Task]:
    return [
        Task("A1", "MT1", "obtain a", {"planks": 1}, 100, suite=suite),
        Task("A2", "MT1", "obtain b", {"stick": 1}, 100, suite=suite),
        Task("A3", "MT1", "obtain c", {"bowl": 1}, 100, suite=suite),
        Task("B1", "MT2", "obtain d", {"furnace": 1}, 100, suite=suite),
        Task("B2", "MT2", "obtain e", {"stone_pickaxe": 1}, 100, suite=suite),
    ]


# success per (task, episode): A1 always, A2 every other episode, A3 never, B1 episode 0 only, B2 never
def outcome(task_id: str, episode: int) -> bool:
    return {"A1": True, "A2": episode % 2 == 0, "A3": False, "B1": episode == 0, "B2": False}[task_id]


def _episode_of(task: Task, settings: RunSettings) -> int:
    # run_eval gives seed = episode_seed(base, task.id, episode); invert it for the fake
    return settings.seed - episode_seed(0, task.id, 0)


def result_for(task: Task, settings: RunSettings, **extra) -> dict:
    ep = _episode_of(task, settings)
    ok = outcome(task.id, ep)
    d = {
        "task": task.id,
        "success": ok,
        "env_steps": 10 + ep,
        "rounds": 1,
        "llm_calls": 3,
        "tokens_in": 100,
        "tokens_out": 10 if ok else 30,
        "wall_s": 0.5,
        "plans": ["p"],
        "final_inventory": {},
        "failure_reason": None if ok else "budget",
    }
    d.update(extra)
    return d


class Fake:
    """Async fake episode function that records its calls."""

    def __init__(self, delay: float = 0.0, fail: set[str] | None = None):
        self.calls: list[tuple[str, int, int]] = []
        self.delay, self.fail = delay, fail or set()
        self.lock = threading.Lock()
        self.active = 0
        self.max_active = 0

    async def __call__(self, task: Task, settings: RunSettings, *, llm=None) -> dict:
        with self.lock:
            self.calls.append((task.id, _episode_of(task, settings), settings.seed))
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            await asyncio.sleep(self.delay)
            if task.id in self.fail:
                raise RuntimeError("boom\nsecond line")
            return result_for(task, settings)
        finally:
            with self.lock:
                self.active -= 1


def fake_loader(name: str) -> list[Task]:
    if name == "fake":
        return make_tasks()
    raise ValueError(f"unknown suite {name!r}; accepted: fake, or a suite file")


def jsonl_lines(d: Path) -> list[dict]:
    return [json.loads(x) for x in (d / "episodes.jsonl").read_text().splitlines() if x.strip()]


def run(tasks, out, settings=None, **kw):
    kw.setdefault("episodes", 2)
    kw.setdefault("progress", False)
    return run_eval(tasks, settings or RunSettings(), out_dir=out, **kw)


# ----------------------------------------------------------------------------- seeds
def test_seeds_are_stable_across_processes():
    here = [episode_seed(7, "CraftWoodenPickaxe", e) for e in range(3)]
    code = (
        "from evaluation.identity import episode_seed;"
        "print([episode_seed(7, 'CraftWoodenPickaxe', e) for e in range(3)])"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="123")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert json.loads(out.stdout) == here
    assert here[1] == here[0] + 1
    assert episode_seed(0, "x", 0) != episode_seed(1, "x", 0)
    assert stable_hash("abc") == stable_hash("abc") and 0 <= stable_hash("abc") < 2**31


# ----------------------------------------------------------------------------- summary math
def test_summary_keys_and_group_math(tmp_path):
    fake = Fake()
    s = run(make_tasks(), tmp_path / "r", episode_fn=fake, episodes=4, workers=3)
    assert EVAL_KEYS <= set(s)
    assert s["suite"] == "fake" and s["planner"] == "deps" and s["world"] == "textworld" and s["episodes"] == 4
    assert len(fake.calls) == 20 and s["n"] == 20 and s["missing"] == 0
    g1, g2 = s["groups"]["MT1"], s["groups"]["MT2"]
    # MT1: A1 4/4, A2 2/4, A3 0/4 -> 6/12; per-task rates 1, .5, 0 -> sample std .5
    assert g1["n"] == 12 and g1["success_rate"] == pytest.approx(0.5) and g1["std"] == pytest.approx(0.5)
    # MT2: B1 1/4, B2 0/4 -> 1/8; std of (.25, 0)
    assert g2["n"] == 8 and g2["success_rate"] == pytest.approx(0.125)
    assert g2["std"] == pytest.approx(statistics.stdev([0.25, 0.0]), abs=1e-4)
    assert s["success_rate"] == pytest.approx(7 / 20)
    assert s["tokens_in"] == 20 * 100 and s["tokens_out"] == 7 * 10 + 13 * 30
    assert s["wall_s"] == pytest.approx(10.0)
    assert g1["tokens_per_success"] == pytest.approx(110.0)
    assert s["per_task"]["A2"]["success_rate"] == pytest.approx(0.5)
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["success_rate"] == s["success_rate"]
    # seeds: fixed per (task, episode), never reused
    seeds = [c[2] for c in fake.calls]
    assert len(set(seeds)) == 20
    assert {(t, e): sd for t, e, sd in fake.calls}[("B1", 3)] == episode_seed(0, "B1", 3)
    assert 1 < fake.max_active <= 3  # concurrent, bounded by workers
    rows = jsonl_lines(tmp_path / "r")
    assert len(rows) == 20 and all(RUN_KEYS | {"task_id", "episode"} <= set(r) for r in rows)


def test_summarize_single_task_group_std_zero():
    tasks = [Task("X", "G", "x", {"a": 1}, 1)]
    rows = [{"task_id": "X", "episode": 0, "success": True, "tokens_in": 1, "tokens_out": 1}]
    s = summarize(tasks, rows, RunSettings(), episodes=1, suite="s")
    assert s["groups"]["G"] == s["groups"]["G"] | {"success_rate": 1.0, "n": 1, "std": 0.0}


def test_the_summary_and_report_gather_which_part_drove_each_goal():
    tasks = [Task("X", "G", "x", {"a": 1}, 1), Task("Y", "G", "y", {"b": 1}, 1)]
    rows = [
        {
            "task_id": "X",
            "episode": 0,
            "success": True,
            "drivers": {"policy": ["mine:log"], "functional": ["craft:planks"]},
        },
        {"task_id": "Y", "episode": 0, "success": False, "drivers": {"policy": ["mine:log", "kill:cow"]}},
        {"task_id": "Y", "episode": 1, "success": False},  # a record from before `drivers`, or scripted
    ]
    s = summarize(tasks, rows, RunSettings(), episodes=2, suite="s")
    assert s["drivers"] == {"functional": ["craft:planks"], "policy": ["kill:cow", "mine:log"]}
    md = report_mod.render_report(s, png_name=None)
    assert (
        "Goals driven, over all episodes: functional: 1 (crafts, smelts, equips); policy: `kill:cow`, `mine:log`." in md
    )
    assert "Goals driven" not in report_mod.render_report(
        summarize(tasks, rows[2:], RunSettings(), episodes=2), png_name=None
    )


# ----------------------------------------------------------------------------- resume
def test_resume_skips_stored_and_jsonl_has_one_line_each(tmp_path):
    out = tmp_path / "r"
    first = Fake()
    run(make_tasks(), out, episode_fn=first, episodes=2)
    assert len(first.calls) == 10
    # simulate a crash between a store commit and the jsonl rewrite: a stray duplicate line
    with open(out / "episodes.jsonl", "a") as f:
        f.write((out / "episodes.jsonl").read_text().splitlines()[0] + "\n")
    second = Fake()
    s = run(make_tasks(), out, episode_fn=second, episodes=3, resume=True)
    assert sorted((t, e) for t, e, _ in second.calls) == sorted((t.id, 2) for t in make_tasks())
    keys = [(r["task_id"], r["episode"]) for r in jsonl_lines(out)]
    assert len(keys) == len(set(keys)) == 15 and s["n"] == 15
    # nothing left: a second resume runs nothing
    third = Fake()
    run(make_tasks(), out, episode_fn=third, episodes=3, resume=True)
    assert third.calls == []
    assert len(jsonl_lines(out)) == 15


def test_rerun_without_resume_is_refused(tmp_path):
    out = tmp_path / "r"
    run(make_tasks(), out, episode_fn=Fake())
    with pytest.raises(EvalError) as e:
        run(make_tasks(), out, episode_fn=Fake())
    msg = str(e.value)
    assert "--resume" in msg and "--out" in msg and "\n" not in msg


def test_resume_with_different_settings_is_refused(tmp_path):
    out = tmp_path / "r"
    run(make_tasks(), out, episode_fn=Fake())
    with pytest.raises(EvalError) as e:
        run(make_tasks(), out, RunSettings(planner="dep"), episode_fn=Fake(), resume=True)
    msg = str(e.value)
    assert "different settings" in msg and "planner" in msg and "\n" not in msg
    with pytest.raises(EvalError):
        run(make_tasks(), out, RunSettings(max_rounds=3), episode_fn=Fake(), resume=True)
    # the same settings resume fine; trace_dir is not part of the run's identity
    run(make_tasks(), out, RunSettings(trace_dir=str(tmp_path / "tr")), episode_fn=Fake(), resume=True)


def test_episode_errors_are_not_stored_and_resume_retries(tmp_path):
    out = tmp_path / "r"
    s = run(make_tasks(), out, episode_fn=Fake(fail={"A3"}))
    assert s["missing"] == 2 and len(s["errors"]) == 2
    assert s["errors"][0]["task_id"] == "A3" and "\n" not in s["errors"][0]["error"]
    retry = Fake()
    s2 = run(make_tasks(), out, episode_fn=retry, resume=True)
    assert sorted((t, e) for t, e, _ in retry.calls) == [("A3", 0), ("A3", 1)]
    assert s2["missing"] == 0 and s2["errors"] == []


def test_store_is_safe_under_concurrent_writers(tmp_path):
    path = tmp_path / "s.sqlite"
    errors: list[BaseException] = []

    def writer(i: int) -> None:
        try:
            with ResultStore(path) as st:
                for t in range(20):
                    st.put("k", f"T{t}", 0, {"success": True, "w": i})
        except BaseException as exc:  # a writer that dies must fail the test, not warn
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    with ResultStore(path) as st:
        assert st.count("k") == 20 and len(st.done_keys("k")) == 20
        assert st.put("k", "T0", 0, {"success": False}) is False


# ----------------------------------------------------------------------------- SIGKILL
KILL_SCRIPT = textwrap.dedent("""
    import asyncio, sys
    from nodes.settings import RunSettings
    from worlds.types import Task
    from evaluation.runner import run_eval

    async def slow(task, settings, *, llm=None):
        await asyncio.sleep(0.06)
        return {"task": task.id, "success": True, "env_steps": 1, "rounds": 0, "llm_calls": 0,
                "tokens_in": 1, "tokens_out": 1, "wall_s": 0.06, "plans": [], "final_inventory": {},
                "failure_reason": None, "phase": "first"}

    tasks = [Task(f"T{i}", f"G{i % 2}", "x", {"a": 1}, 10, suite="kill") for i in range(6)]
    run_eval(tasks, RunSettings(), episodes=8, out_dir=sys.argv[1], workers=2, progress=False, episode_fn=slow)
""")


@pytest.mark.parametrize("kill_after", [1, 9])
def test_sigkill_midway_then_resume_loses_and_repeats_nothing(tmp_path, kill_after):
    out = tmp_path / "r"
    script = tmp_path / "slow_eval.py"
    script.write_text(KILL_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, str(script), str(out)], env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    db = out / "results.sqlite"
    seen = 0
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if db.exists():
                try:
                    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as c:
                        seen = c.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
                except sqlite3.Error:
                    seen = 0
                if seen >= kill_after:
                    break
            time.sleep(0.005)
        assert proc.poll() is None, "the eval finished before it could be killed: " + proc.stderr.read().decode()
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert 1 <= seen < 48

    tasks = [Task(f"T{i}", f"G{i % 2}", "x", {"a": 1}, 10, suite="kill") for i in range(6)]
    resumed = Fake()

    async def fast(task, settings, *, llm=None):
        resumed.calls.append((task.id, settings.seed))
        return {
            "task": task.id,
            "success": True,
            "env_steps": 1,
            "rounds": 0,
            "llm_calls": 0,
            "tokens_in": 1,
            "tokens_out": 1,
            "wall_s": 0.0,
            "plans": [],
            "final_inventory": {},
            "failure_reason": None,
            "phase": "resume",
        }

    s = run_eval(tasks, RunSettings(), episodes=8, out_dir=out, workers=2, progress=False, resume=True, episode_fn=fast)
    with ResultStore(db) as st:
        rows = st.rows()
    keys = [(r["task_id"], r["episode"]) for r in rows]
    expected = {(t.id, e) for t in tasks for e in range(8)}
    assert len(keys) == len(set(keys)) == 48 and set(keys) == expected
    first = [r for r in rows if r["phase"] == "first"]
    assert len(first) >= seen  # what was stored before the kill was kept, not re-run
    assert len(resumed.calls) == 48 - len(first)
    assert not (
        {(r["task_id"], r["episode"]) for r in first} & {(t, s_ - episode_seed(0, t, 0)) for t, s_ in resumed.calls}
    )
    lines = jsonl_lines(out)
    assert sorted((r["task_id"], r["episode"]) for r in lines) == sorted(expected)
    assert s["n"] == 48 and s["success_rate"] == 1.0


# ----------------------------------------------------------------------------- reports
def test_report_md_has_table_and_published_only_when_suite_matches(tmp_path):
    out = tmp_path / "r"
    run(make_tasks("deps71"), out, episode_fn=Fake())
    md = (out / "report.md").read_text()
    assert "| Method | MT1 | MT2 | AVG |" in md
    assert "**ours: deps (textworld, local)**" in md
    assert "published (DEPS Table 2, MineDojo, Codex): DEPS ◀ | 79.77 ± 8.5 | 79.46 ± 10.6 |" in md
    assert "## Per task" in md and "| MT1 | A1 | planks ×1 | 2 | 100.0 |" in md
    assert (out / "success_by_group.png").stat().st_size > 1000 and "![success per group]" in md
    # another suite: no published rows
    other = tmp_path / "o"
    run(make_tasks("mysuite"), other, episode_fn=Fake())
    assert "published (" not in (other / "report.md").read_text()


def test_published_table21_reproduces_table2():
    """published.yaml's per-task DEPS/DEP figures (Table 21) give Table 2's group means and stds."""
    tables = {t["id"]: t for t in report_mod.load_published()}
    t2 = {r["method"]: r for r in tables["deps-table2"]["rows"]}
    t21 = tables["deps-table21"]["tasks"]
    assert len(t21) == 69
    for method in ("DEPS", "DEP"):
        for g, (mean, std) in t2[method]["values"].items():
            vals = [v[method] for v in t21.values() if v["group"] == g]
            assert statistics.mean(vals) == pytest.approx(mean, abs=0.06)
            if len(vals) > 1:
                assert statistics.stdev(vals) == pytest.approx(std, abs=0.06)
    for t in tables.values():
        assert t.get("source") and t.get("use")


def test_compare_and_compare_command(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    run(make_tasks("deps71"), a, episode_fn=Fake())
    run(make_tasks("deps71"), b, RunSettings(planner="dep"), episode_fn=Fake())
    md = report_mod.compare([a, b], tmp_path / "c.png")
    assert "**planner=deps**" in md and "**planner=dep**" in md and "published (DEPS Table 2" in md
    assert (tmp_path / "c.png").exists()
    so, se = io.StringIO(), io.StringIO()
    assert compare_command([str(a), str(b)], str(tmp_path / "cmp"), json_out=True, stdout=so, stderr=se) == 0
    data = json.loads(so.getvalue().strip().splitlines()[-1])
    assert [r["planner"] for r in data["runs"]] == ["deps", "dep"]
    assert (tmp_path / "cmp" / "compare.md").exists() and (tmp_path / "cmp" / "compare.png").exists()
    se = io.StringIO()
    assert compare_command([str(tmp_path / "nope")], stdout=io.StringIO(), stderr=se) != 0
    assert len(se.getvalue().strip().splitlines()) == 1 and "summary.json" in se.getvalue()


def test_sweep_max_rounds(tmp_path):
    out = tmp_path / "sw"
    calls = Fake()
    res = run_sweep(
        "max-rounds",
        ["0", "1", "inf"],
        make_tasks("deps71"),
        RunSettings(),
        episodes=1,
        out_dir=out,
        episode_fn=calls,
        progress=False,
    )
    assert res["sweep"] == "max_rounds" and res["values"] == ["0", "1", "inf"]
    for v in ("0", "1", "inf"):
        assert (out / f"max-rounds={v}" / "summary.json").exists()
        assert json.loads((out / f"max-rounds={v}" / "run.json").read_text())["settings"]["max_rounds"] in (
            0,
            1,
            1_000_000,
        )
    md = (out / "report.md").read_text()
    assert "| max-rounds | MT1 | MT2 | AVG |" in md and "DEPS Table 4" in md
    assert (out / "sweep.png").exists() and len(jsonl_lines(out)) == 15 and len(calls.calls) == 15
    assert parse_sweep("selector=fixed,random") == ("selector", ["fixed", "random"])
    with pytest.raises(EvalError):
        parse_sweep("colour=red")


# ----------------------------------------------------------------------------- CLI function
def _cli(tmp_path, **kw):
    so, se = io.StringIO(), io.StringIO()
    args = dict(
        suite="fake",
        out=str(tmp_path / "o"),
        settings=RunSettings(),
        episodes=1,
        loader=fake_loader,
        episode_fn=Fake(),
        progress=False,
        stdout=so,
        stderr=se,
    )
    args.update(kw)
    rc = eval_command(**args)
    return rc, so.getvalue(), se.getvalue()


def test_eval_command_json_is_last_stdout_line(tmp_path):
    rc, out, err = _cli(tmp_path, json_out=True, tasks="MT2,a1", episodes=2)
    assert rc == 0, err
    s = json.loads(out.strip().splitlines()[-1])
    assert EVAL_KEYS <= set(s) and set(s["groups"]) == {"MT1", "MT2"}
    assert s["groups"]["MT1"]["n"] == 2 and s["groups"]["MT2"]["n"] == 4
    for d in ("summary.json", "report.md", "episodes.jsonl"):
        assert (tmp_path / "o" / d).exists()


@pytest.mark.parametrize(
    "kw, words",
    [
        (dict(suite="nosuch"), ["unknown suite", "accepted"]),
        (dict(tasks="MT9,Zed"), ["'MT9'", "'Zed'", "MT1, MT2"]),
        (dict(tasks=" , "), ["--tasks"]),
        (dict(episodes=0), ["--episodes"]),
        (dict(workers=0), ["--workers"]),
        (dict(backend="spark"), ["--backend", "local, ray"]),
        (dict(settings=RunSettings(planner="gpt9")), ["planner", "accepted"]),
        (dict(sweep="max-rounds=1,x"), ["max-rounds", "whole numbers"]),
        (dict(out=""), ["--out"]),
    ],
)
def test_eval_command_bad_input_is_one_line(tmp_path, kw, words):
    rc, out, err = _cli(tmp_path, **kw)
    assert rc != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for w in words:
        assert w in lines[0]


def test_eval_command_refuses_rerun_and_resumes(tmp_path):
    assert _cli(tmp_path)[0] == 0
    rc, _, err = _cli(tmp_path)
    assert rc != 0 and "--resume" in err and len(err.strip().splitlines()) == 1
    assert _cli(tmp_path, resume=True, episodes=2)[0] == 0
    rc, _, err = _cli(tmp_path, resume=True, settings=RunSettings(seed=5))
    assert rc != 0 and "different settings" in err and "seed" in err


def test_eval_command_reports_episode_errors(tmp_path):
    rc, _, err = _cli(tmp_path, episode_fn=Fake(fail={"B2"}))
    assert rc == 1 and "B2" in err and "--resume" in err and len(err.strip().splitlines()) == 1


def test_select_tasks():
    tasks = make_tasks()
    assert [t.id for t in select_tasks(tasks, "b1,MT1")] == ["A1", "A2", "A3", "B1"]
    assert select_tasks(tasks, None) == tasks


def test_holdout_leaves_out_every_task_that_shares_a_held_out_item():
    from evaluation.cli_eval import held_in
    from worlds.tasks import load_suite

    deps71 = load_suite("deps71")
    kept = held_in(deps71, "plan4mc:iron")
    gone = {t.id for t in deps71} - {t.id for t in kept}
    # plan4mc's iron group makes iron ingots, buckets, shears, iron tools...: deps71's tasks for them go
    assert {"CraftIronPickaxe", "CraftBucket", "CraftShears"} <= gone and "CraftWoodenPickaxe" not in gone
    iron_items = {i for t in load_suite("plan4mc") if t.group == "iron" for i in t.target}
    assert all(not set(t.target) & iron_items for t in kept) and all(
        set(t.target) & iron_items for t in deps71 if t.id in gone
    )
    assert held_in(deps71, None) == deps71 == held_in(deps71, "none")
    for bad, why in (
        ("plan4mc:no_such_group", "names no task"),
        ("nosuite:iron", "unknown suite"),
        ("plan4mc:log,stone,mob,iron", "leaves none"),
    ):
        with pytest.raises(EvalError, match=why):
            held_in(load_suite("plan4mc"), bad)


# ----------------------------------------------------------------------------- ray
def test_ray_backend_missing_says_pip_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(EvalError) as e:
        run(make_tasks(), tmp_path / "r", episode_fn=Fake(), backend="ray")
    assert "pip install ray" in str(e.value)
    rc, _, err = _cli(tmp_path, backend="ray")
    assert rc != 0 and "pip install ray" in err and len(err.strip().splitlines()) == 1


def _ray_fake():
    async def fake(task, settings, *, llm=None):  # defined in a function: pickled by value for Ray workers
        import os as _os

        return {
            "task": task.id,
            "success": True,
            "env_steps": 1,
            "rounds": 0,
            "llm_calls": 0,
            "tokens_in": 1,
            "tokens_out": 2,
            "wall_s": 0.0,
            "plans": [],
            "final_inventory": {},
            "failure_reason": None,
            "pid": _os.getpid(),
            "seed": settings.seed,
        }

    return fake


def test_ray_backend_local_instance(tmp_path):
    pytest.importorskip("ray")
    out = tmp_path / "r"
    tasks = make_tasks()[:3]
    s = run_eval(
        tasks, RunSettings(), episodes=2, out_dir=out, workers=2, backend="ray", episode_fn=_ray_fake(), progress=False
    )
    assert s["n"] == 6 and s["success_rate"] == 1.0 and s["tokens_out"] == 12
    rows = jsonl_lines(out)
    assert {r["pid"] for r in rows} != {os.getpid()}  # ran in Ray worker processes
    assert all(r["seed"] == episode_seed(0, r["task_id"], r["episode"]) for r in rows)
