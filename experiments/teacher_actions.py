"""What the scripted experts do with the item-taking primitives, goal by goal: in N expert
pursuits of each training goal (fresh generated worlds, surface starts as the skill table's,
six in ten made where the goal's source forms), how many times they pressed `use` and
`jump_place`, beside the pursuits, successes and rows. A rule that masks an action for the
policy in some goals (skills/learned/controller.py: item_args) is checked against this first:
the teacher never taking it there is the premise.

    python -m experiments.teacher_actions --pursuits 30 --out /tmp/teacher.json
    python -m experiments.teacher_actions --pursuits 30 --goals mine:lava_bucket,mine:flint
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

COUNTED = ("use", "jump_place")


def teacher_actions(kb, goal: str, pursuits: int, seed: int) -> dict:
    """One goal's row: pursuits, successes, rows and the times each COUNTED primitive was taken."""
    from training.controller import data
    from training.controller.pipeline import goals
    from worlds.gridworld.spec import PRIMITIVES

    with data.weights_set({k: (1.0 if k == goal else 1e-9) for k in goals()}):
        rows, stats = data.collect(kb, pursuits, seed, n_envs=16, scatter_p=0.0, target=True, source_biome_p=0.6)
    taken = Counter(PRIMITIVES[int(a)] for a in rows["action"])
    return {
        "pursuits": int(stats["pursuits"]),
        "ok": int(stats["ok"]),
        "rows": int(len(rows["action"])),
        **{p: taken.get(p, 0) for p in COUNTED},
    }


def main(argv: list[str] | None = None) -> int:
    import torch

    from training.controller.pipeline import goals
    from worlds.knowledge import load_kb

    ap = argparse.ArgumentParser(prog="python -m experiments.teacher_actions", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pursuits", type=int, default=30, help="expert pursuits per goal (default: 30)")
    ap.add_argument("--goals", default="", help="comma list of goal keys (default: every training goal)")
    ap.add_argument("--seed", type=int, default=7, help="the worlds' seed (default: 7)")
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    a = ap.parse_args(argv)
    known = goals()
    wanted = [g.strip() for g in a.goals.split(",") if g.strip()] or known
    unknown = [g for g in wanted if g not in known]
    if unknown or a.pursuits < 1:
        what = f"unknown goal {unknown[0]!r}" if unknown else f"--pursuits {a.pursuits}"
        ap.error(f"{what}; accepted: --pursuits 1 or more, goals among {', '.join(known)}")
    torch.set_num_threads(1)
    kb = load_kb("1.11.2")
    out = {}
    print(f"| goal | pursuits | ok | rows | {' | '.join(COUNTED)} |\n|---|---|---|---|{'---|' * len(COUNTED)}")
    for g in wanted:
        r = out[g] = teacher_actions(kb, g, a.pursuits, a.seed)
        print(f"| {g} | {r['pursuits']} | {r['ok']} | {r['rows']} | {' | '.join(str(r[p]) for p in COUNTED)} |")
        sys.stdout.flush()
        if a.out:  # written as each goal is made
            Path(a.out).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
