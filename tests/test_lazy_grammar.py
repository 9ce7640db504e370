"""Greedy decoding under a grammar that tests only the picked token first (agent/llm/lazy_grammar.py)
gives the same tokens as llama-cpp-python's full chain, both where the model's pick is allowed and
where the grammar refuses it."""

from __future__ import annotations

from tests.llama_child import NEEDS_SMOLLM2, PREAMBLE, run_child

pytestmark = NEEDS_SMOLLM2

# in a child process: llama_cpp's sampler is patched process-wide
_SCRIPT = (
    PREAMBLE
    + r"""
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
)

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
    rec = run_child(_SCRIPT, CASES)
    assert rec["lazy"] == rec["full"] and all(rec["full"])
    assert rec["full"][1] in (" yes.", " no.")
    assert rec["counts"]["checked"] > 0 and rec["counts"]["fallback"] > 0  # both ways were taken


def test_turned_off_it_changes_nothing(monkeypatch):
    from agent.llm import lazy_grammar

    monkeypatch.setenv(lazy_grammar.ENV, "0")
    assert lazy_grammar.install() is False
