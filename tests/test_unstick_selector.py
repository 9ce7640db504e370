"""The unstick selector (nodes/selectors.py): plan order, but a goal that cannot run now and whose
very line the world already refused is passed over for the first later goal that can run."""

from __future__ import annotations

from types import SimpleNamespace

from nodes.selectors import UnstickSelector, refused_before
from worlds.knowledge import load_kb
from worlds.types import Goal

KB = load_kb("1.11.2")
PLANKS = Goal("craft", {"planks": 4}, {"log": 1})
STICKS = Goal("craft", {"stick": 4}, {"planks": 2})
TORCH = Goal("craft", {"torch": 1}, {"coal": 1, "stick": 1})
GOALS = [PLANKS, STICKS, TORCH]
CTX = SimpleNamespace(kb=KB)
HELD = {"coal": 1, "stick": 2}  # no log, no planks: only the torch can run


def outcome(goal: Goal, ok: bool = False, chance: bool = False) -> dict:
    return {"plan": 0, "step": 0, "goal": goal.to_dict(), "ok": ok, "chance": chance}


def choose(outcomes: list[dict]) -> tuple[int, dict]:
    return UnstickSelector().choose(GOALS, [0, 1, 2], [2], HELD, CTX, outcomes=outcomes)


def test_a_goal_refused_before_is_passed_over_for_the_first_later_goal_that_can_run():
    choice, why = choose([outcome(PLANKS)])
    assert choice == 2 and why["passed_over"] == [0, 1] and why["rule"].startswith("stuck")


def test_plan_order_where_the_goal_was_never_refused_failed_by_chance_or_ran():
    assert choose([])[0] == 0
    assert choose([outcome(PLANKS, chance=True)]) == (0, {"rule": "plan order"})  # the world said "try again"
    assert choose([outcome(PLANKS, ok=True)])[0] == 0
    assert choose([outcome(Goal("craft", {"planks": 8}, {"log": 2}))])[0] == 0  # another line for planks


def test_plan_order_where_the_first_goal_can_run_or_no_later_one_can():
    sel = UnstickSelector()
    assert sel.choose(GOALS, [0, 1, 2], [0, 2], HELD, CTX, outcomes=[outcome(PLANKS)])[0] == 0
    choice, why = sel.choose(GOALS, [0, 1, 2], [], {}, CTX, outcomes=[outcome(PLANKS)])
    assert choice == 0 and "no later goal" in why["rule"]


def test_refused_before_compares_whole_goal_lines():
    assert refused_before(PLANKS, [outcome(Goal("craft", {"planks": 4}, {"log": 1}))])
    assert not refused_before(PLANKS, [outcome(Goal("craft", {"planks": 4}, {"log": 1}, "crafting_table"))])
