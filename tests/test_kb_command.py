"""`deps kb` (issue 22, item 7): the raw materials it prints are what its own plan gathers,
and an item nothing gives prints no "None steps"."""

from __future__ import annotations

import json

import pytest

from agent.cli import main
from worlds.knowledge import load_kb
from worlds.solver import plan_raw_materials, solve


@pytest.mark.parametrize("version", ("1.11.2", "1.19.2"))
@pytest.mark.parametrize("item", ["iron_pickaxe", "flint_and_steel", "cookie"])
def test_raw_materials_are_what_the_plan_mines_and_hunts(capsys, version, item):
    assert main(["kb", item, "--mc-version", version, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    mined = {}
    for line in info["oracle_plan"]:
        if line.startswith(("mine(", "kill(")):
            obj = json.loads(line[line.index("(") + 1 : line.index("}") + 1].replace("'", '"'))
            for k, n in obj.items():
                mined[k] = mined.get(k, 0) + n
    kb = load_kb(version)
    assert info["raw_materials"] == plan_raw_materials(kb, solve(kb, {item: 1}), {item: 1})
    for k, n in mined.items():
        if not kb.is_mob(k):
            assert info["raw_materials"][k] == n


@pytest.mark.parametrize(
    ("item", "raw"), [("bow", "2 log, 3 string"), ("leather", "1 leather"), ("string", "1 string")]
)
def test_a_kill_s_by_products_are_not_raw_materials(capsys, item, raw):
    """A bow's three spiders drop string and spider eyes; only the string goes into the bow."""
    assert main(["kb", item]) == 0
    assert f"raw materials: {raw}\n" in capsys.readouterr().out


def test_iron_pickaxe_counts_the_tools_materials_too(capsys):
    assert main(["kb", "iron_pickaxe"]) == 0
    out = capsys.readouterr().out
    assert "raw materials: 4 log, 11 cobblestone, 3 iron_ore" in out


def test_an_item_nothing_gives_says_so_without_none_steps(capsys):
    assert main(["kb", "bedrock"]) == 0
    cap = capsys.readouterr()
    assert "None" not in cap.out and "oracle plan: none" in cap.out
    assert "it needs the creative inventory" in cap.err


def test_deps_kb_names_the_items_an_old_id_became(capsys):
    from agent.cli import main

    assert main(["kb", "skull", "--mc-version", "1.16.5"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "became several items" in err and "wither_skeleton_skull" in err
