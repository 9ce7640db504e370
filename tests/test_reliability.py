"""Reliability against a faulty LLM and against secrets leaking (issue 9, items 1-4 and 14).

The LLM is a real OpenAI-compatible HTTP server on loopback (experiments/fault_drill.py's
replay server) that always answers with a correct stone-sword plan; faults are injected at the wire by the project's own
injector (--llm-faults), so the real OpenAI client, our retry layer and the runner meet
exactly what a failing server sends."""

from __future__ import annotations

import base64
import json

import pytest

from agent.cli import main
from agent.llm import LLMError, open_chat_model, parse_llm_spec
from agent.llm.faults import KINDS, FaultSpec, FaultSpecError
from evaluation.runner import run_eval
from experiments.fault_drill import ReplayLLM as _LLM
from experiments.fault_drill import serve
from nodes.ask import LLMCallFailed
from nodes.settings import RunSettings, redact_llm
from tests.test_graph import STONE_SWORD

USER, PASSWORD, PATH_TOKEN = "alice", "pw-s3cret-Zq9", "tok_9f8e7d6c5b4a39281706abcd"
ENV_KEY = "sk-env-secret-0123456789abcdef"
FRAGMENT, QUERY_SECRET = "replayFragSecretModel", "QueryS3cretValue"


@pytest.fixture
def server():
    _LLM.delay_s, _LLM.need_auth, _LLM.seen_auth = 0.0, None, []
    srv, url = serve()
    yield url
    srv.shutdown()


@pytest.fixture
def no_sleep(monkeypatch):
    """Backoff sleeps recorded, not slept (the retry layer's delays are checked, not timed)."""
    slept: list[float] = []
    monkeypatch.setattr("agent.llm.retry.time.sleep", slept.append)
    return slept


SWORD_START = {"planks": 10, "stick": 4}


def _settings(url: str, **kw) -> RunSettings:
    return RunSettings(planner="deps", llm=f"{url}/v1#replay", inventory=dict(SWORD_START), **kw)


@pytest.mark.parametrize("kind", KINDS)
def test_every_fault_kind_is_retried_then_reported_in_one_line(server, no_sleep, kind):
    with open_chat_model(f"{server}/v1#replay", faults=f"{kind}=1", retries=2, seed=1) as llm:
        with pytest.raises(LLMCallFailed) as err:
            llm.model.invoke("hello")
        stats = llm.stats()
    assert "\n" not in str(err.value) and "failed 3 time(s) in a row" in str(err.value)
    assert stats["retries"] == 2 and stats["failed"] == 1
    assert stats["faults"]["injected"] == {kind: 3}
    assert len(no_sleep) == 2


def test_transient_faults_are_survived_with_backoff_and_retry_after(server, no_sleep):
    with open_chat_model(
        f"{server}/v1#replay", faults="ratelimit=0.2,http500=0.2", retries=8, seed=7, backoff=0.5
    ) as llm:
        for _ in range(6):
            assert "stone_sword" in llm.model.invoke("plan").content
        stats = llm.stats()
    assert stats["failed"] == 0 and stats["retries"] > 0
    injected = stats["faults"]["injected"]
    assert sum(injected.values()) == stats["retries"]
    # a 429 carries Retry-After: 0 and is honoured as such; a 500 backs off (jittered, capped)
    assert no_sleep.count(0.0) >= injected.get("ratelimit", 0)
    assert all(0.0 <= d <= 0.5 * 2**8 for d in no_sleep)


def test_a_refused_request_is_not_retried(server, no_sleep):
    _LLM.need_auth = "Bearer right-key"
    with open_chat_model(f"{server}/v1#replay", check=False, retries=5) as llm:
        with pytest.raises(LLMCallFailed, match="refused the request: HTTP 401"):
            llm.model.invoke("x")
        assert llm.stats()["retries"] == 0 and no_sleep == []


def test_a_server_that_never_answers_fails_within_the_timeout(server):
    _LLM.delay_s = 3.0
    with open_chat_model(f"{server}/v1#replay", timeout=0.2, retries=1, backoff=0.01) as llm:
        with pytest.raises(LLMCallFailed, match="Timeout"):
            llm.model.invoke("x")


