"""The plan grammar: given the task's item, a plan ends at the first line that obtains it."""

from __future__ import annotations

import re

import pytest

from nodes.planners.grammar import code_form_grammar
from worlds.knowledge import load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def _rules(grammar: str) -> dict[str, str]:
    return dict(line.split(" ::= ", 1) for line in grammar.splitlines())


def _names(rule: str) -> set[str]:
    """Every string a finite GBNF rule body matches: quoted literals, ( ) groups, | and ?, as the
    grammar writes its item names (as tries: "a" ("cacia_" ("boat" | "door") | "pple"))."""
    tokens = re.findall(r'"[^"]*"|[()|?]', rule)
    pos = 0

    def alternation() -> set[str]:
        nonlocal pos
        out = sequence()
        while pos < len(tokens) and tokens[pos] == "|":
            pos += 1
            out |= sequence()
        return out

    def sequence() -> set[str]:
        nonlocal pos
        out = {""}
        while pos < len(tokens) and tokens[pos] not in ("|", ")"):
            if tokens[pos] == "(":
                pos += 1
                part = alternation()
                pos += 1  # the closing ")"
            else:
                part = {tokens[pos][1:-1]}
                pos += 1
            if pos < len(tokens) and tokens[pos] == "?":
                pos += 1
                part = part | {""}
            out = {a + b for a in out for b in part}
        return out

    return alternation() - {""}


def test_a_plan_for_one_item_ends_with_the_line_that_makes_it(kb):
    r = _rules(code_form_grammar(kb, target={"wooden_pickaxe": 1}))
    assert r["root"] == "wayline{0,15} doneline"
    assert _names(r["doneitem"]) == {"wooden_pickaxe"}
    assert "wooden_pickaxe" not in _names(r["wayitem"]) and "wooden_axe" in _names(r["wayitem"])
    assert "wooden_pickaxe" in _names(r["item"])  # still a material or a tool in earlier lines
    assert "doneequip" not in r["doneline"]  # equipping it does not obtain it


def test_a_line_naming_the_targets_group_ends_the_plan_where_it_makes_the_target(kb):
    """MT1's oak stairs: the world makes oak stairs of "wooden_stairs" (the group's default kind),
    so that line obtains the target and the plan must end there instead of running to the cap.
    A group whose default is another kind (dark oak stairs, cyan dye) still needs the exact name."""
    from worlds.textworld import TextWorld

    w = TextWorld(kb)
    w.reset(seed=0, options={"inventory": {"planks": 6, "crafting_table": 1}})
    assert w.step({"action": "craft", "item": "wooden_stairs"})[4]["gained"] == {"oak_stairs": 4}
    r = _rules(code_form_grammar(kb, target={"oak_stairs": 1}))
    assert _names(r["doneitem"]) == {"oak_stairs", "wooden_stairs"}
    assert "wooden_stairs" not in _names(r["wayitem"])
    for target, group in (("dark_oak_stairs", "wooden_stairs"), ("cyan_dye", "dye")):
        r = _rules(code_form_grammar(kb, target={target: 1}))
        assert _names(r["doneitem"]) == {target} and group in _names(r["wayitem"])


def test_an_item_a_mob_drops_ends_with_the_kill_too(kb):
    r = _rules(code_form_grammar(kb, target={"wool": 1}))
    assert _names(r["donemob"]) == {"sheep"} and "sheep" not in _names(r["waymob"])
    assert "cow" in _names(r["waymob"])


def test_without_one_known_item_the_plan_is_free_up_to_the_cap(kb):
    for target in (None, {"stick": 1, "planks": 1}, {"no_such_item": 1}):
        r = _rules(code_form_grammar(kb, target=target))
        assert r["root"] == "line{1,16}" and "doneline" not in r
    assert code_form_grammar(kb, max_steps=4, target={"stick": 1}).startswith("root ::= wayline{0,3} doneline")


def test_every_rule_used_is_defined(kb):
    for target in (None, {"wool": 1}, {"iron_ingot": 2}):
        r = _rules(code_form_grammar(kb, target=target))
        bare = [re.sub(r'"[^"]*"|\[[^\]]*\]|\{[0-9,]+\}', " ", body) for body in r.values()]
        used = {w for body in bare for w in re.findall(r"[a-z]+", body)}
        assert used <= set(r), used - set(r)


# --- --recipe-grammar: each line also holds to the knowledge base's facts -----------------------


