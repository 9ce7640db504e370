"""Recipe facts in the planners' prompts (issue 23, part 1): exact names, the three amounts of
--knowledge, one clear line for a bad value."""
from __future__ import annotations

import subprocess
import sys

import pytest

from nodes.facts import prompt_facts, recipe_book
from nodes.settings import RunSettings, SettingsError
from worlds.facts import MAX_LINES, MAX_TREE_LINES, fact, facts
from worlds.knowledge import load_kb
from worlds.options import best_option
from worlds.textworld import TextWorld


@pytest.fixture(scope="module", params=["1.11.2", "1.16.5"])
def kb(request):
    return load_kb(request.param)


def _refusal(kb, item: str) -> dict:
    """What the text world says is missing when `item` is crafted from nothing but a table."""
    world = TextWorld(kb)
    world.bag.items.update({"crafting_table": 1})
    out = world._dispatch({"action": "craft", "item": item})
    assert not out.ok, item
    return out.missing


def test_a_craft_fact_names_what_the_world_asks_for(kb):
    """Every single-recipe craft of the version: the fact's materials are the names, and the
    counts, of the world's own refusal (spruce_planks at 1.16.5, planks at 1.11.2)."""
    checked = 0
    for item in kb.item_names():
        opt = best_option(kb, item)
        if opt is None or opt.kind != "craft" or len([c for r in kb.recipes(item) for c in r.choices()]) != 1:
            continue
        line = fact(kb, item)
        missing = _refusal(kb, item)
        for name, n in opt.inputs.items():
            assert missing.get(name) == n and f"{n} {name}" in line, (item, line, missing)
        checked += 1
    assert checked > 150      # 197 at 1.11.2


def test_the_wood_of_a_boat_is_the_versions_own():
    modern, legacy = load_kb("1.16.5"), load_kb("1.11.2")
    assert fact(modern, "spruce_boat") == "craft 1 spruce_boat from 5 spruce_planks on a crafting_table"
    assert fact(legacy, "spruce_boat") == "craft 1 spruce_boat from 5 planks on a crafting_table"
    world = TextWorld(legacy)                  # 1.11.2: planks are one item, the world takes any
    world.bag.items.update({"planks": 5, "crafting_table": 1})
    assert world._dispatch({"action": "craft", "item": "spruce_boat"}).ok


def test_a_mined_fact_names_the_block_and_the_least_tool_or_better(kb):
    assert fact(kb, "cobblestone") == "mine 1 stone with a wooden_pickaxe or better (drops 1 cobblestone)"
    assert fact(kb, "diamond") == "mine 1 diamond_ore with an iron_pickaxe or better (drops 1 diamond)"
    assert fact(kb, "leather") == "kill 1 cow (drops 1 leather)"
    assert fact(kb, "iron_ingot").startswith("smelt 1 iron_ore into 1 iron_ingot in a furnace")
    assert fact(kb, "log") == "mine 1 log by hand (drops 1 log)"        # generic: the world picks the wood
    assert fact(kb, "blaze_rod") == "blaze_rod cannot be obtained here (the Nether is not modelled)"
    assert fact(kb, "no_such_thing") is None


@pytest.mark.parametrize("version", ["1.11.2", "1.16.5", "1.19.2"])
def test_every_name_of_every_version_has_a_one_line_fact(version):
    kb = load_kb(version)
    for name in sorted({*kb.item_names(), *kb.groups()}):
        line = fact(kb, name)
        assert line and "\n" not in line and len(line) < 200, (name, line)


def test_the_three_amounts_of_knowledge(kb):
    assert facts(kb, ["stone_pickaxe"], ["stick"], "none") == []
    target = facts(kb, ["stone_pickaxe"], ["stick"], "target")
    assert target == [fact(kb, "stone_pickaxe"), fact(kb, "stick")]
    tree = facts(kb, ["stone_pickaxe"], [], "tree")
    assert tree[0] == fact(kb, "stone_pickaxe") and fact(kb, "cobblestone") in tree and fact(kb, "log") in tree
    assert len(facts(kb, ["diamond_pickaxe"], [], "tree")) == MAX_TREE_LINES
    assert len(facts(kb, ["stick"], ["a", "b", "c", "d", "e", "f", "g"], "target")) <= MAX_LINES
    with pytest.raises(ValueError, match="accepted: none, target, tree"):
        facts(kb, ["stick"], [], "all")


def test_free_text_names_go_to_the_memory_and_the_book_reads_as_one_sentence(kb):
    class Memory:
        def nearest_facts(self, names):
            return [f"How to get {n}: nearest fact" for n in names]

    lines = prompt_facts(kb, ["stick", "something shiny"], [], "target", memory=Memory())
    assert lines == [fact(kb, "stick"), "How to get something shiny: nearest fact"]
    assert prompt_facts(kb, ["something shiny"], [], "target") == []
    assert recipe_book(kb, ["stick"]) == "Recipe book: craft 4 stick from 2 planks."
    assert recipe_book(kb, ["stick"], mode="none") == ""


def test_an_unknown_knowledge_value_is_one_clear_line():
    with pytest.raises(SettingsError, match=r"^unknown knowledge 'all'; accepted: none, target, tree$"):
        RunSettings(knowledge="all").validate()
    for command in ("run", "eval"):
        proc = subprocess.run([sys.executable, "-m", "agent.cli", command, "CraftWoodenPickaxe", "--knowledge", "all"],
                              capture_output=True, text=True, timeout=120)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1, proc.stderr
        assert "--knowledge" in lines[0] and "'all'" in lines[0] and "none" in lines[0] and "tree" in lines[0]
        assert "Traceback" not in proc.stderr
