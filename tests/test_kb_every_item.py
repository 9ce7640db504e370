"""Every item of every supported version through the oracle (issue 22, "done when"): it is
solved in the text world, or refused with a reason that names the feature of the game the
text world does not model.  No crash, no loop (the solver and the run are both bounded)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from worlds.coverage import check_item, coverage, run_plan
from worlds.knowledge import DATA, VERSIONS, load_kb
from worlds.solver import Unreachable, solve


def _features() -> set[str]:
    import yaml

    with open(DATA / "unmodelled.yaml") as f:
        return {x["feature"] for x in yaml.safe_load(f)["features"]}


@pytest.mark.parametrize("version", VERSIONS)
def test_every_item_is_solved_in_the_text_world_or_refused_naming_the_missing_feature(version):
    c = coverage(version)
    assert len(c.results) == len(load_kb(version).item_names())
    unexplained = [(r.item, r.reason) for r in c.results if not r.solved and r.feature not in _features()]
    assert not unexplained, unexplained[:10]
    assert c.solved > c.refused


@pytest.mark.parametrize(
    "version, item",
    [
        ("1.11.2", "flint_and_steel"),
        ("1.11.2", "redstone_torch"),
        ("1.16.5", "honey_block"),
        ("1.19.2", "white_concrete"),
        ("1.19.2", "spyglass"),
        ("1.16.5", "jack_o_lantern"),
    ],
)
def test_overworld_items_that_were_refused_are_solved(version, item):
    r = check_item(load_kb(version), item)
    assert r.solved, r.reason


@pytest.mark.parametrize(
    "version, item, feature",
    [
        ("1.11.2", "blaze_rod", "the Nether"),
        ("1.16.5", "elytra", "the End"),
        ("1.19.2", "saddle", "loot chests"),
        ("1.11.2", "fish", "fishing"),
        ("1.16.5", "bell", "villages and trading"),
        ("1.19.2", "bedrock", "the creative inventory"),
        ("1.19.2", "diamond_ore", "Silk Touch"),
        ("1.16.5", "brewing_stand", "the Nether"),
    ],
)
def test_a_refusal_names_the_missing_feature(version, item, feature):
    r = check_item(load_kb(version), item)
    assert not r.solved and r.feature == feature, r.reason


@st.composite
def _case(draw):
    version = draw(st.sampled_from(VERSIONS))
    kb = load_kb(version)
    names = kb.item_names()
    target = {draw(st.sampled_from(names)): draw(st.integers(1, 3))}
    held = draw(st.dictionaries(st.sampled_from(names), st.integers(1, 12), max_size=4))
    return version, target, held


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_case())
def test_any_target_from_any_inventory_is_planned_and_run_or_refused_with_a_reason(case):
    version, target, held = case
    kb = load_kb(version)
    try:
        goals = solve(kb, target, held)
    except Unreachable as e:
        assert str(e) and "\n" not in str(e)
        return
    from worlds.textworld import TextWorld

    w = TextWorld(kb)
    w.reset(seed=0, options={"inventory": held, "target": target, "max_steps": 10**8})
    for g in goals:
        for item, n in g.obj.items():
            got, by_unit = 0, g.action == "equip" or (g.action == "kill" and kb.is_mob(item))
            while got < n:
                _, _, _, _, info = w.step({"action": g.action, "item": item})
                assert info["ok"], (g.code(), info["error"], target, held)
                got += 1 if by_unit else kb.count(info["gained"], item)
    assert w.target_reached(), (target, held, [g.code() for g in goals])


def test_run_plan_stops_at_its_action_bound_and_the_solver_at_its_try_bound(monkeypatch):
    import worlds.coverage
    import worlds.solver
    from worlds.types import Goal

    monkeypatch.setattr(worlds.coverage, "MAX_ACTIONS", 1000)
    monkeypatch.setattr(worlds.solver, "MAX_TRIES", 1000)
    kb = load_kb("1.11.2")
    ok, err, _ = run_plan(kb, [Goal("mine", {"apple": 6}, {}, None)], {"apple": 6})  # 1200 breaks
    assert not ok and "more than 1000 actions" in err
    with pytest.raises(Unreachable, match="did not drop in 1000 tries"):
        solve(kb, {"apple": 6})
