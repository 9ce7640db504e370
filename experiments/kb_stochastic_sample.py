"""A sample of the items the oracle solves, run through the whole graph (run_episode, the
oracle planner) in the STOCHASTIC text world: the knowledge base's plans hold up when skills
fail by DEPS Table 18's rates and chance drops are drawn (docs/knowledge-base.md).

    .venv/bin/python experiments/kb_stochastic_sample.py [per-version sample, default 25]
"""

from __future__ import annotations

import random
import sys

from agent.runner import run_episode
from nodes.registry import TextWorldOptions
from nodes.settings import RunSettings
from worlds.coverage import coverage
from worlds.knowledge import VERSIONS, load_kb
from worlds.types import Task


def main(n: int = 25, seed: int = 7) -> int:
    rng = random.Random(seed)
    total = ok = 0
    for v in VERSIONS:
        kb = load_kb(v)
        solved = [r for r in coverage(v).results if r.solved and r.steps < 8000]
        failed = []
        for r in rng.sample(solved, min(n, len(solved))):
            task = Task(f"sample-{r.item}", "sample", f"Obtain {r.item}.", {r.item: 1}, 40000)
            settings = RunSettings(planner="oracle", seed=3, options={"textworld": TextWorldOptions(stochastic=True)})
            out = run_episode(task, settings, kb=kb)
            total += 1
            ok += bool(out["success"])
            if not out["success"]:
                failed.append(f"{r.item}: {out['failure_reason']}")
        print(f"{v}: {n - len(failed)} of {n} succeeded" + "".join(f"\n    {f}" for f in failed))
    print(f"all: {ok} of {total}")
    return 0 if ok == total else 1


if __name__ == "__main__":
    arg = sys.argv[1] if len(sys.argv) > 1 else "25"
    if not arg.isdigit() or not 1 <= int(arg) <= 1000:
        print(f"sample size {arg!r}: accepted: a whole number from 1 to 1000", file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(main(int(arg)))
