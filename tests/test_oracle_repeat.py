"""The oracle stops after the second identical failure with the world's cause (issue 22,
item 7): it cannot learn from the world, so a third identical round would only repeat it."""

from __future__ import annotations

from nodes.planners.base import PlanRequest
from nodes.planners.oracle import OraclePlanner
from worlds.knowledge import load_kb
from worlds.types import Task

TASK = Task("ObtainCookie", "MT1", "Obtain a cookie.", {"cookie": 1}, 3000)
CAUSE = "no cocoa pod within reach (the jungle is far)"


def _request(plans: list[str], failures: list[tuple[int, str]]) -> PlanRequest:
    outcomes = [
        {"plan": p, "step": 0, "goal": {"action": "mine", "obj": {"cocoa_beans": 1}}, "ok": False, "error": err}
        for p, err in failures
    ]
    return PlanRequest(
        TASK, {}, plans, ["failed"] * len(plans), ["no cocoa"] * len(plans), outcomes, kb=load_kb("1.11.2")
    )


def test_the_first_plan_and_the_first_repeat_are_given():
    oracle = OraclePlanner()
    first = oracle.plan(_request([], []))
    assert first.no_plan_cause() is None and "cocoa_beans" in first.text
    again = oracle.plan(_request([first.text], [(0, CAUSE)]))
    assert again.no_plan_cause() is None and again.text == first.text


def test_after_the_second_identical_failure_it_ends_with_the_worlds_cause():
    oracle = OraclePlanner()
    text = oracle.plan(_request([], [])).text
    result = oracle.plan(_request([text, text], [(0, CAUSE), (1, CAUSE)]))
    assert result.no_plan_cause() == f"the same plan failed twice at the same step, with the same cause: {CAUSE}"


def test_a_different_cause_or_a_different_plan_goes_on():
    oracle = OraclePlanner()
    text = oracle.plan(_request([], [])).text
    assert oracle.plan(_request([text, text], [(0, CAUSE), (1, "a zombie hit me")])).no_plan_cause() is None
    assert oracle.plan(_request(["mine({'log':1}, null)", text], [(0, CAUSE), (1, CAUSE)])).no_plan_cause() is None
