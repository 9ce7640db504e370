"""Hostile input and faults (issue 22): planted links, corrupt or foreign checkpoint databases,
crafted traces, outputs that cannot be written. Each ends in one line and a non-zero exit, or a
correct answer; nothing is written through a link. Episodes use the oracle planner (no LLM)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agent.cli import main

TASK = "CraftWoodenPickaxe"
ORACLE = ["--planner", "oracle", "--quiet"]
EVAL = ["--planner", "oracle"]


def _one_line(err: str) -> str:
    lines = [x for x in err.strip().splitlines() if "error" in x]
    assert len(lines) == 1 and "Traceback" not in err and "unexpected" not in err, err
    return lines[0]


@pytest.fixture(scope="module")
def traced(tmp_path_factory) -> tuple[Path, str]:
    """A real traced oracle run: its folder and thread."""
    d = tmp_path_factory.mktemp("traced")
    from agent.runner import resolve_task, run_episode
    from nodes.settings import RunSettings
    from worlds.knowledge import load_kb

    settings = RunSettings(planner="oracle", trace_dir=str(d))
    result = run_episode(resolve_task(TASK, load_kb("1.11.2")), settings)
    assert result["success"]
    return d, result["thread"]


# ------------------------------------------------------------------ the checkpoint database
@pytest.mark.parametrize("kind", ["corrupt", "foreign", "fifo", "db-link", "trace-link"])
def test_a_bad_trace_folder_is_one_line_and_nothing_is_written_through_it(tmp_path, capsys, kind):
    t, victim = tmp_path / "t", tmp_path / "victim"
    t.mkdir()
    victim.write_text("keep")
    db = t / "checkpoints.sqlite"
    if kind == "corrupt":
        db.write_bytes(b"not a database" * 100)
    elif kind == "foreign":
        with sqlite3.connect(db) as c:
            c.execute("create table accounts(name)")
    elif kind == "fifo":
        os.mkfifo(db)
    elif kind == "db-link":
        db.symlink_to(victim)
    else:
        (t / "trace.jsonl").symlink_to(victim)
    assert main(["run", TASK, *ORACLE, "--trace-dir", str(t)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "checkpoints.sqlite" in line or "trace.jsonl" in line
    assert victim.read_text() == "keep"
    if kind == "foreign":
        with sqlite3.connect(db) as c:  # another program's database is never written into
            assert [r[0] for r in c.execute("select name from sqlite_master")] == ["accounts"]


def test_resume_and_replay_over_a_corrupt_database_are_one_line(traced, tmp_path, capsys):
    src, thread = traced
    t = tmp_path / "copy"
    t.mkdir()
    (t / "trace.jsonl").write_bytes((src / "trace.jsonl").read_bytes())
    (t / "checkpoints.sqlite").write_bytes(b"\0garbage" * 512)
    assert main(["run", "--resume", thread, "--trace-dir", str(t), "--quiet"]) == 2
    assert "not a deps checkpoint database" in _one_line(capsys.readouterr().err)
    assert main(["replay", thread, "--from", "1", "--trace-dir", str(t), "--quiet"]) == 2
    assert "not a deps checkpoint database" in _one_line(capsys.readouterr().err)


# ------------------------------------------------------------------ the trace page and timeline
def test_the_trace_page_never_writes_through_a_link_at_its_temporary_file(traced, tmp_path, capsys):
    src, thread = traced
    victim, page = tmp_path / "victim", tmp_path / "page.html"
    victim.write_text("keep")
    Path(str(page) + ".tmp").symlink_to(victim)
    assert main(["trace", "html", str(src), "-o", str(page)]) == 0
    assert victim.read_text() == "keep" and "<!doctype html>" in page.read_text()
    assert not Path(str(page) + ".tmp").exists()


@pytest.mark.parametrize("where", ["folder", "under-a-file", "proc"])
def test_a_page_that_cannot_be_written_is_one_line(traced, tmp_path, capsys, where):
    src, _ = traced
    (tmp_path / "file").write_text("x")
    out = {
        "folder": str(tmp_path),
        "under-a-file": str(tmp_path / "file" / "page.html"),
        "proc": "/proc/deps-page.html",
    }[where]
    assert main(["trace", "html", str(src), "-o", out]) == 2
    assert "page" in _one_line(capsys.readouterr().err)


HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def _crafted(d: Path) -> None:
    """A trace another program wrote: markup in every field, wrong types, lines that are not objects."""
    start = {
        "t": 0,
        "thread": "x",
        "event": "start",
        "task": {"id": HOSTILE, "instruction": HOSTILE, "inventory": {HOSTILE: "3"}},
        "settings": {"planner": HOSTILE, "world": HOSTILE, "llm": HOSTILE, "seed": HOSTILE, "inventory": [HOSTILE]},
    }
    lines = [
        json.dumps(x)
        for x in (
            [1, 2],
            "a string",
            None,
            7,
            start,
            {"t": "soon", "thread": "x", "event": "update", "node": "plan", "update": {"plans": [HOSTILE]}},
            {"t": 1, "thread": "x", "event": "update", "node": HOSTILE, "update": {"a": HOSTILE}},
            {
                "t": 1,
                "thread": "x",
                "event": "update",
                "node": "execute",
                "update": {"outcomes": HOSTILE, "env_steps": HOSTILE, "inventory": {HOSTILE: HOSTILE}},
            },
            {"t": 2, "thread": "x", "event": "update", "node": "plan", "update": {"plans": [HOSTILE + "\n2"]}},
            {"t": 2, "thread": "x", "event": "update", "node": "describe", "update": {"descriptions": HOSTILE}},
            {
                "t": 3,
                "thread": "x",
                "event": "llm",
                "prompt": [{"role": HOSTILE, "content": HOSTILE}, "x"],
                "reply": HOSTILE,
                "tokens_in": HOSTILE,
                "tokens_out": [1],
                "seconds": "12.5",
            },
            {
                "t": 4,
                "thread": "x",
                "event": "end",
                "result": {"success": False, "failure_reason": HOSTILE, "env_steps": HOSTILE, "rounds": HOSTILE},
            },
        )
    ] + ["{not json", "[" * 100_000]
    (d / "trace.jsonl").write_text("\n".join(lines) + "\n")


def test_a_crafted_trace_is_shown_and_its_page_runs_no_script(tmp_path, capsys):
    _crafted(tmp_path)
    assert main(["trace", "show", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "alert(1)" in out  # shown as text
    page = tmp_path / "page.html"
    assert main(["trace", "html", str(tmp_path), "-o", str(page)]) == 0
    text = page.read_text()
    assert "alert(1)" in text and "<script" not in text.lower() and "<img" not in text.lower()


def test_one_huge_trace_line_is_skipped_in_bounded_pieces(traced, tmp_path, monkeypatch, capsys):
    import agent.trace

    src, _ = traced
    monkeypatch.setattr(agent.trace, "MAX_LINE_BYTES", 1000)  # the bound, made small
    lines = (src / "trace.jsonl").read_text().splitlines()
    (tmp_path / "trace.jsonl").write_text("\n".join([lines[0], '{"x": "' + "y" * 5000 + '"}', *lines[1:]]) + "\n")
    assert list(agent.trace.read_trace(tmp_path))[0]["event"] == "start"
    assert all(len(json.dumps(x)) < 5000 for x in agent.trace.read_trace(tmp_path))


# ------------------------------------------------------------------ eval outputs
@pytest.fixture(scope="module")
def evaluated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("eval") / "run"
    assert main(["eval", "--suite", "deps71", "--tasks", TASK, "--out", str(out), *EVAL]) == 0
    return out


def test_compare_never_writes_its_table_or_plot_through_links(evaluated, tmp_path, capsys):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    dest = tmp_path / "cmp"
    dest.mkdir()
    (dest / "compare.md").symlink_to(victim)
    (dest / "compare.png").symlink_to(victim)
    assert main(["compare", str(evaluated), "--out", str(dest)]) == 0
    assert victim.read_text() == "keep"
    assert not (dest / "compare.md").is_symlink() and "Comparison" in (dest / "compare.md").read_text()


def test_a_sweep_subfolder_that_is_a_link_is_refused(tmp_path, capsys):
    elsewhere, out = tmp_path / "elsewhere", tmp_path / "sweep"
    elsewhere.mkdir()
    out.mkdir()
    (out / "max-rounds=0").symlink_to(elsewhere, target_is_directory=True)
    assert (
        main(["eval", "--suite", "deps71", "--tasks", TASK, "--out", str(out), *EVAL, "--sweep", "max-rounds=0,1"]) == 2
    )
    assert "symbolic link" in _one_line(capsys.readouterr().err)
    assert list(elsewhere.iterdir()) == []


def test_a_per_episode_trace_folder_that_is_a_link_is_refused(tmp_path, capsys):
    elsewhere, traces = tmp_path / "elsewhere", tmp_path / "traces"
    elsewhere.mkdir()
    traces.mkdir()
    (traces / f"{TASK}-e0").symlink_to(elsewhere, target_is_directory=True)
    rc = main(
        [
            "eval",
            "--suite",
            "deps71",
            "--tasks",
            TASK,
            "--out",
            str(tmp_path / "out"),
            *EVAL,
            "--trace-dir",
            str(traces),
        ]
    )
    assert rc == 2 and "symbolic link" in _one_line(capsys.readouterr().err)
    assert list(elsewhere.iterdir()) == []


# ------------------------------------------------------------------ standard output
def test_stdout_on_a_full_device_is_one_line():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        p = subprocess.run(
            [sys.executable, "-m", "agent.cli", "tasks"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120
        )
    assert p.returncode == 1 and "No space left" in _one_line(p.stderr)


# ------------------------------------------------------------------ suites and reports
_TASK = {"id": "X", "group": "g", "instruction": "make planks", "target": {"planks": 1}, "max_steps": 100}


@pytest.mark.parametrize(
    "name, text, says",
    [
        ("deep.json", "[" * 5000 + "]" * 5000, "nested"),
        ("deep.yaml", "[" * 5000 + "]" * 5000, "nested"),
        ("block.yaml", "- " * 3000 + "x", "nested"),
        ("inner.json", json.dumps([{**_TASK, "notes": json.loads("[" * 100 + "]" * 100)}]), "nested"),
        ("conditions.json", json.dumps([{**_TASK, "find": "a village", "conditions": "night"}]), "conditions"),
        ("target.json", json.dumps([{**_TASK, "target": {"planks": 10**12}}]), "100000"),
        ("inventory.json", json.dumps([{**_TASK, "inventory": {"planks": 10**30}}]), "1000000"),
        ("steps.json", json.dumps([{**_TASK, "max_steps": 10**15}]), "max_steps"),
    ],
)
def test_a_hostile_suite_is_one_line(tmp_path, capsys, name, text, says):
    (tmp_path / name).write_text(text)
    assert main(["tasks", "--suite", str(tmp_path / name)]) == 2
    assert says in _one_line(capsys.readouterr().err)
    out = tmp_path / "out"
    assert main(["eval", "--suite", str(tmp_path / name), "--out", str(out), *EVAL]) == 2
    assert says in _one_line(capsys.readouterr().err)


def test_report_md_drops_nul_and_bidi_controls_from_task_ids(tmp_path, capsys):
    evil = "Craft\x00Evil\u202eTxet\u2066Pick"
    suite = tmp_path / "evil.json"
    suite.write_text(json.dumps([{**_TASK, "id": evil, "target": {"wooden_pickaxe": 1}, "max_steps": 3000}]))
    out = tmp_path / "out"
    main(["eval", "--suite", str(suite), "--out", str(out), *EVAL])
    capsys.readouterr()
    from evaluation.report.tables import md_cell

    assert md_cell(evil) == "CraftEvilTxetPick"
    report = (out / "report.md").read_text()
    for ch in ("\x00", "\u202e", "\u2066"):
        assert ch not in report


# ------------------------------------------------------------------ training flags
@pytest.mark.parametrize(
    "args, says",
    [
        (["selector", "--out", "{o}", "--steps", "1000000000000"], "--steps"),
        (["controller", "--out", "{o}", "--threads", "1000000"], "--threads"),
        (["controller", "--out", "{o}", "--batch-size", "1000000000"], "--batch-size"),
        (["llm", "--data", "{o}", "--out", "{o}", "--lr", "inf"], "--lr"),
        (["llm", "--data", "{o}", "--out", "{o}", "--alpha", "nan"], "--alpha"),
        (["llm", "--data", "{o}", "--out", "{o}", "--batch-size", "1000000000"], "--batch-size"),
        (["llm-data", "--out", "{o}", "--augment", "1000000000"], "--augment"),
        (["llm-data", "--out", "{o}", "--replans", "1000000000"], "--replans"),
    ],
)
def test_training_counts_and_rates_are_bounded(tmp_path, capsys, args, says):
    out = tmp_path / "out"
    assert main(["train", *[a.replace("{o}", str(out)) for a in args]]) == 2
    assert says in _one_line(capsys.readouterr().err)
    assert not out.exists()  # refused before anything was written


def test_lora_rates_must_be_finite_numbers_in_range():
    """--lr inf or nan would train an adapter of non-finite weights (training/lora.py check_config)."""
    import math

    from training.lora import LoraTrainConfig, TrainError, check_config

    for bad in (math.inf, math.nan, -1.0, 0.0):
        with pytest.raises(TrainError):
            check_config(LoraTrainConfig(data="d", out="o", lr=bad))
    check_config(LoraTrainConfig(data="d", out="o"))


# ------------------------------------------------------------------ bounds on counts and reads
def test_compare_refuses_a_summary_with_too_many_groups(evaluated, tmp_path, capsys):
    big = tmp_path / "big"
    big.mkdir()
    summary = json.loads((evaluated / "summary.json").read_text())
    summary["groups"] = {f"g{i}": {"success_rate": 1.0, "n": 1} for i in range(200_000)}
    (big / "summary.json").write_text(json.dumps(summary))
    assert main(["compare", str(evaluated), str(big)]) == 2
    assert "at most" in _one_line(capsys.readouterr().err)


def test_replay_from_a_negative_step_is_one_line(traced, capsys):
    src, thread = traced
    assert main(["replay", thread, "--from", "-1", "--trace-dir", str(src), "--quiet"]) == 2
    assert "--from" in _one_line(capsys.readouterr().err)


def test_a_key_file_that_never_ends_is_refused(monkeypatch):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    from agent.llm import LLMError, open_chat_model

    monkeypatch.delenv("DEPS_LLM_API_KEY", raising=False)
    monkeypatch.setenv("DEPS_LLM_API_KEY_FILE", "/dev/zero")
    with pytest.raises(LLMError, match="does not hold one key"):
        with open_chat_model("http://127.0.0.1:9/v1#m", check=False):
            pass


@pytest.mark.parametrize("reply, says", [("", "empty"), ("   \n", "empty"), ("plan " * 400_000, "characters long")])
def test_an_empty_or_huge_http_200_reply_is_retried_then_one_line(monkeypatch, reply, says):
    """A 200 whose text is empty or megabytes long is not a plan: retried, then the call fails
    (bounded: nothing that size reaches the state, the trace or a checkpoint)."""
    from agent.llm import open_chat_model
    from experiments.fault_drill import ReplayLLM, serve
    from nodes.ask import LLMCallFailed

    monkeypatch.setattr("agent.llm.retry.time.sleep", lambda s: None)
    monkeypatch.setattr(ReplayLLM, "reply", reply)
    monkeypatch.setattr(ReplayLLM, "need_auth", None)
    srv, url = serve()
    try:
        with open_chat_model(f"{url}/v1#replay", retries=2, seed=1) as llm:
            with pytest.raises(LLMCallFailed, match=says) as err:
                llm.model.invoke("hello")
            assert llm.stats()["retries"] == 2 and "\n" not in str(err.value)
    finally:
        srv.shutdown()


# ------------------------------------------------------------------ the dialogue and the context
def _dialogue_of(n: int):
    from nodes.planners.base import PlanRequest
    from tests.test_graph import KB, STONE_SWORD

    plans = [f"mine({{'log':{r + 1}}}, null)\n" + "craft({'planks':4}, {'log':1}, null)\n" * 20 for r in range(n)]
    return PlanRequest(
        task=STONE_SWORD,
        inventory={},
        plans=plans,
        kb=KB,
        knowledge="none",
        descriptions=[f"I fail on step {r + 1}: round {r} went wrong. " * 5 for r in range(n)],
        explanations=[f"Because of round {r}. " * 5 for r in range(n)],
    )


def test_a_long_dialogue_is_cut_to_the_task_the_first_plan_the_last_rounds_and_a_summary():
    from nodes.planners.llm import DialoguePlanner

    n = 30
    req = _dialogue_of(n)
    plans = req.plans
    planner = DialoguePlanner(llm=None, output="text", history_chars=6000)
    kept, left_out = planner.window(req)
    assert kept[0] == 0 and kept[-1] == n - 1 and left_out and sorted(kept + left_out) == list(range(n))
    assert kept == [0, *range(kept[1], n)]  # the first, then the newest in a row
    msgs = planner.messages(req)
    text = "\n".join(m.content for m in msgs)
    assert "obtain" in text.lower() and plans[0] in text and plans[-1] in text  # task, first plan, last round
    assert f"Rounds 2 to {left_out[-1] + 1} are left out to fit the context" in text  # and a summary
    dialogue = sum(len(m.content) for m in msgs[len(msgs) - 2 * len(kept) :])
    assert dialogue < 6000 + 3000  # bounded: rounds plus their prompt words
    full = DialoguePlanner(llm=None, output="text", history_chars=10**9).messages(req)
    assert sum(len(m.content) for m in msgs) < sum(len(m.content) for m in full) / 3


@pytest.mark.parametrize(
    "says",
    [
        "This model's maximum context length is 4096 tokens. However, you requested 4696 tokens "
        "(4184 in the messages, 512 in the completion). Please reduce the length of the messages or completion.",
        "the request exceeds the available context size, try increasing it",  # llama.cpp's own server
    ],
)
def test_a_prompt_refused_as_longer_than_the_context_is_asked_again_with_fewer_rounds(monkeypatch, says):
    """Characters stand for tokens in the window, and plans in code take more tokens a
    character: a grid-world run of `deps run "obtain a compass" --planner deps` ended on its
    fourth round with "HTTP 400 ... maximum context length is 4096 tokens". Such a refusal now
    makes the planner leave out more rounds and ask again; only a prompt whose newest round
    alone is too long is refused, in one line."""
    from agent.llm import open_chat_model
    from experiments.fault_drill import ReplayLLM, serve
    from nodes.ask import ContextOverflow
    from nodes.planners.llm import DialoguePlanner

    class SmallContext(ReplayLLM):
        limit, sizes = 9000, []

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            size = sum(len(m.get("content") or "") for m in body["messages"])
            type(self).sizes.append(size)
            if size > self.limit:
                self._send(400, {"error": {"message": says, "type": "invalid_request_error", "code": 400}})
                return
            self.answer()

    monkeypatch.setattr(ReplayLLM, "need_auth", None)
    monkeypatch.setattr("agent.llm.retry.time.sleep", lambda s: None)
    srv, url = serve(SmallContext)
    try:
        req = _dialogue_of(30)
        with open_chat_model(f"{url}/v1#replay", retries=2) as llm:
            planner = DialoguePlanner(llm, output="text", history_chars=8000)
            result = planner.plan(req)
            assert "stone_sword" in result.text and llm.stats()["retries"] == 0
            first, last = SmallContext.sizes[0], SmallContext.sizes[-1]
            assert first > SmallContext.limit >= last and len(SmallContext.sizes) >= 2
            SmallContext.limit, SmallContext.sizes = 500, []  # not even the newest round fits
            with pytest.raises(ContextOverflow, match="refused the request: HTTP 400") as err:
                planner.plan(req)
            assert "\n" not in str(err.value) and len(SmallContext.sizes) >= 2
    finally:
        srv.shutdown()


# ------------------------------------------------------------------ checks that must not pass
def test_doctor_quick_fails_on_a_controller_checkpoint_that_is_not_one(monkeypatch):
    from agent.doctor import _checkpoint, run_checks

    monkeypatch.setenv("DEPS_CONTROLLER_CHECKPOINT", "/etc/passwd")
    with pytest.raises(RuntimeError, match="not a torch checkpoint"):
        _checkpoint("controller")()
    checks = {c["name"]: c for c in run_checks(load_models=False)}
    bad = checks["learned controller checkpoint"]
    assert not bad["ok"] and bad["required"]  # so deps doctor --quick exits 1


@pytest.mark.parametrize("bad", ["2-D index", "records not objects"])
def test_a_corrupt_mp5_memory_fails_the_open_check_in_one_line(tmp_path, bad):
    import faiss
    import numpy as np

    from nodes.planners.mp5.store import EMBEDDING, EMBEDDING_DIM, MemoryFolderError, VectorStore

    folder = tmp_path / "performer"
    folder.mkdir()
    dim = 2 if bad == "2-D index" else EMBEDDING_DIM
    index = faiss.IndexFlatIP(dim)
    index.add(np.ones((2, dim), dtype="float32"))
    faiss.write_index(index, str(folder / "index-2.faiss"))
    records = ['{"a": 1}', '{"b": 2}'] if bad == "2-D index" else ["[1, 2]", '"text"']
    (folder / "records-2.jsonl").write_text("\n".join(records) + "\n")
    (folder / "manifest.json").write_text(
        json.dumps(
            {
                "format": "deps-agent/mp5-memory",
                "version": 1,
                "kind": "performer",
                "embedding": EMBEDDING,
                "dim": dim,
                "count": 2,
                "index": "index-2.faiss",
                "records": "records-2.jsonl",
            }
        )
    )
    with pytest.raises(MemoryFolderError, match="is corrupt") as e:
        VectorStore(folder, "performer")
    assert "\n" not in str(e.value)


# ------------------------------------------------------------------ Ctrl-C
def test_ctrl_c_stops_an_eval_waiting_on_the_llm_within_seconds_and_keeps_what_finished(tmp_path):
    """The first episode is answered at once, the second waits on a slow LLM; SIGINT then stops
    the eval in seconds (not after the LLM's timeout), exit 130, with the first episode stored."""
    import signal
    import time

    from experiments.fault_drill import ReplayLLM, serve

    class SlowAfterFirst(ReplayLLM):
        posts = 0

        def do_POST(self) -> None:
            type(self).posts += 1
            self.delay_s = 0.0 if type(self).posts <= 1 else 120.0
            super().do_POST()

    SlowAfterFirst.need_auth, SlowAfterFirst.seen_auth = None, []
    srv, url = serve(SlowAfterFirst)
    out = tmp_path / "out"
    try:
        p = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "agent.cli",
                "eval",
                "--suite",
                "deps71",
                "--tasks",
                "CraftStoneSword,CraftWoodenPickaxe",
                "--llm",
                f"{url}/v1#replay",
                "--inventory",
                json.dumps({"planks": 10, "stick": 4}),
                "--max-rounds",
                "0",
                "--out",
                str(out),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        deadline = time.monotonic() + 120
        while SlowAfterFirst.posts < 2 and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.2)
        assert SlowAfterFirst.posts >= 2, p.communicate(timeout=30)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)  # seconds, where it used to wait out the LLM (minutes)
    finally:
        srv.shutdown()
    assert p.returncode == 130 and "interrupted" in err and "Traceback" not in err
    stored = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x.strip()]
    assert len(stored) == 1 and stored[0]["success"]  # the episode answered at once; the other never ended


