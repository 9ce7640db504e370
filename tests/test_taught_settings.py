"""A shipped adapter runs with the settings it was taught and measured with (its card's
`run_settings`) where the user's flags leave them unset: `--llm local:deps-reader` alone once
answered the LLM explainer's prompt, which it was never taught, with 512 tokens of made-up recipes."""

from __future__ import annotations

import json

from agent import cli
from agent.llm import taught
from agent.llm.local_server import ADAPTERS_DIR


def settings(*argv):
    return cli._settings_taught(cli.build_parser().parse_args(["run", "obtain a cake", *argv]))


def test_the_deps_reader_adapter_brings_the_settings_on_its_card():
    s, filled = settings("--llm", "local:deps-reader")
    card = json.loads((ADAPTERS_DIR / "deps-reader" / "card.json").read_text())["run_settings"]
    assert (
        (s.explainer, s.knowledge, s.max_rounds)
        == ("game", "target", 30)
        == tuple(card[k] for k in ("explainer", "knowledge", "max_rounds"))
    )
    assert (s.option("deps").recipe_grammar, s.option("deps").history_chars) == (True, 2000)
    assert filled == ["--explainer game", "--max-rounds 30", "--recipe-grammar", "--history-chars 2000"]


def test_a_flag_the_user_gave_wins_over_the_card():
    s, filled = settings(
        "--llm", "local:deps-reader", "--max-rounds", "12", "--explainer", "llm", "--history-chars", "4000"
    )
    assert (s.explainer, s.max_rounds, s.option("deps").history_chars) == ("llm", 12, 4000)
    assert s.option("deps").recipe_grammar is True and filled == ["--recipe-grammar"]


def test_other_models_and_other_planners_keep_the_plain_defaults():
    # the default embedded model relays to the deps reader and takes its settings: tests/test_relay.py
    for argv in (("--relay", "none"), ("--llm", "local:smollm2"), ("--planner", "rider", "--llm", "local:deps-reader")):
        s, filled = settings(*argv)
        assert filled == [] and (s.explainer, s.max_rounds, s.knowledge) == (None, 12, "target")
        assert s.option("deps").recipe_grammar is False
    assert taught.taught("openai:gpt-4o-mini", "deps") == {} and taught.taught("local:../x", "deps") == {}


def test_an_eval_gets_them_too():
    a = cli.build_parser().parse_args(["eval", "--suite", "deps71", "--out", "x", "--llm", "local:deps-reader"])
    s = cli._settings(a)
    assert (s.explainer, s.max_rounds, s.option("deps").recipe_grammar) == ("game", 30, True)


def test_the_python_api_fills_what_is_left_at_its_default():
    from agent.api import EpisodeContext

    s = EpisodeContext(llm="local:deps-reader").settings()
    assert (s.explainer, s.max_rounds, s.option("deps").history_chars) == ("game", 30, 2000)
    s = EpisodeContext(llm="local:deps-reader", max_rounds=5, options={"deps": {"history_chars": 900}}).settings()
    assert (s.explainer, s.max_rounds, s.option("deps").history_chars) == ("game", 5, 900)
    assert EpisodeContext(llm="local:smollm2").settings().max_rounds == 12
