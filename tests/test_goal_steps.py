"""experiments/goal_steps.py: an eval's steps summed goal by goal from its traces."""

from __future__ import annotations

import json

from experiments.goal_steps import goal_steps, main, table


def _trace(folder, outcomes):
    folder.mkdir(parents=True)
    lines = [{"event": "start"}] + [
        {"event": "update", "node": "execute", "update": {"outcomes": [o]}} for o in outcomes
    ]
    (folder / "trace.jsonl").write_text("\n".join(json.dumps(x) for x in lines))


def _o(action, item, n, steps, ok, gained=None):
    return {"goal": {"action": action, "obj": {item: n}}, "steps": steps, "ok": ok, "gained": gained or {}}


def test_steps_and_units_per_goal_and_the_ratio_between_two_runs(tmp_path, capsys):
    _trace(
        tmp_path / "a" / "ep0",
        [_o("mine", "iron_ore", 3, 300, True), _o("craft", "bucket", 1, 1, True), _o("kill", "cow", 1, 50, True)],
    )
    _trace(tmp_path / "a" / "ep1", [_o("mine", "iron_ore", 3, 200, False, {"iron_ore": 1, "cobblestone": 9})])
    _trace(tmp_path / "b" / "ep0", [_o("mine", "iron_ore", 3, 60, True), _o("kill", "cow", 1, 25, True)])
    a, b = goal_steps(tmp_path / "a"), goal_steps(tmp_path / "b")
    assert a == {"mine:iron_ore": [500, 4, 2], "kill:cow": [50, 1, 1]}  # craft is not counted
    text = table(a, b)
    assert "| mine:iron_ore | 500 | 4 | 2 | 60 | 3 | 6.25 |" in text  # 125 steps a unit against 20
    assert "| kill:cow | 50 | 1 | 1 | 25 | 1 | 2.00 |" in text
    assert main([str(tmp_path / "a"), str(tmp_path / "missing")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_the_loops_own_no_plan_outcome_has_no_goal_and_is_skipped(tmp_path):
    """An episode the loop gave up on ("no plan is possible") records an outcome with goal None;
    a real enchanting-table trace had one, and the tool stopped on it with a TypeError."""
    no_plan = {"plan": 3, "step": None, "goal": None, "ok": False, "steps": 0, "gained": {}}
    _trace(tmp_path / "a" / "ep0", [_o("mine", "reeds", 1, 600, False), no_plan])
    assert goal_steps(tmp_path / "a") == {"mine:reeds": [600, 0, 1]}
