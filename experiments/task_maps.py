"""The scripted expert (or the learned policy alone) on the skill table's worlds of one goal,
each map grown as a task's map is (a target given: worlds/gridworld/coverage.py short_of), one
world at a time; a JSON line per world as it ends (side, the goal's source blocks, ok, steps,
error, driver, start_clock), then the summary.

    python -m experiments.task_maps --goal mine:apple --episodes 50 --seed 1 [--first K --stride S]
    python -m experiments.task_maps --goal mine:apple --controller learned [--checkpoint PATH]
    python -m experiments.task_maps --goal mine:apple --controller learned --start task  # at dawn

The learned run is the `learned` controller as a task runs it, without the expert's fallback:
sampled actions, a unit ends after 600 steps of no progress (skills/learned/controller.py).

The skill table's own maps are 48 x 48 whatever the goal (an apple's hold 64 to 1,961 oak
leaves on seed 1); a task's are as large as its route needs, as a real world has more land.

`--start table` (the default, as every row recorded before 2026-11-29's round 31) starts each
world where the skill table does, a tenth into the day (training/controller/train.py:
eval_episodes), so that night falls some 2,100 steps in; `--start task` starts at dawn, as a
task's episode does, so that night falls after a task's 2,400 steps (worlds/coverage.py:
night_refusal).
"""

from __future__ import annotations

import argparse
import json
import sys


def run(
    goal_key: str,
    episodes: int,
    seed: int,
    first: int = 0,
    stride: int = 1,
    budget: int = 2400,
    controller: str = "scripted",
    checkpoint: str | None = None,
    start: str = "table",
):
    """Yield one row per world of the skill table's `goal_key` worlds first, first+stride...,
    driven by `controller` ('scripted', or 'learned': the policy alone, `checkpoint` or the shipped set),
    from the skill table's start time (`start` 'table') or a task's dawn ('task')."""
    import numpy as np

    from experiments.skill_table import check_skills, episodes_for
    from skills.grid_controller import GridScriptedController
    from worlds.gridworld.sources import goal_sources
    from worlds.gridworld.world import GridWorld
    from worlds.knowledge import load_kb

    bad = check_skills(goal_key)
    if bad or ":" not in goal_key or goal_key.startswith("find:"):
        raise ValueError(bad or f"--goal {goal_key!r} is not a mine or kill goal; accepted: e.g. mine:apple")
    kb = load_kb("1.11.2")
    eps = episodes_for(episodes, seed, goal_key)
    driver = GridScriptedController(kb)
    if controller == "learned":
        from skills.learned.controller import LearnedController
        from skills.learned.policy import GoalPolicy

        policy = GoalPolicy.load("controller", kb=kb, device="cpu", path=checkpoint)
        # the scripted controller built above does the functional skills only (no fallback)
        driver = LearnedController(kb, policy, driver, seed=seed, use_fallback=False)
    for k in range(first, len(eps), stride):
        goal, sd, opts = eps[k]
        if start == "task":  # a task's episode starts at dawn (no time_of_day option)
            opts = {key: v for key, v in opts.items() if key != "time_of_day"}
        w = GridWorld(kb)
        w.reset(seed=sd, options={**opts, "target": dict(goal.obj), "max_steps": budget})
        cells, _ = goal_sources(w.env, goal)
        n = int(np.isin(w.env.cells[0], sorted(cells)).sum()) if cells else 0
        clock = int(w.env.clock[0])  # the clock step the world starts at
        out = driver.run(goal, w)
        yield {
            "k": k,
            "side": int(w.env.X),
            "sources": n,
            "start_clock": clock,
            "ok": bool(out["ok"]),
            "steps": out.get("steps"),
            "error": out.get("error"),
            "driver": out.get("driver", controller),
        }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m experiments.task_maps",
        description="The scripted expert on the skill table's worlds of a goal, maps grown as a task's.",
    )
    ap.add_argument("--goal", default="mine:apple", help="a trained mine or kill goal (default: mine:apple)")
    ap.add_argument("--episodes", type=int, default=50, help="the skill table's worlds per goal (default: 50)")
    ap.add_argument("--seed", type=int, default=1, help="as the skill table's --seed (default: 1)")
    ap.add_argument("--first", type=int, default=0, help="the first world to run (default: 0)")
    ap.add_argument("--stride", type=int, default=1, help="run every S-th world (two processes: 0/2 and 1/2)")
    ap.add_argument("--budget", type=int, default=2400, help="steps a world may take (default: 2400, a task's)")
    ap.add_argument(
        "--controller",
        choices=("scripted", "learned"),
        default="scripted",
        help="who drives: the scripted expert (default) or the learned policy alone (no fallback)",
    )
    ap.add_argument("--checkpoint", help="learned: this checkpoint (default: the shipped set)")
    ap.add_argument(
        "--start",
        choices=("table", "task"),
        default="table",
        help="when each world's day starts: as the skill table's (default, a tenth into the day) or as a task's (dawn)",
    )
    a = ap.parse_args(argv)
    if min(a.episodes, a.stride, a.budget) < 1 or a.first < 0:
        ap.error("--episodes, --stride and --budget must be 1 or more, --first 0 or more")
    rows = []
    try:
        for row in run(a.goal, a.episodes, a.seed, a.first, a.stride, a.budget, a.controller, a.checkpoint, a.start):
            rows.append(row)
            print(json.dumps(row), flush=True)
    except ValueError as e:
        ap.error(str(e))
    ok = [r for r in rows if r["ok"]]
    mean = round(sum(r["steps"] for r in ok) / len(ok), 1) if ok else None
    print(
        json.dumps(
            {"goal": a.goal, "controller": a.controller, "worlds": len(rows), "ok": len(ok), "mean_steps_ok": mean}
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
