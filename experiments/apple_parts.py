"""The apple by the shipped networks in turn: what a felling policy lacks (issue 20, round 33).

    python -m experiments.apple_parts --episodes 50 --seed 1 [--first K --stride S] [--finish log|expert|none]
        [--finisher CKPT]

The felling expert farms an apple as players do (skills/experts.py): it fells oak trunks whole,
so that their leaves decay (worlds/gridworld/decay.py) and drop what a hand would, and picks up
what falls. This runs the same three jobs with the shipped networks, one job a step, on the skill
table's apple worlds grown as a task's maps, from dawn (as `experiments.task_maps --start task`):

- an apple lies on the ground: the egg's network walks to it, its target map the apples lying
  about (sense.PickUp), as it walks to eggs;
- else a trunk already cut at its foot still holds logs (`hanging`: logs with air under them,
  and the logs above those): who finishes it is `--finish`: `log` (the log's network, its target
  map those logs; `--finisher` names another checkpoint for it), `expert` (the scripted felling
  expert, so not a policy figure: the most a learned finisher could give here), or `none` (no
  finishing, the next job goes on);
- else the log's network fells oaks, its target map oak logs only.

Actions are sampled as the learned controller samples them (skills/learned/controller.py), with
its idle and shield rules, from one generator per process, so a world's try also depends on the
worlds run before it there: repeat a figure with the same --first, --stride and --last. There is
no 600-step stall rule, only the task's 2,400 steps. One JSON line per world as it ends: ok,
steps, the steps each job drove, oak logs felled, oak leaves gone, logs left hanging; then the
summary.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

FINISHERS = ("log", "expert", "none")


def hanging(env: Any, i: int, logs: list[int]) -> list[tuple[int, int, int]]:
    """(x, y, z) of world i's logs (cell ids `logs`) that hang in a trunk cut at its foot: a log
    with air under it, and every log above it in its column."""
    cells = env.cells[i]  # [x, z, y]
    is_log = np.isin(cells, logs)
    cut = np.zeros_like(is_log)
    cut[:, :, 1:] = is_log[:, :, 1:] & (cells[:, :, :-1] == 0)
    rest = is_log & (np.cumsum(cut, axis=2) > 0)
    return [(int(x), int(y), int(z)) for x, z, y in np.argwhere(rest)]


def run(
    episodes: int,
    seed: int,
    first: int = 0,
    stride: int = 1,
    finish: str = "log",
    budget: int = 2400,
    last: int = 0,
    finisher: str | None = None,
):
    """Yield one row per world first, first + stride, ... (below `last`, where given) of the skill
    table's apple worlds."""
    from experiments.skill_table import episodes_for
    from skills.experts import Expert
    from skills.grid_controller import GridScriptedController
    from skills.learned import sense
    from skills.learned.controller import LearnedController
    from skills.learned.idle import IdleActions
    from skills.learned.policy import GoalPolicy
    from skills.learned.shield import Shield
    from skills.learned.strike import Quarry
    from worlds.gridworld.ground import ground_items
    from worlds.gridworld.sources import felling_sources
    from worlds.gridworld.world import GridWorld
    from worlds.knowledge import load_kb
    from worlds.types import Goal

    kb = load_kb("1.11.2")
    policy = GoalPolicy.load("controller", kb=kb, device="cpu")
    ctl = LearnedController(kb, policy, GridScriptedController(kb), seed=seed, use_fallback=False)
    fin = ctl
    if finisher:
        fin_policy = GoalPolicy.load("controller", kb=kb, device="cpu", path=finisher)
        fin = LearnedController(kb, fin_policy, GridScriptedController(kb), seed=seed + 1, use_fallback=False)
    log, egg, apple = Goal("mine", {"log": 1}), Goal("mine", {"egg": 1}), Goal("mine", {"apple": 1})
    eps = episodes_for(episodes, seed, "mine:apple")
    for k in range(first, min(last or len(eps), len(eps)), stride):
        goal, sd, opts = eps[k]
        w = GridWorld(kb)
        opts = {key: v for key, v in opts.items() if key != "time_of_day"}  # a task's dawn
        w.reset(seed=sd, options={**opts, "target": dict(goal.obj), "max_steps": budget})
        env, i = w.env, w.i
        oak = sorted(felling_sources(env, "apple"))
        leaf = env.vocab.cell_id["oak_leaves"]
        oak_only = np.zeros(len(env.vocab.cells), bool)
        oak_only[oak] = True
        fell_lut = (oak_only, np.zeros(len(env.vocab.mobs), bool))
        pick_lut = sense.PickUp(np.zeros(len(env.vocab.cells), bool), np.zeros(len(env.vocab.mobs), bool), "apple")
        logs0, leaves0 = int(np.isin(env.cells[i], oak).sum()), int((env.cells[i] == leaf).sum())
        idle, shield, expert = IdleActions(1), Shield(env.rules), None
        mining = Quarry(env, [log])  # the log's and the egg's mine goals hunt nothing: a block's attack is held
        drove = {"pick": 0, "finish": 0, "fell": 0}
        ok, error = False, f"ran out of environment steps ({budget})"
        while w.steps < budget:
            if getattr(w, "dead", False):
                ok, error = False, getattr(w, "death", None) or "the agent died"
                break
            rest = hanging(env, i, oak) if finish != "none" else []
            if ground_items(env, i, "apple"):
                job, sub, lut = "pick", egg, pick_lut
            elif rest:
                job, sub, lut = "finish", log, sense.Cells(env, rest)
            else:
                job, sub, lut = "fell", log, fell_lut
            drove[job] += 1
            if job == "finish" and finish == "expert":
                expert = expert or Expert(env, i, apple)
                a = expert.act()
                info = w.step(a if a is not None else {"action": "noop"})[4]
                expert.feedback(info)
                expert = None if a is None or expert.result is not None else expert
            else:
                expert = None
                c = fin if job == "finish" else ctl
                code = c.policy.codes([sub])
                info = c._step(w, c._observe(w, lut, code), sub, code, idle, shield, mining)
            if kb.count(info.get("gained", {}), "apple"):
                ok, error = True, None
                break
        yield {
            "k": k,
            "side": int(env.X),
            "ok": ok,
            "steps": int(w.steps),
            "error": error,
            "drove": drove,
            "oak_logs_felled": logs0 - int(np.isin(env.cells[i], oak).sum()),
            "oak_leaves_gone": leaves0 - int((env.cells[i] == leaf).sum()),
            "logs_hanging": len(hanging(env, i, oak)),
        }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m experiments.apple_parts",
        description="The apple by the shipped networks in turn (fell, finish a trunk, pick up), on a task's maps.",
    )
    ap.add_argument("--episodes", type=int, default=50, help="the skill table's apple worlds (default: 50)")
    ap.add_argument("--seed", type=int, default=1, help="as the skill table's --seed (default: 1)")
    ap.add_argument("--first", type=int, default=0, help="the first world to run (default: 0)")
    ap.add_argument("--stride", type=int, default=1, help="run every S-th world (two processes: 0/2 and 1/2)")
    ap.add_argument("--last", type=int, default=0, help="stop before this world (default: run to the end)")
    ap.add_argument(
        "--finish",
        choices=FINISHERS,
        default="log",
        help="who fells what is left of a cut trunk: the log's network (default), the scripted expert "
        "(an upper bound, not a policy figure), or no one",
    )
    ap.add_argument(
        "--finisher",
        default="",
        metavar="CKPT",
        help="with --finish log: the checkpoint whose log network finishes (default: the shipped set's)",
    )
    a = ap.parse_args(argv)
    if min(a.episodes, a.stride) < 1 or min(a.first, a.last) < 0:
        ap.error("--episodes and --stride must be 1 or more, --first and --last 0 or more")
    rows = []
    for row in run(a.episodes, a.seed, a.first, a.stride, a.finish, last=a.last, finisher=a.finisher or None):
        rows.append(row)
        print(json.dumps(row), flush=True)
    print(
        json.dumps(
            {
                "finish": a.finish,
                "finisher": a.finisher or "shipped",
                "worlds": len(rows),
                "ok": sum(r["ok"] for r in rows),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
