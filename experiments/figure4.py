"""DEPS Figure 4 on the grid world: which parallel goal to run first.

Each episode is a flat map (a scatter map, training/controller/scenes.py) with k goals of
different kinds whose preconditions all hold at the start (a tree to fell, sand to dig,
animals to kill), each source placed at its own distance (2 to `--max-distance` cells)
from the agent, in a random direction; the plan lists them in a
random order. A selector picks the next goal whenever the previous one is done (fixed: the
plan's order, which is what `dep` does; random; horizon: the trained predictor mu(h|s,g),
the `deps` planner's default on the grid world; oracle: the world's true path distance),
and the scripted expert carries the goal out, so only the selector differs between rows.
An episode succeeds at budget B when all k goals are done within B steps; one batched run
per (k, selector) gives the whole success-against-budget curve.

    python -m experiments.figure4 --episodes 50 --out results/figure4.jsonl

Rows are appended to --out as each (k, selector) cell finishes; the table goes to stdout.
The spread is the 95% interval of the success rate over episodes (Wilson), and the paired
difference horizon - fixed / horizon - random is bootstrapped over the same episodes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

SIZE = 48
SCATTER = ("log", "sand", "cow", "pig", "sheep", "chicken")  # training/controller/scenes.py's kinds
SELECTOR_NAMES = ("fixed", "random", "horizon", "oracle")
BUDGETS = (50, 60, 80, 100, 120, 150)
MAX_RETRIES = 2  # a goal the expert fails is tried again this many times before the episode fails


def scenario(k: int, seed: int, max_distance: int = 12) -> tuple[list[Any], dict]:
    """k goals of different kinds (plan order) and the reset options of their scatter map."""
    from training.controller.scenes import SCATTER_GOALS, scatter_layout
    from worlds.types import Goal

    rng = np.random.default_rng([k, seed, 4])
    pool = list(SCATTER_GOALS)
    kinds = [pool[int(j)] for j in rng.choice(len(pool), k, replace=False)]
    layout = scatter_layout(rng, kinds, (SIZE, SIZE), max_distance=max_distance)
    goals = [Goal(action, {item: 1}) for action, item in kinds]
    return goals, {"layout": layout, "time_of_day": 0.1}


def make_selector(name: str, seed: int, predictor: Any = None) -> Any:
    from nodes.horizon import HorizonSelector
    from nodes.selectors import FixedSelector, OracleSelector, RandomSelector

    return {
        "fixed": FixedSelector,
        "random": lambda: RandomSelector(seed),
        "oracle": OracleSelector,
        "horizon": lambda: HorizonSelector(predictor),
    }[name]()


def run_cell(
    kb: Any,
    k: int,
    selector: str,
    episodes: int,
    budget: int,
    seed: int = 0,
    predictor: Any = None,
    max_distance: int = 12,
) -> list[int | None]:
    """Steps until all k goals were done, per episode (None: not within `budget`)."""
    from nodes.selectors import preconditions_hold
    from skills.experts import Expert
    from training.controller.data import safe_act
    from worlds.gridworld.batch import BatchGridWorld
    from worlds.gridworld.spec import PRIMITIVE_ID
    from worlds.gridworld.world import GridWorld

    scen = [scenario(k, seed * 100_000 + e, max_distance) for e in range(episodes)]
    env = BatchGridWorld(episodes, kb, size=(SIZE, SIZE))
    env.reset([seed * 100_000 + e for e in range(episodes)], [o for _, o in scen])
    goals = [g for g, _ in scen]
    remaining = [list(range(k)) for _ in range(episodes)]
    sel = [make_selector(selector, seed * 100_000 + e, predictor) for e in range(episodes)]
    ctx = [SimpleNamespace(world=GridWorld.view(env, e), kb=kb) for e in range(episodes)]
    cur: list[tuple[int, Any] | None] = [None] * episodes
    tries = np.zeros(episodes, int)
    done_at: list[int | None] = [None] * episodes
    over = np.zeros(episodes, bool)
    noop = (PRIMITIVE_ID["noop"], -1)
    while not over.all():
        acts = np.tile(np.array(noop, np.int64), (episodes, 1))
        for e in np.nonzero(~over)[0]:
            while not over[e]:
                if cur[e] is None:
                    inv = ctx[e].world.inventory
                    cands = [i for i in remaining[e] if preconditions_hold(goals[e][i], inv, kb)]
                    pick, _ = sel[e].choose(goals[e], remaining[e], cands, inv, ctx[e])
                    cur[e] = (pick, Expert(env, int(e), goals[e][pick]))
                pick, ex = cur[e]
                a = safe_act(ex)
                if a is not None:
                    acts[e] = a
                    break
                cur[e] = None
                if ex.result and ex.result["ok"]:
                    remaining[e].remove(pick)
                    tries[e] = 0
                    if not remaining[e]:
                        done_at[e], over[e] = int(env.steps[e]), True
                else:
                    tries[e] += 1
                    over[e] = tries[e] > MAX_RETRIES
        _, _, _, _, info = env.step(acts)
        for e, ev in info["events"].items():
            if cur[e] is not None:
                cur[e][1].feedback(ev)
        over |= (env.steps >= budget) | env.dead
    return done_at


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    # clamped: at p = 0 or 1 the bounds are 0 or 1 exactly, and rounding must not print -0.00
    return max(0.0, float(c - h)), min(1.0, float(c + h))


def _steps(res: list[int | None], cap: int) -> np.ndarray:
    return np.array([cap if x is None else min(x, cap) for x in res], float)


def paired_diff(
    a: list[int | None],
    b: list[int | None],
    budget: int | None,
    rng: np.random.Generator,
    n_boot: int = 2000,
    cap: int = 0,
) -> tuple[float, float, float]:
    """Mean and 95% bootstrap interval of success(a) - success(b) at `budget` (or, with
    budget None, of steps to finish, unfinished counted as `cap`), paired by episode."""
    if budget is None:
        d = _steps(a, cap) - _steps(b, cap)
    else:
        d = np.array([x is not None and x <= budget for x in a], float) - np.array(
            [x is not None and x <= budget for x in b], float
        )
    idx = rng.integers(0, len(d), (n_boot, len(d)))
    boots = d[idx].mean(1)
    return float(d.mean()), float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.figure4", description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=50, help="episodes per (goals, selector) cell (default: 50)")
    ap.add_argument("--goals", default="2,3,4", help="numbers of parallel goals (default: 2,3,4)")
    ap.add_argument("--selectors", default=",".join(SELECTOR_NAMES))
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)), help="episode-length budgets in steps")
    ap.add_argument("--max-distance", type=int, default=12, help="farthest goal, in cells (default: 12)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="append one JSON row per cell to this file")
    ap.add_argument("--device", default="cpu")
    ap.add_argument(
        "--table",
        default=None,
        metavar="FILE",
        help="print the table of the rows already in FILE (an --out of earlier runs) and stop",
    )
    a = ap.parse_args(argv)
    try:
        ks = [int(x) for x in a.goals.split(",")]
        budgets = sorted(int(x) for x in a.budgets.split(","))
    except ValueError:
        ap.error("--goals and --budgets take comma-separated integers")
    if a.episodes < 1 or not all(1 <= k <= len(SCATTER) for k in ks) or not budgets or budgets[0] < 1:
        ap.error(f"--episodes >= 1, --goals between 1 and {len(SCATTER)}, budgets >= 1")
    if a.table:
        rows = [json.loads(line) for line in Path(a.table).read_text().splitlines() if line.strip()]
        got = {(r["goals"], r["selector"]): r["steps_to_finish"] for r in rows}
        order = {n: i for i, n in enumerate(SELECTOR_NAMES)}
        got = dict(sorted(got.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 9))))
        print(table(got, budgets, min(len(v) for v in got.values())))
        return 0
    names = a.selectors.split(",")
    if any(n not in SELECTOR_NAMES for n in names):
        ap.error(f"--selectors: accepted {', '.join(SELECTOR_NAMES)}")
    import torch

    from worlds.knowledge import load_kb

    torch.set_num_threads(1)
    kb = load_kb("1.11.2")
    predictor = None
    if "horizon" in names:
        from skills.learned.paths import LearnedError
        from skills.learned.predictor import HorizonPredictor

        try:
            predictor = HorizonPredictor.load(kb=kb, device=a.device)
        except LearnedError as e:
            print(f"figure4: error: {e}", file=sys.stderr)
            return 2
    results: dict[tuple[int, str], list[int | None]] = {}
    out = Path(a.out) if a.out else None
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
    for k in ks:
        for name in names:
            t0 = time.monotonic()
            res = run_cell(kb, k, name, a.episodes, budgets[-1], a.seed, predictor, a.max_distance)
            results[(k, name)] = res
            row = {
                "goals": k,
                "selector": name,
                "episodes": a.episodes,
                "seed": a.seed,
                "max_distance": a.max_distance,
                "steps_to_finish": res,
                "success": {str(b): round(float(np.mean([x is not None and x <= b for x in res])), 3) for b in budgets},
                "wall_s": round(time.monotonic() - t0, 1),
            }
            print(f"k={k} {name}: " + " ".join(f"{b}:{v}" for b, v in row["success"].items()), file=sys.stderr)
            if out:
                with out.open("a") as f:
                    f.write(json.dumps(row) + "\n")
    print(table(results, budgets, a.episodes))
    return 0


def table(results: dict[tuple[int, str], list[int | None]], budgets: list[int], n: int) -> str:
    cap = budgets[-1]
    lines = [
        "| goals | selector | " + " | ".join(f"≤{b} steps" for b in budgets) + " | mean steps |",
        "|---|---|" + "---|" * (len(budgets) + 1),
    ]
    for (k, name), res in results.items():
        cells = []
        for b in budgets:
            p = float(np.mean([x is not None and x <= b for x in res]))
            lo, hi = wilson(p, n)
            cells.append(f"{p:.2f} ({lo:.2f}-{hi:.2f})")
        lines.append(f"| {k} | {name} | " + " | ".join(cells) + f" | {_steps(res, cap).mean():.1f} |")
    rng = np.random.default_rng(0)
    diffs = []
    for k in sorted({k for k, _ in results}):
        for other in ("fixed", "random"):
            if (k, "horizon") in results and (k, other) in results:
                b = budgets[len(budgets) // 2]
                m, lo, hi = paired_diff(results[(k, "horizon")], results[(k, other)], b, rng)
                ms, los, his = paired_diff(results[(k, "horizon")], results[(k, other)], None, rng, cap=cap)
                diffs.append(
                    f"- k={k}: horizon - {other}: success at ≤{b} steps {m:+.2f} (95% {lo:+.2f} to {hi:+.2f}); "
                    f"steps to finish {ms:+.1f} (95% {los:+.1f} to {his:+.1f})"
                )
    return "\n".join(lines + ([""] + diffs if diffs else []))


if __name__ == "__main__":
    sys.exit(main())
