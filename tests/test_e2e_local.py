"""End to end against the real embedded model: the `deps` CLI starts llama.cpp's server on
loopback, the DEPS loop plans with SmolLM2-135M, and the server is gone afterwards."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.contract import RUN_KEYS

pytest.importorskip("llama_cpp")


def _server_pids() -> set[str]:
    out = subprocess.run(["pgrep", "-f", "llama_cpp.server"], capture_output=True, text=True).stdout
    return set(out.split())


def test_deps_run_with_the_local_model():
    before = _server_pids()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent.cli",
            "run",
            "CraftWoodenPickaxe",
            "--planner",
            "deps",
            "--llm",
            "local",
            "--max-rounds",
            "0",
            "--json",
            # one plan, one patient try: a shared CI machine can take minutes for the first long prompt
            "--llm-timeout",
            "500",
            "--llm-retries",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert RUN_KEYS <= set(result)
    assert result["llm_calls"] >= 1 and result["tokens_in"] > 0 and result["tokens_out"] > 0
    assert len(result["plans"]) == result["rounds"] + 1
    assert result["success"] or result["failure_reason"]
    assert _server_pids() <= before  # no orphan server left behind
