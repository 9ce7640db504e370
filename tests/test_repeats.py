"""`--end-at-repeat`: a plan ends before its first repeated line (nodes/planners/repeats.py), and
the embedded server's child stops decoding there when the grammar asks (agent/llm/repeat_stop.py)."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from nodes.planners import repeats
from tests.llama_child import NEEDS_SMOLLM2, PREAMBLE, run_child

# a looping first plan as the embedded model writes them: the 4th line does what the 2nd did
LOOP = (
    "mine({'log':1}, null)  # step 1: mine a log\n"
    "craft({'planks':4}, {'log':1}, null)  # step 2: planks\n"
    "craft({'stick':4}, {'planks':2}, null)  # step 3: sticks\n"
    "craft({'planks':4}, {'log':1}, null)  # step 4: planks again\n"
    "craft({'stick':4}, {'planks':2}, null)  # step 5: sticks again\n"
)


def test_a_plan_is_cut_before_its_first_repeated_line_its_comment_aside():
    assert repeats.cut(LOOP) == "".join(LOOP.splitlines(keepends=True)[:3])
    assert repeats.cut(repeats.cut(LOOP)) == repeats.cut(LOOP)
    once = "".join(LOOP.splitlines(keepends=True)[:3])
    assert repeats.cut(once) == once and repeats.first_repeat(once.split("\n")) is None
    assert repeats.cut("") == "" and repeats.cut("mine({'log':1}, null)") == "mine({'log':1}, null)"


def test_the_childs_test_reads_only_finished_lines():
    lines = LOOP.splitlines(keepends=True)
    assert not repeats.ends_on_repeat("".join(lines[:3]))
    assert repeats.ends_on_repeat("".join(lines[:4]))
    assert not repeats.ends_on_repeat("".join(lines[:3]) + "craft({'planks':4}, {'log':1}, null)")  # not finished
    assert not repeats.ends_on_repeat("\n\n")


class _Scripted:
    """A grammar-taking chat model that answers `LOOP` and records the grammar it was given."""

    supports_grammar = True

    def __init__(self) -> None:
        self.grammars: list[str] = []

    def grammar_mode(self, gbnf: str):
        self.grammars.append(gbnf)
        return self

    def invoke(self, messages, config=None):
        return AIMessage(LOOP)


@pytest.mark.parametrize("on", [True, False])
def test_the_planner_asks_for_it_and_cuts_the_plan_only_with_the_option(on):
    from nodes.planners.base import PlanRequest
    from nodes.planners.llm import deps_planner
    from nodes.registry import DialogueOptions
    from nodes.settings import RunSettings
    from worlds.knowledge import load_kb
    from worlds.types import Task

    llm = _Scripted()
    settings = RunSettings(planner="deps", options={"deps": DialogueOptions(end_at_repeat=on)})
    task = Task("stick", "MT1", "obtain a stick", {"stick": 1}, 100)
    req = PlanRequest(task=task, inventory={}, plans=[], descriptions=[], explanations=[], kb=load_kb("1.11.2"))
    out = deps_planner(llm, settings).plan(req)
    assert out.text == (repeats.cut(LOOP) if on else LOOP)
    assert repeats.asked(llm.grammars[0]) is on


# in a child process: llama_cpp's Llama is patched process-wide
_SCRIPT = (
    PREAMBLE
    + r"""
from llama_cpp import Llama, LlamaGrammar
from agent.llm import repeat_stop
from agent.llm.local_server import find_model
from nodes.planners import repeats
assert repeat_stop.install()
llm = Llama(str(find_model("smollm2")), n_ctx=512, n_threads=1, logits_all=False, verbose=False)
gbnf = json.loads(sys.argv[1])
def write(g):
    out = llm.create_completion("A plan:\n", grammar=LlamaGrammar.from_string(g, verbose=False), max_tokens=200,
                                temperature=0.0, repeat_penalty=1.0, seed=0)["choices"][0]
    return [out["text"], out["finish_reason"]]
print(json.dumps({"asked": write(repeats.asking(gbnf)), "plain": write(gbnf)}))
"""
)

# every line after the first does the same, under different comments
GBNF = (
    "root ::= \"craft({'planks':4}, {'log':1}, null)\\n\" mine{5}\n"
    'mine ::= "mine({\'log\':1}, null)  # step " [1-9] "\\n"'
)


@NEEDS_SMOLLM2
def test_the_server_child_stops_decoding_at_the_first_repeat_when_asked():
    rec = run_child(_SCRIPT, GBNF)
    text, why = rec["asked"]
    assert text.count("\n") == 3 and why == "stop"  # the craft, a mine and its repeat, then no more
    assert repeats.cut(text).count("\n") == 2
    plain, _ = rec["plain"]
    assert plain.count("\n") == 6 and plain.startswith(text)  # a request that does not ask is as before
