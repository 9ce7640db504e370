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
