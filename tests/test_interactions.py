"""Items got by using a held item on a mob or a block (worlds/data/interactions.yaml): a
bucket on a cow gives a milk bucket, done with the `mine` skill, the bucket consumed."""

from __future__ import annotations

import pytest

from tests.test_solver import replay
from worlds.knowledge import VERSIONS, load_kb
from worlds.options import best_option, closure, how_to_make, is_use, unit_costs
from worlds.solver import solve, steps_estimate
from worlds.textworld import TextWorld


def make(kb, inventory=None, **kw):
    w = TextWorld(kb, **kw)
    w.reset(seed=0, options={"inventory": inventory or {}})
    return w


def mine(w, item):
    return w.step({"action": "mine", "item": item})[4]


@pytest.mark.parametrize("version", VERSIONS)
def test_knowledge_base_knows_the_interactions(version):
    kb = load_kb(version)
    milk = kb.interactions("milk_bucket")
    assert [(i.source, i.on, i.uses, i.skill) for i in milk] == [
        ("cow", "mob", "bucket", "mine"),
        ("mooshroom", "mob", "bucket", "mine"),
    ]
    assert [(i.source, i.uses) for i in kb.interactions("water_bucket")] == [("water", "bucket")]
    assert [(i.source, i.uses) for i in kb.interactions("lava_bucket")] == [("lava", "bucket")]
    assert [(i.source, i.uses) for i in kb.interactions("mushroom_stew")] == [("mooshroom", "bowl")]
    assert kb.interactions("diamond") == [] and kb.mine_sources("milk_bucket") == []
    o = best_option(kb, "milk_bucket")
    assert o.kind == "mine" and is_use(o) and o.inputs == {"bucket": 1} and o.tool is None
    assert how_to_make(kb, "milk_bucket") == "mine 1 milk_bucket with a bucket (use it on a cow; the bucket is used up)"
    assert how_to_make(kb, "water_bucket").endswith("(use it on water; the bucket is used up)")
    # the bucket's materials are the raw materials; the cow is not one
    assert set(closure(kb, "milk_bucket")) >= {"iron_ore" if version != "1.19.2" else "raw_iron"}
    uc = unit_costs(kb)
    assert uc["bucket"] < uc["milk_bucket"] < uc["bucket"] + 100


def test_version_limited_interactions():
    kb11, kb16, kb19 = (load_kb(v) for v in VERSIONS)
    assert kb11.interactions("cod_bucket") == [] and not kb11.is_item("cod_bucket")
    assert [(i.source, i.uses) for i in kb16.interactions("cod_bucket")] == [("cod", "water_bucket")]
    assert kb16.interactions("powder_snow_bucket") == []  # since 1.17
    assert [(i.source, i.uses) for i in kb19.interactions("powder_snow_bucket")] == [("powder_snow", "bucket")]


def test_use_costs_come_from_skill_costs():
    kb = load_kb("1.11.2")
    o = best_option(kb, "milk_bucket")
    assert o.unit_cost == 68 and o.success_rate == 0.60  # row 12: reach a cow (20 + 0.2*600*0.4)
    lava = best_option(kb, "lava_bucket")
    assert lava.unit_cost == 380  # row 7: found underground, like the ores


def test_milk_from_a_cow_with_a_bucket():
    kb = load_kb("1.11.2")
    w = make(kb, {"bucket": 2})
    info = mine(w, "milk_bucket")
    assert info["ok"] and info["gained"] == {"milk_bucket": 1} and info["cost"] == 68
    assert w.inventory == {"bucket": 1, "milk_bucket": 1}  # one bucket consumed, the filled one given
    info = mine(w, "Milk Bucket")
    assert info["ok"] and w.inventory == {"milk_bucket": 2}
    assert mine(w, "water_bucket")["missing"] == {"bucket": 1}
    w = make(kb, {"bucket": 1, "bowl": 1})
    assert mine(w, "water_bucket")["gained"] == {"water_bucket": 1}
    assert mine(w, "mushroom_stew")["gained"] == {"mushroom_stew": 1}
    assert w.inventory == {"water_bucket": 1, "mushroom_stew": 1}


