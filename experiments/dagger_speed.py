"""How fast a DAgger round gathers the learner's pursuits of one goal on one core: the shipped
(or a given) checkpoint drives a batch of worlds for a fixed time, sampled as the controller
samples it, while the scripted expert labels the states (training/controller/data.py); prints
one JSON line with the batch steps, the pursuits finished and the expert's path searches.

    python -m experiments.dagger_speed --goal mine:flint [--seconds 30] [--checkpoint CKPT]

An older tree is measured by running this file with it first on the path
(`git archive REV | tar -x -C DIR; PYTHONPATH=DIR python experiments/dagger_speed.py ...`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import torch


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--goal", required=True, help="a training goal, e.g. mine:flint (training/controller/data.py)")
    ap.add_argument("--seconds", type=float, default=30.0, help="how long the collection runs (default 30)")
    ap.add_argument("--checkpoint", default=None, help="the learner (default: the shipped set, routed by goal)")
    ap.add_argument("--envs", type=int, default=16, help="worlds stepped together (default 16, as the pipeline)")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    from skills.learned.policy import GoalPolicy
    from training.controller import data
    from training.controller.dagger import SampledPolicy
    from worlds.gridworld import paths
    from worlds.knowledge import load_kb

    keys = [f"{act}:{item}" for act, item, _, _ in data.TRAIN_GOALS]
    if a.goal not in keys:
        print(f"dagger_speed: error: unknown goal {a.goal!r}; accepted: {', '.join(keys)}", file=sys.stderr)
        return 2
    kb = load_kb("1.11.2")
    learner = SampledPolicy(GoalPolicy.load("controller", kb=kb, device="cpu", path=a.checkpoint), a.seed)
    counts = {"steps": 0, "searches": 0, "search_s": 0.0}
    search = paths.search

    def timed(*args, **kw):
        t = time.perf_counter()
        try:
            return search(*args, **kw)
        finally:
            counts["searches"] += 1
            counts["search_s"] += time.perf_counter() - t

    class Counted:
        def act(self, obs, codes):
            counts["steps"] += 1
            return learner.act(obs, codes)

    paths.search = timed  # type: ignore[assignment]
    t0 = time.perf_counter()
    try:
        with data.weights_set({k: float(k == a.goal) for k in keys}):
            _, stats = data.collect(
                kb,
                1 << 30,
                a.seed,
                n_envs=a.envs,
                policy=Counted(),
                keep_failed=True,
                max_rows=40,
                target=True,
                seconds=a.seconds,
                scatter_p=0.0,
                source_biome_p=0.6,
                near_source_p=0.8,
            )
    finally:  # as it was, for a caller in the same process (weights_set puts the weights back)
        paths.search = search  # type: ignore[assignment]
    wall = time.perf_counter() - t0
    out = {
        "goal": a.goal,
        "wall_s": round(wall, 1),
        "batch_steps": counts["steps"],
        "pursuits": stats["pursuits"],
        "ok": stats["ok"],
        "rows": stats["rows"],
        "searches": counts["searches"],
        "search_s": round(counts["search_s"], 1),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
