"""LangGraph's own server loads the graph as `langgraph dev` does (langgraph.json, in-memory
runtime, loopback) and one oracle episode runs through its HTTP API."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LANGGRAPH = Path(sys.executable).with_name("langgraph")  # langgraph-cli[inmem], in the test extra


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, json.loads(r.read() or b"null")


def _post(url: str, body: dict):
    req = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return r.status, json.loads(r.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    work = tmp_path_factory.mktemp("studio")
    shutil.copy(ROOT / "langgraph.json", work / "langgraph.json")
    cfg = json.loads((work / "langgraph.json").read_text())
    cfg["dependencies"] = [str(ROOT)]
    cfg["graphs"] = {k: str(ROOT / v.removeprefix("./")) for k, v in cfg["graphs"].items()}
    (work / "langgraph.json").write_text(json.dumps(cfg))
    port = _port()
    env = {**os.environ, "LANGSMITH_TRACING": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1"}
    proc = subprocess.Popen(
        [
            str(LANGGRAPH),
            "dev",
            "--no-browser",
            "--no-reload",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--config",
            "langgraph.json",
        ],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            if _get(base + "/ok")[0] == 200:
                break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("langgraph dev did not come up: " + proc.stdout.read().decode()[-2000:])
        time.sleep(0.5)
    yield base
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def test_server_draws_the_graph_and_gives_the_schemas(server):
    _, assistants = _post(server + "/assistants/search", {"graph_id": "deps"})
    aid = assistants[0]["assistant_id"]
    status, drawn = _get(f"{server}/assistants/{aid}/graph")
    assert status == 200
    assert {n["id"] for n in drawn["nodes"]} >= {"plan", "parse", "select", "execute", "describe", "explain"}
    _, schemas = _get(f"{server}/assistants/{aid}/schemas")
    assert {"task", "planner", "world", "llm", "seed", "max_rounds"} <= set(schemas["context_schema"]["properties"])
    assert set(schemas["input_schema"]["properties"]) == {"task"}  # a small input: the task
    planner = schemas["context_schema"]["properties"]["planner"]
    assert "oracle" in planner["enum"] and planner["description"]  # choices and descriptions


def test_an_oracle_episode_runs_through_the_http_api(server):
    status, state = _post(
        server + "/runs/wait",
        {"assistant_id": "deps", "input": {"task": "CraftPlanks"}, "context": {"planner": "oracle"}},
    )
    assert status == 200
    assert state["status"] == "success", state
    assert state["inventory"].get("planks", 0) >= 1
    assert state["plans"][0].startswith("mine({'log':1}")
    assert state["task"] == "CraftPlanks"  # the task is in the state
