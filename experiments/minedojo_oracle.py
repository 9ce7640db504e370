"""The oracle planner through the whole agent graph on `--world minedojo` (the stand-in
simulator): one episode per task of a suite's groups, success and MineDojo steps per task.

    python -m experiments.minedojo_oracle --groups MT1,MT2 --seed 0

Registers the `minedojo` world in the parts' registry for this run if the build has not yet.
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", default="deps71")
    p.add_argument("--groups", default="MT1,MT2", help="task groups, comma-separated (default: MT1,MT2)")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)

    from agent import runner
    from nodes import registry
    from nodes.settings import RunSettings
    from worlds.knowledge import load_kb
    from worlds.tasks import load_suite

    if "minedojo" not in registry.names("world"):
        registry.register(
            "world",
            "minedojo",
            "worlds.minedojo:make_world",
            help="MineDojo (stand-in)",
            options="worlds.minedojo:MineDojoOptions",
        )
    kb = load_kb("1.11.2")
    groups = set(a.groups.split(","))
    rows = []
    t0 = time.time()
    for task in load_suite(a.suite):
        if task.group not in groups:
            continue
        rec = runner.run_episode(
            runner.resolve_task(task.id, kb), RunSettings(world="minedojo", planner="oracle", seed=a.seed), kb=kb
        )
        rows.append(
            {
                "task": task.id,
                "group": task.group,
                "success": rec["success"],
                "steps": rec["env_steps"],
                "failure": rec["failure_reason"],
            }
        )
        print(json.dumps(rows[-1]), file=sys.stderr)
    ok = sum(r["success"] for r in rows)
    print(
        json.dumps(
            {
                "suite": a.suite,
                "groups": sorted(groups),
                "seed": a.seed,
                "episodes": len(rows),
                "success": ok,
                "wall_s": round(time.time() - t0, 1),
                "rows": rows,
            }
        )
    )


if __name__ == "__main__":
    main()