def _line(code: str, k: int = 1) -> str:
    return f"{code}  # step {k}: \n"


def test_the_recipe_grammar_refuses_what_no_recipe_or_block_gives(kb):
    """Lines the r24 adapter wrote on held-out items (docs/results/held-out-items.md): an item
    smelted from itself, the furnace's input and output swapped, a mob's drop crafted, a tool
    mined. The names grammar takes them all; the recipe grammar none, and the right lines still."""
    from tests.gbnf_regex import to_regex

    names = to_regex(code_form_grammar(kb, target={"glass_bottle": 1}), "wayline")
    facts = to_regex(code_form_grammar(kb, target={"glass_bottle": 1}, recipes=True), "wayline")
    wrong = [
        "smelt({'sand':1}, {'sand':1}, 'furnace')",
        "smelt({'sand':3}, {'glass':1}, 'furnace')",
        "craft({'feather':1}, {'leather':1}, null)",
        "craft({'glowstone':1}, {'glowstone':4}, 'crafting_table')",
        "mine({'stone_pickaxe':1}, null)",
        "craft({'stick':1}, {'piston':1, 'slime_ball':1}, null)",
    ]
    right = [
        "smelt({'glass':3}, {'sand':1}, 'furnace')",
        "mine({'sand':3}, null)",
        "craft({'stick':4}, {'planks':2}, null)",
        "craft({'glowstone':1}, {'glowstone_dust':4}, null)",
        "craft({'stone_slab':6}, {'cobblestone':3}, 'crafting_table')",  # an accepted alternative
        "kill({'chicken':1}, null)",
        "equip({'stone_pickaxe':1}, null)",
    ]
    for code in wrong:
        assert names.fullmatch(_line(code)) and not facts.fullmatch(_line(code)), code
    for code in right:
        assert facts.fullmatch(_line(code)), code


def test_the_recipe_grammar_takes_every_recipe_line_of_the_game(kb):
    """Each item's own recipe-book line, as the DEPS reader writes it (training/deps_reader.py
    fact_goal), is a line the recipe grammar takes: decoding never fights the teacher's data."""
    from tests.gbnf_regex import to_regex
    from training.deps_reader import fact_goal

    way = to_regex(code_form_grammar(kb, recipes=True), "line")
    checked = 0
    for item in kb.item_names():
        g = fact_goal(kb, item, 2)
        if g is not None:
            assert way.fullmatch(_line(g.code())), g.code()
            checked += 1
    assert checked > 250


def test_the_recipe_grammar_still_ends_with_the_target(kb):
    r = _rules(code_form_grammar(kb, target={"glass": 1}, recipes=True))
    assert r["root"] == "wayline{0,15} doneline"
    assert r["doneline"].startswith("(donesmelt)")  # glass is only smelted
    assert _names(r["donesmelt"].split(" ", 1)[1].rsplit(" ", 1)[0]) == {"glass"}


def test_recipe_grammar_is_a_dialogue_option_the_planner_sends(kb):
    """--recipe-grammar (nodes/registry.py DialogueOptions) reaches the DEPS and DEP planners, and
    the grammar they send with it is the recipe grammar (off by default: names only)."""
    from nodes.planners.base import PlanRequest
    from nodes.planners.llm import dep_planner, deps_planner
    from nodes.registry import DialogueOptions
    from nodes.settings import RunSettings
    from worlds.types import Task

    sent: list[str] = []

    class Recorder:
        supports_grammar = True

        def grammar_mode(self, gbnf: str):
            sent.append(gbnf)
            raise StopIteration  # no model: what was sent is all this test needs

    on = RunSettings(planner="deps", options={"deps": DialogueOptions(recipe_grammar=True)})
    assert not deps_planner(None, RunSettings(planner="deps")).recipe_grammar
    task = Task("glass", "heldout", "obtain 1 glass", {"glass": 1}, 100)
    req = PlanRequest(task=task, inventory={}, plans=[], descriptions=[], explanations=[], kb=kb)
    for make in (deps_planner, dep_planner):
        for settings in (on, RunSettings(planner="deps")):
            try:
                make(Recorder(), settings).plan(req)
            except StopIteration:
                pass
    assert sent[0] == sent[2] == code_form_grammar(kb, target={"glass": 1}, recipes=True)
    assert sent[1] == sent[3] == code_form_grammar(kb, target={"glass": 1})
