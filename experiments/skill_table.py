"""Skill success and mean steps per skill: the learned controller against the scripted one.

Every skill the policy drives (mine X, kill M) is tried on the same fresh generated worlds
(seeds never used in training, the start inventory the skill needs) by both drivers, one
goal per world, batched; success is the goal's item in the inventory (or the mob killed by
the agent) within `--budget` steps. Mean steps are over the successful tries.

    python -m experiments.skill_table --episodes 20 --out results/skill_table.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def episodes_for(n: int, seed: int) -> list:
    """n fresh worlds per trained skill, in skill order."""
    from training.controller.data import TRAIN_GOALS
    from training.controller.train import eval_episodes

    eps = eval_episodes(n * len(TRAIN_GOALS), seed)
    return sorted(
        eps, key=lambda e: [f"{a}:{i}" for a, i, _, _ in TRAIN_GOALS].index(f"{e[0].action}:{next(iter(e[0].obj))}")
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.skill_table", description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=20, help="worlds per skill (default: 20)")
    ap.add_argument("--budget", type=int, default=600, help="steps one try may take (default: 600)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--greedy", action="store_true", help="argmax actions (default: sample, as the controller does)")
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args(argv)
    if a.episodes < 1 or a.budget < 1:
        ap.error("--episodes and --budget must be 1 or more")
    import torch

    from skills.learned.features import goal_key
    from skills.learned.paths import LearnedError
    from skills.learned.policy import GoalPolicy
    from training.controller.rollout import rollout
    from worlds.knowledge import load_kb

    torch.set_num_threads(1)
    kb = load_kb("1.11.2")
    try:
        policy = GoalPolicy.load("controller", kb=kb, device=a.device)
    except LearnedError as e:
        print(f"skill_table: error: {e}", file=sys.stderr)
        return 2
    eps = episodes_for(a.episodes, a.seed)
    res, wall = {}, {}
    for driver in ("scripted", "learned"):
        t0 = time.monotonic()
        res[driver] = rollout(kb, eps, driver, policy, budget=a.budget, n_envs=32, greedy=a.greedy, seed=a.seed)
        wall[driver] = round(time.monotonic() - t0, 1)
        print(f"{driver}: {sum(r['ok'] for r in res[driver])}/{len(eps)} in {wall[driver]} s", file=sys.stderr)
    rows = []
    for key in dict.fromkeys(goal_key(g) for g, _, _ in eps):
        idx = [k for k, (g, _, _) in enumerate(eps) if goal_key(g) == key]
        row = {"skill": key, "episodes": len(idx)}
        for driver in ("scripted", "learned"):
            ok = [res[driver][k] for k in idx if res[driver][k]["ok"]]
            row[f"{driver}_success"] = round(len(ok) / len(idx), 3)
            row[f"{driver}_mean_steps"] = round(float(np.mean([r["steps"] for r in ok])), 1) if ok else None
        rows.append(row)
    total = {"skill": "all", "episodes": len(eps)}
    for driver in ("scripted", "learned"):
        ok = [r for r in res[driver] if r["ok"]]
        total[f"{driver}_success"] = round(len(ok) / len(eps), 3)
        total[f"{driver}_mean_steps"] = round(float(np.mean([r["steps"] for r in ok])), 1) if ok else None
    rows.append(total)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(
            json.dumps(
                {
                    "rows": rows,
                    "budget": a.budget,
                    "seed": a.seed,
                    "greedy": a.greedy,
                    "wall_s": wall,
                    "checkpoint": policy.card.get("command"),
                },
                indent=1,
            )
            + "\n"
        )
    print("| skill | worlds | scripted success | scripted mean steps | learned success | learned mean steps |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['skill']} | {r['episodes']} | {r['scripted_success']:.2f} | {r['scripted_mean_steps']} | "
            f"{r['learned_success']:.2f} | {r['learned_mean_steps']} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
