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
    assert checked > 150  # 197 at 1.11.2


def test_the_wood_of_a_boat_is_the_versions_own():
    modern, legacy = load_kb("1.16.5"), load_kb("1.11.2")
    assert fact(modern, "spruce_boat") == "craft 1 spruce_boat from 5 spruce_planks on a crafting_table"
    assert fact(legacy, "spruce_boat") == "craft 1 spruce_boat from 5 planks on a crafting_table"
    world = TextWorld(legacy)  # 1.11.2: planks are one item, the world takes any
    world.bag.items.update({"planks": 5, "crafting_table": 1})
    assert world._dispatch({"action": "craft", "item": "spruce_boat"}).ok


def test_a_mined_fact_names_the_block_and_the_least_tool_or_better(kb):
    assert fact(kb, "cobblestone") == "mine 1 stone with a wooden_pickaxe or better (drops 1 cobblestone)"
    assert fact(kb, "diamond") == "mine 1 diamond_ore with an iron_pickaxe or better (drops 1 diamond)"
    assert fact(kb, "leather") == "kill 1 cow (drops 1 leather)"
    assert fact(kb, "iron_ingot").startswith("smelt 1 iron_ore into 1 iron_ingot in a furnace")
    assert fact(kb, "log") == "mine 1 log by hand (drops 1 log)"  # generic: the world picks the wood
    assert fact(kb, "sapling").startswith("mine leaves by hand until it drops 1 sapling")  # the block's own group
    assert fact(kb, "blaze_rod") == "blaze_rod cannot be obtained here (the Nether is not modelled)"
    assert fact(kb, "no_such_thing") is None


def test_shears_are_not_a_better_sword():
    """String from a cobweb takes shears or any sword; "shears or better" sent a planner to iron."""
    for version in ("1.11.2", "1.16.5"):
        kb = load_kb(version)
        (web, *_) = kb.mine_sources("string")
        assert web.tool_phrase() == " with shears or a sword"
        world = TextWorld(kb)
        world.reset(seed=0, options={"target": {"string": 1}, "max_steps": 3000})
        assert (
            world.step({"action": "mine", "item": "string"})[-1]["error"]
            == f"needs shears or a sword to mine {web.block}"
        )
        world.bag.items["wooden_sword"] = 1
        assert world.step({"action": "mine", "item": "string"})[-1]["ok"]


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
        proc = subprocess.run(
            [sys.executable, "-m", "agent.cli", command, "CraftWoodenPickaxe", "--knowledge", "all"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1, proc.stderr
        assert "--knowledge" in lines[0] and "'all'" in lines[0] and "none" in lines[0] and "tree" in lines[0]
        assert "Traceback" not in proc.stderr


def _request(knowledge: str, **kw):
    from nodes.planners.base import PlanRequest
    from worlds.types import Task

    task = Task("CraftStonePickaxe", "custom", "obtain a stone pickaxe", {"stone_pickaxe": 1}, 3000)
    return PlanRequest(
        task=task,
        inventory={},
        plans=kw.get("plans", []),
        descriptions=kw.get("descriptions", []),
        explanations=kw.get("explanations", []),
        outcomes=kw.get("outcomes", []),
        kb=load_kb("1.11.2"),
        knowledge=knowledge,
    )


def test_each_planner_follows_the_knowledge_setting():
    from nodes.planners.baselines import zero_shot
    from nodes.planners.llm import DialoguePlanner
    from nodes.planners.rider.prompt import step_messages

    kb, book = load_kb("1.11.2"), "Recipe book: craft 1 stone_pickaxe from 3 cobblestone + 2 stick on a crafting_table"
    deps = DialoguePlanner(None, output="text")
    assert deps.messages(_request("target"))[-1].content.endswith(book + ".")
    assert "Recipe book" not in deps.messages(_request("none"))[-1].content
    assert "mine 1 log by hand" in deps.messages(_request("tree"))[-1].content
    # a re-plan turn whose description has no recipe book (--no-recipe-hints) gets the missing item's fact
    failed = {"plan": 0, "step": 0, "ok": False, "error": "needs 3 cobblestone", "missing": {"cobblestone": 3}}
    replan = _request(
        "target",
        plans=["mine({'log':1}, null)"],
        descriptions=["I failed on step 1."],
        explanations=["no stone"],
        outcomes=[failed],
    )
    assert fact(kb, "cobblestone") in deps.messages(replan)[-1].content
    assert (
        fact(kb, "cobblestone")
        not in deps.messages(
            _request("none", **{k: getattr(replan, k) for k in ("plans", "descriptions", "explanations", "outcomes")})
        )[-1].content
    )
    rider = [step_messages(kb, {"stone_pickaxe": 1}, {}, [], knowledge=k)[-1].content for k in ("none", "target")]
    assert "Recipe book" not in rider[0] and book in rider[1]
    # the baselines stay the papers' prompts unless their facts option is on
    from nodes.settings import RunSettings

    assert not zero_shot(None).facts and not zero_shot(None, RunSettings()).facts
    assert zero_shot(None, RunSettings().configure("zero-shot", facts=True)).facts


def test_mp5_knowledge_line_follows_the_setting():
    from nodes.planners.mp5.parser import SubObjective
    from nodes.planners.mp5.planner import MP5Planner

    planner = object.__new__(MP5Planner)  # only its knowledge line: no memory folder needed
    planner.knowledge = None
    sub = SubObjective("craft", "stone_pickaxe", 1, fact="How to get stone_pickaxe: x", notes=["a note."])
    assert planner._knowledge(_request("none"), sub, ["stick"]) == "none"
    target = planner._knowledge(_request("target"), sub, ["stick"])
    assert target.startswith("How to get stone_pickaxe: x") and fact(load_kb("1.11.2"), "stick") in target
    assert target.endswith("a note.")
    assert fact(load_kb("1.11.2"), "cobblestone") in planner._knowledge(_request("tree"), sub, [])