def test_failure_without_a_bucket():
    kb = load_kb("1.11.2")
    w = make(kb, {"iron_ingot": 3, "crafting_table": 1})
    info = mine(w, "milk_bucket")
    assert not info["ok"]
    assert "needs a bucket" in info["error"] and info["error"] == "needs a bucket to get milk_bucket from a cow"
    assert info["missing"] == {"bucket": 1}
    assert info["cost"] == 0 and w.steps == 0  # nothing to try with: no time spent
    assert w.inventory == {"iron_ingot": 3, "crafting_table": 1}
    # the other skills point at the right one
    assert "using a bucket on a cow (mine milk_bucket)" in w.step({"action": "kill", "item": "milk_bucket"})[4]["error"]
    assert "cannot be crafted" in w.step({"action": "craft", "item": "milk_bucket"})[4]["error"]


def test_stochastic_failure_keeps_the_bucket():
    kb = load_kb("1.11.2")
    w = make(kb, {"bucket": 1}, stochastic=True)
    for _ in range(50):
        info = mine(w, "milk_bucket")
        if not info["ok"]:
            assert info["chance"] and w.inventory == {"bucket": 1} and info["cost"] == 68
        else:
            break
    assert w.inventory == {"milk_bucket": 1}


@pytest.mark.parametrize("version", VERSIONS)
def test_solver_plans_milk_from_nothing_and_it_runs(version):
    kb = load_kb(version)
    goals = solve(kb, {"milk_bucket": 1})
    steps = [(g.action, next(iter(g.obj))) for g in goals]
    assert steps.index(("craft", "bucket")) < steps.index(("mine", "milk_bucket")) == len(steps) - 1
    bucket = goals[steps.index(("craft", "bucket"))]
    assert bucket.materials == {"iron_ingot": 3} and bucket.tool == "crafting_table"
    last = goals[-1]
    assert last.materials == {"bucket": 1} and last.code() == "mine({'milk_bucket':1}, 'bucket')"
    ok, err, w = replay(kb, goals, target={"milk_bucket": 1})
    assert ok, err
    assert w.target_reached() and w.steps == steps_estimate(kb, goals)
    assert "bucket" not in w.inventory  # the bucket became the milk bucket


def test_solver_uses_what_is_held_and_makes_one_bucket_per_fill():
    kb = load_kb("1.11.2")
    goals = solve(kb, {"milk_bucket": 1}, {"crafting_table": 1, "iron_ingot": 3})
    assert [g.code() for g in goals] == [
        "craft({'bucket':1}, {'iron_ingot':3}, 'crafting_table')",
        "mine({'milk_bucket':1}, 'bucket')",
    ]
    assert solve(kb, {"milk_bucket": 1}, {"bucket": 1})[0].code() == "mine({'milk_bucket':1}, 'bucket')"
    target = {"milk_bucket": 2, "water_bucket": 1}
    goals = solve(kb, target)
    assert sum(g.obj.get("bucket", 0) for g in goals if g.action == "craft") == 3
    ok, err, w = replay(kb, goals, target=target)
    assert ok, err and w.target_reached()


def test_skill_not_allowed():
    from worlds.solver import Unreachable

    kb = load_kb("1.11.2")
    with pytest.raises(Unreachable, match="'mine', not allowed"):
        solve(kb, {"milk_bucket": 1}, {"bucket": 1}, allowed_skills={"craft", "kill"})


def test_plan4mc_oracle_success_is_40_of_40():
    from worlds.tasks import load_suite

    tasks = load_suite("plan4mc")
    assert len(tasks) == 40
    failures = []
    for t in tasks:
        kb = load_kb("1.11.2")
        goals = solve(kb, t.target, t.inventory)
        ok, err, w = replay(kb, goals, inventory=t.inventory, target=t.target, max_steps=t.max_steps, biome=t.biome)
        if not (ok and w.target_reached() and w.steps <= t.max_steps):
            failures.append(f"{t.id}: {err or f'{w.steps} steps > {t.max_steps}'}")
    assert not failures, failures
