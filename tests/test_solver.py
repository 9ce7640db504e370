"""The oracle solver: plans that are valid in the text world, with the right quantities."""

from __future__ import annotations

from pathlib import Path

import pytest

from worlds.knowledge import VERSIONS, load_kb
from worlds.solver import Unreachable, solve, steps_estimate
from worlds.textworld import TextWorld
from worlds.types import Goal

SUITE = Path(__file__).resolve().parents[1] / "worlds" / "suites" / "deps71.yaml"


def replay(kb, goals: list[Goal], *, inventory=None, target=None, max_steps=12000, biome=None):
    """Execute goals unit by unit, as a scripted controller would; (ok, error, world)."""
    w = TextWorld(kb)
    w.reset(
        seed=0, options={"inventory": inventory or {}, "target": target or {}, "max_steps": max_steps, "biome": biome}
    )
    for g in goals:
        for item, n in g.obj.items():
            got = 0
            while got < n:
                _, _, _, trunc, info = w.step({"action": g.action, "item": item})
                if not info["ok"]:
                    return False, f"{g.code()}: {info['error']}", w
                by_unit = g.action == "equip" or (g.action == "kill" and kb.is_mob(item))
                got += 1 if by_unit else kb.count(info["gained"], item)  # kill for a rare drop: count the item
    return True, None, w


@pytest.mark.parametrize("version", VERSIONS)
def test_diamond_from_nothing_runs_in_the_textworld(version):
    kb = load_kb(version)
    goals = solve(kb, {"diamond": 1})
    ok, err, w = replay(kb, goals, target={"diamond": 1}, max_steps=12000)
    assert ok, err
    assert w.target_reached() and w.steps <= 12000
    assert steps_estimate(kb, goals) == w.steps
    actions = [(g.action, next(iter(g.obj))) for g in goals]
    # tools and platforms are made once
    for tool in ("crafting_table", "wooden_pickaxe", "stone_pickaxe", "furnace", "iron_pickaxe"):
        assert actions.count(("craft", tool)) == 1, tool
    order = [a for a in actions if a[1] in ("wooden_pickaxe", "stone_pickaxe", "iron_pickaxe", "diamond")]
    assert order == [
        ("craft", "wooden_pickaxe"),
        ("craft", "stone_pickaxe"),
        ("craft", "iron_pickaxe"),
        ("mine", "diamond"),
    ]
    smelt = next(g for g in goals if g.action == "smelt")
    assert smelt.tool == "furnace" and smelt.obj == {"iron_ingot": 3}
    assert any(kb.fuel_value(m) or kb.fuel_value_of(m) for m in smelt.materials)  # fuel is planned
    mine_diamond = goals[-1]
    assert mine_diamond.action == "mine" and mine_diamond.tool == "iron_pickaxe"


def test_goal_fields():
    kb = load_kb("1.11.2")
    goals = solve(kb, {"wooden_pickaxe": 1})
    assert [g.code() for g in goals] == [
        "mine({'log':3}, null)",  # 4 planks for the table + 3 + 2 for sticks = 9 > 8
        "craft({'planks':12}, {'log':3}, null)",
        "craft({'crafting_table':1}, {'planks':4}, null)",
        "craft({'stick':4}, {'planks':2}, null)",
        "craft({'wooden_pickaxe':1}, {'planks':3, 'stick':2}, 'crafting_table')",
    ]
    assert goals[1].text == "craft 12 planks from 3 log"


def test_six_planks_need_two_logs():
    kb = load_kb("1.11.2")
    goals = solve(kb, {"planks": 6})
    assert [(g.action, g.obj, g.materials) for g in goals] == [
        ("mine", {"log": 2}, {}),
        ("craft", {"planks": 8}, {"log": 2}),
    ]


def test_reuses_the_inventory():
    kb = load_kb("1.11.2")
    goals = solve(kb, {"wooden_pickaxe": 1}, {"planks": 10})
    assert all(g.action == "craft" for g in goals)
    assert [next(iter(g.obj)) for g in goals] == ["crafting_table", "stick", "wooden_pickaxe"]
    goals = solve(kb, {"stone_pickaxe": 1}, {"crafting_table": 1, "wooden_pickaxe": 1, "stick": 2})
    assert [(g.action, next(iter(g.obj))) for g in goals] == [("mine", "cobblestone"), ("craft", "stone_pickaxe")]
    assert solve(kb, {"stick": 3}, {"stick": 5}) == []