def test_eval_under_faults_stores_every_episode_with_its_reason(server, no_sleep, tmp_path):
    episodes = 6
    summary = run_eval(
        [STONE_SWORD],
        _settings(server, llm_faults="timeout=0.1,http500=0.1,ratelimit=0.1,garbage=0.05,empty=0.05", llm_retries=0),
        episodes=episodes,
        out_dir=tmp_path / "out",
        progress=False,
    )
    assert summary["n"] == episodes and summary["missing"] == 0 and summary["errors"] == []
    rows = [json.loads(line) for line in (tmp_path / "out" / "episodes.jsonl").read_text().splitlines()]
    assert len(rows) == episodes
    failed = [r for r in rows if not r["success"]]
    assert all(r["failure_reason"] for r in failed)
    assert summary["llm_failures"] == sum(1 for r in rows if r["llm_failed"])
    assert summary["llm_failures"] > 0  # 40% faults and no retries: some episodes end on a fault
    assert all(r["failure_reason"].startswith("LLM call failed") for r in rows if r["llm_failed"])
    assert summary["successes"] == episodes - summary["llm_failures"]


def test_with_retries_the_same_faults_lose_nothing(server, no_sleep, tmp_path):
    summary = run_eval(
        [STONE_SWORD],
        _settings(server, llm_faults="timeout=0.1,http500=0.1,ratelimit=0.1,garbage=0.05,empty=0.05", llm_retries=6),
        episodes=4,
        out_dir=tmp_path / "out",
        progress=False,
    )
    assert summary["successes"] == 4 and summary["llm_failures"] == 0


def test_cli_run_ends_a_faulty_llm_with_one_line_and_exit_1(server, no_sleep, capsys):
    rc = main(
        [
            "run",
            "CraftStoneSword",
            "--llm",
            f"{server}/v1#replay",
            "--inventory",
            json.dumps(SWORD_START),
            "--llm-faults",
            "garbage=1",
            "--llm-retries",
            "1",
            "--quiet",
            "--json",
        ]
    )
    out, err = capsys.readouterr()
    assert rc == 1 and "Traceback" not in err
    result = json.loads(out.strip().splitlines()[-1])
    assert not result["success"] and result["llm_failed"]
    assert result["failure_reason"].startswith("LLM call failed")


@pytest.mark.parametrize("bad", ["timeout", "timeout=2", "boom=0.1", "timeout=0.7,http500=0.7", "http500=x"])
def test_bad_fault_specs_are_refused(bad):
    with pytest.raises(FaultSpecError):
        FaultSpec.parse(bad)
    assert main(["run", "CraftPlanks", "--planner", "oracle", "--llm-faults", bad]) == 2


@pytest.mark.parametrize("flags", [["--llm-timeout", "0"], ["--llm-retries", "-1"], ["--llm-retries", "99"]])
def test_bad_timeout_and_retry_flags_are_refused(flags, capsys):
    assert main(["run", "CraftPlanks", "--planner", "oracle", *flags]) == 2
    assert capsys.readouterr().err.count("\n") == 1


# ------------------------------------------------------------------ secrets


def _everything(roots, streams) -> list[str]:
    """Every stream, and every file's name and bytes (databases included) under `roots`."""
    texts = list(streams)
    for root in roots:
        for f in root.rglob("*"):
            texts.append(str(f))  # folder and file names too
            if f.is_file():
                texts.append(f.read_bytes().decode("utf-8", "replace"))
    return texts


