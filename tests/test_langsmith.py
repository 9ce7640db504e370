"""LangSmith as a feature: one well-named, tagged trace per episode with node, LLM and tool runs,
no secret in it, and no grammar riding along. The endpoints are fakes on loopback: a LangSmith
ingest endpoint that records what the real client posts, and an OpenAI-compatible server that
plays the paper's worked example (flawed plan, explanation, fixed plan)."""

from __future__ import annotations

import json
from email.parser import BytesParser
from email.policy import HTTP

import pytest

from agent.runner import run_episode
from experiments.fault_drill import ReplayLLM, serve
from nodes.settings import RunSettings, redact_llm
from tests.test_graph import EXPLANATION, FIXED, FLAWED, KB, STONE_SWORD

LS_KEY = "lsv2-secret-key-0123456789"
LLM_KEY = "sk-llm-secret-abcdefghijklmnop"


class _Fakes(ReplayLLM):
    """The replay LLM's HTTP plumbing; replies taken in turn, LangSmith's posts recorded."""

    posts: list[tuple[str, dict, bytes]] = []
    replies: list[str] = []

    def do_GET(self):
        if self.path.endswith("/v1/models"):
            return self._send(200, {"data": [{"id": "fake", "owned_by": "me"}]})  # llama.cpp-style: grammar on
        self._send(404, {})

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path.endswith("/v1/chat/completions"):
            text = type(self).replies.pop(0)
            return self._send(
                200,
                {
                    "id": "x",
                    "object": "chat.completion",
                    "model": "fake",
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
                },
            )
        type(self).posts.append((self.path, dict(self.headers), body))
        self._send(200, {})

    do_PATCH = do_POST


def _runs(posts) -> dict[str, dict]:
    """Runs by id, merged from the multipart posts and patches the LangSmith client sent."""
    runs: dict[str, dict] = {}
    for path, headers, body in posts:
        if "/runs/" in path and body.startswith(b"{"):  # a PATCH of one run (client.update_run)
            patch = {k: v for k, v in json.loads(body).items() if v is not None}  # the fields it sets
            runs.setdefault(path.rsplit("/", 1)[-1], {}).update(patch)
            continue
        if "multipart" not in headers.get("Content-Type", headers.get("content-type", "")):
            continue
        ctype = headers.get("Content-Type") or headers.get("content-type")
        msg = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            _op, run_id, *field = name.split(".")
            value = json.loads(part.get_payload(decode=True))
            run = runs.setdefault(run_id, {})
            if field:
                run[field[0]] = value
            else:
                run.update(value)
    return runs


@pytest.fixture
def fakes(monkeypatch):
    _Fakes.posts, _Fakes.replies = [], [FLAWED, EXPLANATION, FIXED]
    srv, base = serve(_Fakes)
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_ENDPOINT", base + "/langsmith")
    monkeypatch.setenv("LANGSMITH_API_KEY", LS_KEY)
    monkeypatch.setenv("DEPS_LLM_API_KEY", LLM_KEY)
    _clear_langsmith_caches()
    yield base
    monkeypatch.undo()
    _clear_langsmith_caches()  # langsmith caches its env reads: later tests must not trace
    srv.shutdown()


def _clear_langsmith_caches() -> None:
    import langsmith.run_trees as ls_run_trees
    import langsmith.utils as ls_utils

    for fn in (ls_utils.get_env_var, ls_utils.get_tracer_project, ls_utils.get_host_url):
        fn.cache_clear()
    ls_run_trees._CLIENT = None  # the tracers' client keeps its endpoint: each test's fake gets a new one


def test_one_named_tagged_trace_with_node_llm_and_tool_runs_and_no_secret(fakes):
    from langchain_core.tracers.langchain import wait_for_all_tracers

    settings = RunSettings(planner="deps", llm=f"{fakes}/v1#fake", inventory={"planks": 10, "stick": 4}, seed=3)
    result = run_episode(STONE_SWORD, settings, kb=KB)
    wait_for_all_tracers()
    assert result["success"] and result["rounds"] == 1

    runs = _runs(_Fakes.posts)
    roots = [r for r in runs.values() if not r.get("parent_run_id")]
    assert len(roots) == 1  # one trace per episode
    root = roots[0]
    assert root["name"] == "deps:CraftStoneSword"
    assert {"task:CraftStoneSword", "planner:deps", "world:textworld", "group:MT2"} <= set(root["tags"])
    meta = root["extra"]["metadata"]
    assert meta["task"] == "CraftStoneSword" and meta["planner"] == "deps" and meta["seed"] == 3
    assert meta["thread"] == result["thread"] and meta["llm"] == redact_llm(
        f"{fakes}/v1#fake"
    )  # scheme, host, port and a hash

    def children(run_id, **where):
        return [
            r
            for r in runs.values()
            if r.get("parent_run_id") == run_id and all(r.get(k) == v for k, v in where.items())
        ]

    nodes = {r["name"] for r in children(root["id"])}
    assert {"plan", "parse", "select", "execute", "describe", "explain"} <= nodes
    plan_runs = children(root["id"], name="plan")
    llm_runs = [
        r for p in plan_runs for r in runs.values() if r.get("run_type") == "llm" and r.get("trace_id") == root["id"]
    ]
    assert len(llm_runs) >= 2
    tool_runs = [r for e in children(root["id"], name="execute") for r in children(e["id"], run_type="tool")]
    assert tool_runs and all(r["name"].startswith("scripted.") for r in tool_runs)
    failed = [r for r in tool_runs if r.get("error")]  # a failed skill is an error run with the world's cause
    assert failed and "wooden_pickaxe" in failed[0]["error"]
    assert "outcome:success" in root["tags"]

    everything = b"".join(body for _, _, body in _Fakes.posts)
    assert LS_KEY.encode() not in everything and LLM_KEY.encode() not in everything
    assert b"Authorization" not in everything and b"Bearer" not in everything
    assert b"root ::=" not in everything  # the GBNF grammar is digested
    assert b"chars, sha256" in everything


def test_a_failing_episode_is_an_error_with_its_cause_an_outcome_tag_and_a_zero_success_score(fakes):
    from langchain_core.tracers.langchain import wait_for_all_tracers

    _Fakes.replies = [FLAWED]  # the flawed plan, and no re-planning allowed: the episode fails
    settings = RunSettings(
        planner="deps", llm=f"{fakes}/v1#fake", inventory={"planks": 10, "stick": 4}, max_rounds=0, seed=3
    )
    result = run_episode(STONE_SWORD, settings, kb=KB)
    wait_for_all_tracers()
    assert not result["success"]

    runs = _runs(_Fakes.posts)
    root = next(r for r in runs.values() if r.get("name") == "deps:CraftStoneSword")
    assert "outcome:failed" in root["tags"] and "selector:fixed" in root["tags"]  # what ran, not "default"
    assert root["error"] == result["failure_reason"]
    feedback = [json.loads(body) for path, _, body in _Fakes.posts if path.endswith("/feedback")]
    assert [(f["key"], f["score"], f["run_id"]) for f in feedback] == [("success", 0, root["id"])]
    failed_skills = [r for r in runs.values() if r.get("run_type") == "tool" and r.get("error")]
    assert failed_skills and "wooden_pickaxe" in failed_skills[0]["error"]  # the world's cause
    llm_names = {r["name"] for r in runs.values() if r.get("run_type") == "llm"}
    assert llm_names == {f"deps planner · {redact_llm(fakes + '/v1#fake')}"}  # the role and the model, not a class name
