"""The loop guard (issue 23, part 4): a failing episode never proposes an identical goal block
more than twice for causes it has not acted on since; the third proposal ends the episode, and the
failure says it was a loop. A block refused for want of an item that a later goal gained may come
back (a long episode's `craft planks` after its next `mine log`)."""

from __future__ import annotations

from agent.runner import run_episode
from nodes.loops import goal_block, loop_cause
from nodes.settings import RunSettings
from tests.fakes import FakeLLM
from tests.test_graph import FLAWED, KB, STONE_SWORD
from worlds.types import Task

# tests/test_graph.py's flawed plan (FLAWED) forgets the pickaxe, so it fails at step 4 every time
SAME_BLOCK = FLAWED.replace("# step 1", "# step 1: logs first")  # other comments, same goals
EXPLANATION = "I need more logs."


def _blocks(plans: list[str]) -> dict[tuple[str, ...], int]:
    out: dict[tuple[str, ...], int] = {}
    for p in plans:
        b = goal_block(p)
        if b:
            out[b] = out.get(b, 0) + 1
    return out


def test_a_planner_that_repeats_a_failed_plan_is_stopped_at_the_third_proposal():
    llm = FakeLLM([FLAWED, EXPLANATION, SAME_BLOCK, EXPLANATION, FLAWED, EXPLANATION, FLAWED])
    result = run_episode(STONE_SWORD, RunSettings(planner="deps", selector="fixed", max_rounds=12), llm=llm, kb=KB)
    assert not result["success"]
    assert max(_blocks(result["plans"]).values()) <= 2
    assert result["llm_calls"] == 5  # plan, explain, plan, explain, and the third plan, refused
    assert "looping" in result["failure_reason"] and "plans 1, 2" in result["failure_reason"]
    assert "wooden_pickaxe" in result["failure_reason"]  # the world's last cause is kept
    assert result["rounds"] == 2  # not the 12 rounds of the budget


def test_the_rider_stops_repeating_a_refused_skill():
    llm = FakeLLM(["Next skill: craft planks"])
    settings = RunSettings(planner="rider", max_rounds=12).configure("rider", revisions=5)
    result = run_episode(Task("Stick", "custom", "Obtain a stick.", {"stick": 1}, 3000), settings, llm=llm, kb=KB)
    assert not result["success"]
    assert max(_blocks(result["plans"]).values()) <= 2
    assert "looping" in result["failure_reason"] and "needs 1 log" in result["failure_reason"]


def test_a_plan_that_works_the_second_time_is_not_a_loop():
    fixed = """craft({'crafting_table':1}, {'planks':4}, null)  # step 1
craft({'wooden_pickaxe':1}, {'planks':3, 'stick':2}, 'crafting_table')  # step 2
mine({'cobblestone':2}, 'wooden_pickaxe')  # step 3
craft({'stone_sword':1}, {'cobblestone':2, 'stick':1}, 'crafting_table')  # step 4"""
    llm = FakeLLM([FLAWED, EXPLANATION, FLAWED, EXPLANATION, fixed])
    result = run_episode(STONE_SWORD, RunSettings(planner="deps", selector="fixed"), llm=llm, kb=KB)
    assert result["success"] and result["rounds"] == 2


def test_only_failures_for_a_rule_count():
    plans = [FLAWED, FLAWED]
    rule = [{"plan": p, "step": 3, "ok": False, "error": "needs a wooden_pickaxe"} for p in (0, 1)]
    chance = [{"plan": p, "step": 3, "ok": False, "error": "try again", "chance": True} for p in (0, 1)]
    assert loop_cause(plans, rule, SAME_BLOCK)
    assert loop_cause(plans, chance, FLAWED) is None  # the world said: try again
    assert loop_cause(plans, rule[:1], FLAWED) is None  # failed once: a second try is allowed
    assert loop_cause(plans, rule, FLAWED.replace("'log':3", "'log':4")) is None  # another block