def test_credentials_anywhere_in_the_url_are_never_written_or_shown(server, monkeypatch, tmp_path, capsys):
    """User info, path, fragment (the model) and query of an --llm URL, and the key in the
    environment: run, eval --collect, a sweep, trace show|html and replay find none of them in
    any file, page, database or stream (issue 22)."""
    monkeypatch.setenv("DEPS_LLM_API_KEY", ENV_KEY)
    host = server.removeprefix("http://")
    url = f"http://{USER}:{PASSWORD}@{host}/{PATH_TOKEN}/v1#{FRAGMENT}"
    _LLM.need_auth = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    inv = ["--inventory", json.dumps(SWORD_START)]

    trace = tmp_path / "trace"
    rc = main(["run", "CraftStoneSword", "--llm", url, *inv, "--trace-dir", str(trace), "--json"])
    out_run, err_run = capsys.readouterr()
    assert rc == 0 and json.loads(out_run.strip().splitlines()[-1])["success"]  # the credentials worked
    assert _LLM.seen_auth and all(a == _LLM.need_auth for a in _LLM.seen_auth)
    thread = json.loads(out_run.strip().splitlines()[-1])["thread"]

    out, collected = tmp_path / "eval", tmp_path / "collected"
    argv = [
        "eval",
        "--suite",
        "deps71",
        "--tasks",
        "CraftStoneSword",
        "--llm",
        url,
        "--episodes",
        "1",
        *inv,
        "--out",
        str(out),
        "--trace-dir",
        str(trace),
        "--collect",
        str(collected),
        "--planner",
        "rider",
        "--json",
    ]
    monkeypatch.setattr("sys.argv", ["deps", *argv])  # the card keeps the command line
    rc = main(argv)
    out_eval, err_eval = capsys.readouterr()
    assert rc == 0 and (collected / "card.json").is_file()
    sweep = tmp_path / "sweep"
    rc = main(
        [
            "eval",
            "--suite",
            "deps71",
            "--tasks",
            "CraftStoneSword",
            "--episodes",
            "1",
            "--out",
            str(sweep),
            *inv,
            "--sweep",
            f"llm={url}",
        ]
    )
    out_sweep, err_sweep = capsys.readouterr()
    assert rc == 0

    assert main(["trace", "show", str(trace), "--thread", thread]) == 0
    page = tmp_path / "page.html"
    assert main(["trace", "html", str(trace), "--thread", thread, "-o", str(page)]) == 0
    out_trace, err_trace = capsys.readouterr()
    assert main(["replay", thread, "--from", "0", "--trace-dir", str(trace)]) == 2  # the URL is never read back
    out_refused, err_refused = capsys.readouterr()
    assert "--llm" in err_refused and len(err_refused.strip().splitlines()) == 1
    assert main(["replay", thread, "--from", "1", "--trace-dir", str(trace), "--llm", url, "--quiet"]) == 0
    out_replay, err_replay = capsys.readouterr()
    assert main(["run", "--resume", thread, "--trace-dir", str(trace)]) == 2
    out_resume, err_resume = capsys.readouterr()
    assert main(["run", "CraftStoneSword", "--llm", f"http://{host}/v1?key={QUERY_SECRET}#m"]) == 2  # refused
    out_query, err_query = capsys.readouterr()
    assert "query" in err_query

    texts = _everything(
        (trace, out, sweep, collected, page),
        [
            out_run,
            err_run,
            out_eval,
            err_eval,
            out_sweep,
            err_sweep,
            out_trace,
            err_trace,
            out_refused,
            err_refused,
            out_replay,
            err_replay,
            out_resume,
            err_resume,
            out_query,
            err_query,
        ],
    )
    assert (trace / "checkpoints.sqlite").is_file() and len(texts) > 20
    for secret in (PASSWORD, PATH_TOKEN, ENV_KEY, FRAGMENT, QUERY_SECRET, f"{USER}:"):
        assert not [t[:80] for t in texts if secret in t], secret
    shown = redact_llm(url)
    assert shown == f"http://{host}~" + shown.rsplit("~", 1)[1] and any(shown in t for t in texts)


def test_a_key_file_is_read_and_never_shown(server, monkeypatch, tmp_path):
    key_file = tmp_path / "key"
    key_file.write_text(ENV_KEY + "\n")
    monkeypatch.delenv("DEPS_LLM_API_KEY", raising=False)
    monkeypatch.setenv("DEPS_LLM_API_KEY_FILE", str(key_file))
    _LLM.need_auth = f"Bearer {ENV_KEY}"
    with open_chat_model(f"{server}/v1#replay") as llm:
        assert "stone_sword" in llm.model.invoke("x").content
        assert ENV_KEY not in llm.name


@pytest.mark.parametrize(
    "spec",
    [
        f"http://{USER}:{PASSWORD}@example.org/v1#m",
        f"https://example.org/{PATH_TOKEN}/v1",
        f"https://example.org/v1?key={PASSWORD}",
        f"http://{USER}:{PASSWORD}@[::1/v1",
    ],
)
def test_redaction_hides_every_credential_form(spec):
    shown = redact_llm(spec)
    assert PASSWORD not in shown and PATH_TOKEN not in shown and f"{USER}:" not in shown
    try:
        parse_llm_spec(spec)
    except LLMError as e:
        assert PASSWORD not in str(e)


def test_settings_are_stored_redacted():
    s = RunSettings(llm=f"http://{USER}:{PASSWORD}@example.org:8080/v1#m")
    stored = s.to_dict()["llm"]
    assert stored.startswith("http://example.org:8080~") and len(stored) == len("http://example.org:8080~") + 8
    assert RunSettings(llm="http://example.org:8080/v1#n").to_dict()["llm"] != stored  # endpoints told apart
    assert redact_llm("http://other:pw@example.org:8080/v1#m") == stored  # user info is no part
