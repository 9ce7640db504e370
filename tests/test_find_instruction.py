"""`deps run "find a pig at night"`: a find in words becomes the context task MP5's suite writes."""

from __future__ import annotations

import pytest

from agent.cli import main
from worlds.find_instruction import find_task_from_instruction, is_find
from worlds.tasks import SuiteError, load_suite


@pytest.mark.parametrize("task", load_suite("mp5-context"), ids=lambda t: t.id)
def test_every_instruction_of_the_suite_reads_as_the_suite_writes_it(task):
    read = find_task_from_instruction(task.instruction)
    assert (read.context, read.biome, read.target) == (task.context, task.biome, {})


@pytest.mark.parametrize(
    ("text", "conditions"),
    [
        ("find a zombie at night", {"time": "night"}),
        ("Find cows by day in the birch forest.", {"time": "day", "biome": "birch_forest"}),
        ("look for a sheep next to the water in the rain", {"near": "water", "weather": "rain"}),
    ],
)
def test_other_wordings_read_too(text, conditions):
    assert is_find(text)
    assert find_task_from_instruction(text).context["conditions"] == conditions


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("find a dragon", "cannot find 'dragon'; accepted things:"),
        ("find a pig in the moon", "unknown biome 'moon'; accepted:"),
        ("find a pig quickly", "cannot read 'quickly'; accepted: find THING"),
        ("find a pig at night by day", "two times (night, day)"),
        ("find a pig near a dragon", "'dragon' is not a thing to be near"),
    ],
)
def test_a_word_it_cannot_read_is_one_line(text, says):
    with pytest.raises(SuiteError, match=r"^instruction ") as e:
        find_task_from_instruction(text)
    assert says in str(e.value) and "\n" not in str(e.value)


def test_deps_run_finds_a_zombie_at_night_and_refuses_a_dragon(capsys):
    assert (
        main(
            [
                "run",
                "find a zombie at night",
                "--world",
                "gridworld",
                "--controller",
                "scripted",
                "--planner",
                "nodes.planners.mp5.oracle:factory",
                "--seed",
                "1",
                "--json",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert '"success": true' in out and "custom-find-zombie-night" in out
    assert main(["run", "find a dragon", "--world", "gridworld"]) == 2
    assert "cannot find 'dragon'" in capsys.readouterr().err