# ------------------------------------------------------------------ no traceback, whatever the input
def test_the_cli_loaders_answer_arbitrary_files_without_a_traceback(tmp_path_factory):
    """Hypothesis writes arbitrary bytes (and JSON-ish text) as a suite file, a trace and an eval
    summary; `deps tasks`, `deps trace show|html` and `deps compare` answer each with a result or
    one line (exit 0 or 2), never a traceback or an 'unexpected' line."""
    import contextlib
    import io

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    json_ish = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
        max_leaves=12,
    )
    content = st.binary(max_size=300) | json_ish.map(lambda v: json.dumps(v).encode())

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        suite=content, trace=st.lists(content, max_size=5), summary=content, suffix=st.sampled_from([".json", ".yaml"])
    )
    def check(suite, trace, summary, suffix):
        d = tmp_path_factory.mktemp("fuzz")
        (d / f"suite{suffix}").write_bytes(suite)
        (d / "trace.jsonl").write_bytes(b"\n".join(trace))
        (d / "summary.json").write_bytes(summary)
        for argv in (
            ["tasks", "--suite", str(d / f"suite{suffix}")],
            ["trace", "show", str(d)],
            ["trace", "html", str(d), "-o", str(d / "page.html")],
            ["compare", str(d)],
        ):
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                rc = main(argv)
            assert rc in (0, 2), (argv, err.getvalue())
            # the CLI's catch-all says "(unexpected; run again with --debug ...)"; a decoder's own
            # words ("unexpected end of data") inside a clear one-line answer are fine
            assert "Traceback" not in err.getvalue() and "(unexpected;" not in err.getvalue(), err.getvalue()

    check()