def test_allowed_skills_and_unreachable():
    kb = load_kb("1.11.2")
    goals = solve(kb, {"wooden_pickaxe": 1}, {"planks": 5, "crafting_table": 1}, allowed_skills={"craft"})
    assert [g.action for g in goals] == ["craft", "craft"]
    with pytest.raises(Unreachable, match="'mine', not allowed"):
        solve(kb, {"wooden_pickaxe": 1}, allowed_skills={"craft", "smelt"})
    with pytest.raises(Unreachable, match="unknown item 'foo'"):
        solve(kb, {"foo": 1})
    goals = solve(kb, {"iron_ingot": 2}, {"iron_ore": 2, "furnace": 1, "coal": 1}, allowed_skills={"smelt"})
    assert [(g.action, g.obj, g.materials) for g in goals] == [("smelt", {"iron_ingot": 2}, {"iron_ore": 2, "coal": 1})]


@pytest.mark.parametrize("version", ["1.11.2", "1.19.2"])
@pytest.mark.parametrize(
    "item,must",
    [
        ("leather_chestplate", ("kill", "cow")),
        ("bed", ("kill", "sheep")),
        ("cooked_porkchop", ("kill", "pig")),
        ("cooked_mutton", ("kill", "sheep")),
        ("shears", ("smelt", "iron_ingot")),
        ("bucket", ("smelt", "iron_ingot")),
        ("quartz_block", ("mine", "quartz")),
        ("stone", ("smelt", "stone")),
        ("torch", ("mine", "coal")),
        ("painting", ("kill", "sheep")),
    ],
)
def test_solves_and_runs(version, item, must):
    kb = load_kb(version)
    goals = solve(kb, {item: 1})
    assert must in [(g.action, next(iter(g.obj))) for g in goals]
    ok, err, w = replay(kb, goals, target={item: 1})
    assert ok, err
    assert w.target_reached()


def test_several_targets_and_counts():
    kb = load_kb("1.11.2")
    target = {"torch": 8, "stone_pickaxe": 1, "cooked_beef": 2}
    goals = solve(kb, target)
    ok, err, w = replay(kb, goals, target=target)
    assert ok, err and w.target_reached()


def test_plans_are_valid_in_another_biome():
    kb = load_kb("1.19.2")
    for item in ("wooden_pickaxe", "bed", "oak_stairs"):
        goals = solve(kb, {item: 1})
        ok, err, w = replay(kb, goals, target={item: 1}, biome="birch_forest")
        assert ok, (item, err)


def _suite():
    from worlds.tasks import load_suite

    return [(t.id, t.group, dict(t.target), t.max_steps) for t in load_suite("deps71")]


@pytest.mark.parametrize("version", VERSIONS)
def test_oracle_solves_every_deps71_task_within_its_budget(version):
    kb = load_kb(version)
    tasks = _suite()
    assert len(tasks) >= 71
    failures = []
    for tid, group, target, max_steps in tasks:
        try:
            goals = solve(kb, target)
        except Unreachable as e:
            failures.append(f"{tid}: unreachable: {e}")
            continue
        ok, err, w = replay(kb, goals, target=target, max_steps=max_steps)
        if not (ok and w.target_reached() and w.steps <= max_steps):
            failures.append(f"{tid} ({group}): {err or f'{w.steps} steps > {max_steps}'}")
    assert not failures, failures


def test_deps71_paper_objects_resolve_in_every_version():
    import yaml

    rows = yaml.safe_load(SUITE.read_text())
    for version in VERSIONS:
        kb = load_kb(version)
        for row in rows:
            obj = row.get("paper_object") or next(iter(row["target"]))
            canon = kb.canonical(obj)
            assert canon is not None, (version, obj)
            if version == "1.11.2":
                assert canon == next(iter(row["target"])), (obj, canon)
