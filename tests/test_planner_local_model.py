"""Plain `--llm local` means the embedded model the planner ships with (issue 23): the rider
planner's reader adapter, the suites adapter for the others; a named model is kept as written, and
stored settings resume as they ran."""

from __future__ import annotations

from dataclasses import replace

from nodes import registry
from nodes.settings import RunSettings, local_llm_for


def test_the_rider_planner_gets_its_reader_adapter_and_the_others_the_default():
    assert RunSettings(planner="rider").llm == "local:reader"
    assert RunSettings().llm == "local" and RunSettings(planner="mp5").llm == "local"
    assert replace(RunSettings(), planner="rider").llm == "local:reader"  # a sweep over planners too


def test_named_models_unknown_planners_and_plugins_are_kept_as_written():
    assert RunSettings(planner="rider", llm="local:rider").llm == "local:rider"
    assert RunSettings(planner="rider", llm="openai:gpt-4o-mini").llm == "openai:gpt-4o-mini"
    assert local_llm_for("local", "no_such_planner") == "local"
    assert local_llm_for("local", "my_pkg.planner:make") == "local"


def test_stored_settings_resume_with_the_model_they_ran_with():
    stored = RunSettings(planner="rider").to_dict() | {"llm": "local"}  # a run from before the change
    assert RunSettings.from_dict(stored).llm == "local"
    assert RunSettings.from_dict(RunSettings(planner="rider").to_dict()).llm == "local:reader"


def test_a_registered_planner_can_name_its_own_model():
    registry.register(
        "planner", "mine-with-model", "nodes.planners.oracle:OraclePlanner", help="x", local_model="smollm2"
    )
    try:
        assert RunSettings(planner="mine-with-model").llm == "local:smollm2"
    finally:
        registry.unregister("planner", "mine-with-model")


def test_the_cli_flags_give_the_planners_model():
    from agent import cli

    def llm(*argv):
        return cli._settings(cli.build_parser().parse_args(["run", "CraftPlanks", *argv])).llm

    assert llm("--planner", "rider") == "local:reader"
    assert llm("--planner", "rider", "--llm", "local:rider") == "local:rider"
    assert llm() == "local"
