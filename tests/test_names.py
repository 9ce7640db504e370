"""Names across versions (issue 22, item 6): the 1.13 flattening table translates a 1.11
task's names at 1.16.5 and 1.19.2 (and back), and a 1.11 id that became several items is
refused with one line."""

from __future__ import annotations

import pytest
import yaml

from worlds.knowledge import DATA, AmbiguousName, load_kb
from worlds.tasks import SuiteError, localize
from worlds.types import Task

FLAT = yaml.safe_load((DATA / "flattening.yaml").read_text())
MODERN = ("1.16.5", "1.19.2")


@pytest.mark.parametrize("version", MODERN)
@pytest.mark.parametrize("old, new", sorted(FLAT["renames"].items()))
def test_each_flattening_rename_translates_both_ways(version, old, new):
    kb, kb11 = load_kb(version), load_kb("1.11.2")
    assert kb11.is_item(old) or kb11.is_generic(old) or kb11.canonical(old) == old
    assert kb.translate(old, "1.11.2") == new
    assert kb11.translate(new, version) == old


@pytest.mark.parametrize("version", MODERN)
def test_no_1_11_item_is_lost_at_a_later_version(version):
    kb, kb11 = load_kb(version), load_kb("1.11.2")
    lost = [n for n in kb11.item_names() if n not in FLAT["ambiguous"] and kb.translate(n, "1.11.2") is None]
    assert lost == []


@pytest.mark.parametrize("version", MODERN)
@pytest.mark.parametrize("name", sorted(FLAT["ambiguous"]))
def test_a_1_11_id_that_became_several_items_is_refused_in_one_line(version, name):
    with pytest.raises(AmbiguousName) as e:
        load_kb(version).translate(name, "1.11.2")
    msg = str(e.value)
    assert "\n" not in msg and name in msg and "name one of them" in msg


def _suite_task(target):
    return Task("t", "MT1", "Obtain it.", target, 3000, suite="deps71")


@pytest.mark.parametrize("version", MODERN)
@pytest.mark.parametrize(
    "old, meant, not_meant",
    [
        ("grass", "grass_block", "grass"),
        ("nether_brick", "nether_bricks", "nether_brick"),
        ("snow", "snow_block", "snow"),
        ("melon", "melon_slice", "melon"),
    ],
)
def test_a_1_11_suite_name_never_silently_becomes_another_thing(version, old, meant, not_meant):
    task = localize(_suite_task({old: 1}), load_kb(version))
    assert task.target == {meant: 1} and not_meant not in task.target


def test_a_suite_task_naming_an_ambiguous_1_11_id_is_refused_in_one_line():
    with pytest.raises(SuiteError) as e:
        localize(_suite_task({"skull": 1}), load_kb("1.16.5"))
    assert "\n" not in str(e.value) and "skeleton_skull" in str(e.value)


@pytest.mark.parametrize("suite", ["custom", None])
def test_a_typed_or_built_task_keeps_the_versions_own_meaning(suite):
    task = Task("custom-grass", "custom", "obtain grass", {"grass": 1, "nether_brick": 2}, 3000, suite=suite)
    assert localize(task, load_kb("1.16.5")).target == {"grass": 1, "nether_brick": 2}  # the plant, the item


def test_typed_old_names_that_name_nothing_else_still_resolve():
    kb = load_kb("1.19.2")
    assert kb.canonical("cooked_fish") == "cooked_cod" and kb.canonical("speckled_melon") == "glistering_melon_slice"
    assert load_kb("1.11.2").canonical("cooked_cod") == "cooked_fish"


def test_a_world_or_solver_given_an_ambiguous_old_id_says_why_in_one_line():
    from worlds.solver import Unreachable, solve
    from worlds.textworld import TextWorld

    kb = load_kb("1.19.2")
    with pytest.raises(Unreachable) as e:
        solve(kb, {"skull": 1})
    assert "became several items" in str(e.value) and "creeper_head" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(ValueError, match="'double_plant' is a Minecraft 1.11/1.12 id that became several items"):
        TextWorld(kb).reset(seed=0, options={"inventory": {"double_plant": 1}})
    assert load_kb("1.11.2").unknown_reason("foo") == "unknown item 'foo' in Minecraft 1.11.2"