def test_a_failure_the_episode_acted_on_is_not_counted_again():
    # the way a long rider episode goes: planks refused with no log held, once on the way down and
    # once when the planks ran out; after each refusal a log was mined, so the third is the way on
    replies = [
        "craft planks",  # refused: no log
        "mine log",
        "craft planks",
        "craft crafting table",
        "craft planks",  # refused again: the table took the planks, no log held
        "mine log",
        "craft planks",  # the third proposal of a block that failed twice: runs, since logs were gained
        "mine log",
        "craft planks",
        "craft stick",
        "craft wooden pickaxe",
    ]
    settings = RunSettings(planner="rider", max_rounds=12).configure("rider", revisions=5)
    task = Task("WoodenPickaxe", "custom", "Obtain a wooden pickaxe.", {"wooden_pickaxe": 1}, 3000)
    result = run_episode(task, settings, llm=FakeLLM([f"Next skill: {r}" for r in replies]), kb=KB)
    assert result["success"], result["failure_reason"]
    # proposed five times, refused twice (plans 1 and 5): counting every failure, plan 7 would have ended it
    assert _blocks(result["plans"])[("craft({'planks':1},null,null)",)] == 5
    assert len(result["plans"]) == len(replies)


def test_only_failures_not_acted_on_count():
    plans = [FLAWED, FLAWED]
    tool = {"ok": False, "error": "needs a wooden_pickaxe", "missing": {"tool": "wooden_pickaxe"}}
    fails = [{"plan": p, "step": 3, **tool} for p in (0, 1)]
    log = {"plan": 1, "step": 0, "ok": True, "gained": {"log": 3}}
    pickaxe = {"plan": 1, "step": 0, "ok": True, "gained": {"wooden_pickaxe": 1}}
    assert loop_cause(plans, [fails[0], log, fails[1]], FLAWED)  # logs gained: not what was missing
    assert loop_cause(plans, [fails[0], pickaxe, fails[1]], FLAWED) is None  # the first was acted on
    later = {**pickaxe, "plan": 2}
    assert loop_cause(plans, [*fails, later], FLAWED) is None  # both were
    nothing_named = [{k: v for k, v in f.items() if k != "missing"} for f in fails]
    assert loop_cause(plans, [*nothing_named, later], FLAWED)  # a failure that names nothing counts


def test_a_refusal_for_fuel_is_acted_on_by_anything_that_burns():
    plans = [FLAWED, FLAWED]
    fuel = {"ok": False, "error": "cannot smelt iron_ingot: needs fuel", "missing": {"fuel": 1}}
    fails = [{"plan": p, "step": 3, **fuel} for p in (0, 1)]
    coal = {"plan": 2, "step": 0, "ok": True, "gained": {"coal": 1}}
    fuels = frozenset(KB.fuels())
    assert loop_cause(plans, [*fails, coal], FLAWED)  # the fuels not given: still a loop
    assert loop_cause(plans, [*fails, coal], FLAWED, fuels) is None
    assert loop_cause(plans, [*fails, {**coal, "gained": {"iron_ore": 1}}], FLAWED, fuels)


def test_a_refusal_naming_a_group_is_acted_on_by_any_member():
    """From 1.13 on `craft planks` is refused for "needs 1 log" and `mine log` gains an oak log."""
    from worlds.knowledge import load_kb

    plans = ["craft({'planks':1}, null, null)"] * 2
    refused = {"ok": False, "error": "cannot craft planks: needs 1 log, has 0", "missing": {"log": 1}}
    fails = [{"plan": p, "step": 0, **refused} for p in (0, 1)]
    oak = {"plan": 2, "step": 0, "ok": True, "gained": {"oak_log": 1}}
    groups = load_kb("1.16.5").groups()
    assert loop_cause(plans, [*fails, oak], plans[0])  # the groups not given: still a loop
    assert loop_cause(plans, [*fails, oak], plans[0], frozenset(), groups) is None
    assert loop_cause(plans, [*fails, {**oak, "gained": {"stone": 1}}], plans[0], frozenset(), groups)
