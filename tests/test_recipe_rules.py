"""Recipe rules of issue 22: unpacking what is held, mixed materials, 1.11.2's data gaps
and its dye colours resolved exactly."""
from __future__ import annotations

import pytest

from tests.test_solver import replay
from worlds.knowledge import VERSIONS, load_kb
from worlds.solver import solve
from worlds.textworld import TextWorld


def _plan_runs(kb, target, inventory):
    goals = solve(kb, target, inventory)
    ok, err, w = replay(kb, goals, inventory=inventory, target=target)
    assert ok, err
    assert w.target_reached()
    return goals


# ---------------------------------------------------------------- unpacking
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("target, held, made_from", [
    ({"iron_ingot": 1}, {"iron_nugget": 9}, "iron_nugget"),
    ({"diamond": 3}, {"diamond_block": 1}, "diamond_block"),
    ({"wheat": 5}, {"hay_block": 1}, "hay_block"),
    ({"gold_ingot": 4}, {"gold_block": 1}, "gold_block"),
])
def test_held_blocks_and_nuggets_are_unpacked_not_mined_again(version, target, held, made_from):
    kb = load_kb(version)
    goals = _plan_runs(kb, target, held)
    (item,) = target
    assert [(g.action, g.materials) for g in goals if item in g.obj] == [("craft", {made_from: held[made_from]})]
    assert not any(g.action in ("mine", "smelt") and item in g.obj for g in goals)


def test_unpacking_uses_what_is_held_and_gets_the_rest_the_usual_way():
    kb = load_kb("1.11.2")
    goals = _plan_runs(kb, {"iron_ingot": 2}, {"iron_nugget": 9})
    made = [(g.action, g.obj["iron_ingot"]) for g in goals if "iron_ingot" in g.obj]
    assert made == [("craft", 1), ("smelt", 1)]


def test_unpacking_is_never_a_way_to_start():
    kb = load_kb("1.16.5")
    goals = solve(kb, {"diamond": 1})
    assert not any("diamond_block" in g.obj or "diamond_block" in g.materials for g in goals)


# ---------------------------------------------------------------- mixed materials
@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_a_stone_hoe_from_cobblestone_and_blackstone_mixed(version):
    kb = load_kb(version)
    (hoe,) = kb.recipes("stone_hoe")
    assert {"cobblestone", "blackstone"} <= set(hoe.fillers("cobblestone"))
    held = {"cobblestone": 1, "blackstone": 1, "stick": 2, "crafting_table": 1}
    w = TextWorld(kb)
    w.reset(seed=0, options={"inventory": held})
    _, _, _, _, info = w.step({"action": "craft", "item": "stone_hoe"})
    assert info["ok"], info["error"]
    assert w.inventory == {"stone_hoe": 1, "crafting_table": 1}
    goals = _plan_runs(kb, {"stone_hoe": 1}, held)
    assert [g.action for g in goals] == ["craft"]          # nothing mined: the two stones make it


@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_a_smoker_from_mixed_stripped_logs_and_a_furnace(version):
    kb = load_kb(version)
    held = {"stripped_oak_log": 2, "stripped_birch_log": 1, "oak_wood": 1, "furnace": 1, "crafting_table": 1}
    goals = _plan_runs(kb, {"smoker": 1}, held)
    assert [g.action for g in goals] == ["craft"]


@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_red_sandstone_slabs_from_plain_and_chiseled_mixed(version):
    kb = load_kb(version)
    held = {"red_sandstone": 2, "chiseled_red_sandstone": 1, "crafting_table": 1}
    goals = _plan_runs(kb, {"red_sandstone_slab": 6}, held)
    assert [g.action for g in goals] == ["craft"]


def test_mixed_planks_make_one_chest_in_every_version():
    kb = load_kb("1.19.2")
    goals = _plan_runs(kb, {"chest": 1}, {"oak_planks": 3, "birch_planks": 5, "crafting_table": 1})
    assert [g.action for g in goals] == ["craft"]


def test_a_recipe_missing_both_alternatives_names_the_first_and_what_fills_it():
    kb = load_kb("1.16.5")
    w = TextWorld(kb)
    w.reset(seed=0, options={"inventory": {"blackstone": 1, "stick": 2, "crafting_table": 1}})
    _, _, _, _, info = w.step({"action": "craft", "item": "stone_hoe"})
    assert not info["ok"] and "needs 2 cobblestone, has 1" in info["error"]
