"""`deps run TASK --world gridworld --planner oracle --controller learned --json` over seeds
FIRST..FIRST+N-1 (default 0..N-1), in one process (the same command-line path as N separate
`deps run` calls, without N interpreter starts): how often the learned controller carries
out a whole task.

    python -m experiments.learned_runs --seeds 20 --out results/stone_pickaxe_learned.jsonl
    python -m experiments.learned_runs --seeds 20 --first 100     # seeds 100-119

One JSON line per seed is appended to --out as it finishes; the count goes to stdout.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.learned_runs", description=__doc__.split("\n\n")[0])
    ap.add_argument("--task", default="obtain a stone pickaxe")
    ap.add_argument("--seeds", type=int, default=20, help="how many seeds: FIRST..FIRST+N-1 (default: 20)")
    ap.add_argument("--first", type=int, default=0, help="the first seed (default: 0; 100 for a second set)")
    ap.add_argument("--controller", default="learned", help="learned (default) or scripted, for comparison")
    ap.add_argument("--planner", default="oracle")
    ap.add_argument("--out", default=None, help="append one JSON line per seed here")
    a = ap.parse_args(argv)
    if a.seeds < 1:
        ap.error("--seeds must be 1 or more")
    from agent.cli import main as deps

    out = Path(a.out) if a.out else None
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
    ok = 0
    for seed in range(a.first, a.first + a.seeds):
        t0 = time.monotonic()
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = deps(
                [
                    "run",
                    a.task,
                    "--world",
                    "gridworld",
                    "--planner",
                    a.planner,
                    "--controller",
                    a.controller,
                    "--seed",
                    str(seed),
                    "--json",
                    "--quiet",
                ]
            )
        lines = [line for line in buf.getvalue().splitlines() if line.startswith("{")]
        res = json.loads(lines[-1]) if lines else {"success": False, "failure_reason": f"exit {rc}, no result"}
        ok += bool(res.get("success"))
        row = {
            "seed": seed,
            "rc": rc,
            "success": bool(res.get("success")),
            "env_steps": res.get("env_steps"),
            "failure_reason": res.get("failure_reason"),
            "wall_s": round(time.monotonic() - t0, 1),
        }
        print(json.dumps(row), file=sys.stderr)
        if out:
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")
    print(
        f"{a.task!r} with --controller {a.controller} --planner {a.planner}: {ok} of {a.seeds} seeds "
        f"({a.first}-{a.first + a.seeds - 1}) succeeded"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
