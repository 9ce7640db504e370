"""Prompt-cache entries without the logits buffer (agent/llm/lean_state.py) give the same answers
as llama-cpp-python's own save and load, a cache hit that loads a saved state included, and
keep one row where the library copied n_batch rows of logits."""

from __future__ import annotations

from tests.llama_child import NEEDS_SMOLLM2, PREAMBLE, run_child

pytestmark = NEEDS_SMOLLM2

# in a child process: llama_cpp's Llama is patched process-wide
_SCRIPT = (
    PREAMBLE
    + r"""
from llama_cpp import Llama, LlamaRAMCache
from agent.llm import lean_state
from agent.llm.local_server import find_model
llm = Llama(str(find_model("smollm2")), n_ctx=512, n_batch=16, n_threads=1, logits_all=False, verbose=False)
prompts = json.loads(sys.argv[1])
loads = []
load = Llama.load_state
def counted(self, state):
    loads.append(state.n_tokens)
    return load(self, state)
Llama.load_state = counted
def run():
    llm.set_cache(LlamaRAMCache(capacity_bytes=1 << 30))
    llm.reset()
    out = [llm.create_completion(p, max_tokens=12, temperature=0.0, repeat_penalty=1.0, seed=0)["choices"][0]["text"]
           for p in prompts]
    rows = sorted({s.scores.shape[0] for s in llm.cache.cache_state.values()})
    return out, rows
own, own_rows = run()
n_own = len(loads)
assert lean_state.install()
load, Llama.load_state = Llama.load_state, counted  # the lean one, still counted
lean, lean_rows = run()
print(json.dumps({"own": own, "lean": lean, "own_rows": own_rows, "lean_rows": lean_rows,
                  "own_loads": n_own, "lean_loads": len(loads) - n_own}))
"""
)

# the third prompt extends the first: the cache holds a longer prefix of it than the context
# (which holds the second), so the first's saved state is loaded back
BASE = "Plan: obtain a wooden pickaxe.\nmine({'log':3}, null)  # step 1: mine 3 log\n"
PROMPTS = [BASE, "Q: Name a colour of the sky.\nA:", BASE + "craft({'planks':12}, {'log':3}, null)  # step 2: craft"]


def test_lean_entries_answer_as_the_librarys_own():
    rec = run_child(_SCRIPT, PROMPTS)
    assert rec["lean"] == rec["own"] and all(rec["own"])
    assert rec["own_loads"] >= 1 and rec["lean_loads"] == rec["own_loads"]  # a saved state was loaded back
    assert rec["own_rows"] == [16] and rec["lean_rows"] == [1]  # n_batch rows of logits, then one


def test_turned_off_it_changes_nothing(monkeypatch):
    from agent.llm import lean_state

    monkeypatch.setenv(lean_state.ENV, "0")
    assert lean_state.install() is False
