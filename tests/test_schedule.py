"""Longest expected first when several workers share an eval's queue (evaluation/schedule.py)."""

from __future__ import annotations

from evaluation.schedule import expected_steps, longest_first
from worlds.knowledge import load_kb
from worlds.tasks import load_suite

KB = load_kb("1.11.2")


def _deps71(*ids: str):
    by_id = {t.id: t for t in load_suite("deps71")}
    return [by_id[i] for i in ids]


def test_the_chest_before_the_planks_and_each_tasks_episodes_together():
    planks, chest, sticks = _deps71("CraftPlanks", "CraftChest", "CraftSticks")
    pending = [(t, e, 100 * i + e) for i, t in enumerate((planks, chest, sticks)) for e in range(2)]
    order = [(t.id, e) for t, e, _ in longest_first(pending, "1.11.2")]
    assert order == [
        ("CraftChest", 0),
        ("CraftChest", 1),
        ("CraftSticks", 0),
        ("CraftSticks", 1),
        ("CraftPlanks", 0),
        ("CraftPlanks", 1),
    ]
    assert sorted(longest_first(pending, "1.11.2"), key=pending.index) == pending  # nothing lost or added


def test_the_estimate_follows_the_recipe_book_and_what_is_held():
    (chest,) = _deps71("CraftChest")
    (diamond,) = _deps71("ObtainDiamond")
    assert expected_steps(diamond, KB) > expected_steps(chest, KB) > 0
    # three logs in hand: no tree to fell, a shorter plan
    assert expected_steps(chest, KB, {"log": 3}) < expected_steps(chest, KB)


def test_a_task_without_a_plan_counts_as_its_budget():
    find = load_suite("mp5-context")[0]
    assert expected_steps(find, KB) == find.max_steps
    (chest,) = _deps71("CraftChest")
    blocked = type(chest)(**{**chest.__dict__, "id": "Blocked", "target": {"no_such_item": 1}})
    assert expected_steps(blocked, KB) == chest.max_steps


def test_equal_estimates_keep_the_suites_order():
    sign, fence = _deps71("CraftSign", "CraftFence")
    assert expected_steps(sign, KB) == expected_steps(fence, KB)
    for first, second in ((sign, fence), (fence, sign)):
        assert [t.id for t, _, _ in longest_first([(first, 0, 0), (second, 0, 0)], "1.11.2")] == [first.id, second.id]
