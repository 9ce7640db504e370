"""Skill tables of several seeds pooled: per goal and column, the successes over every try, a 95%
Wilson interval, the mean steps of the successes, and where the interval lies against a bar.

One seed's table is 50 worlds a goal. A goal that succeeds 92 times in 100 falls under 0.9 on
such a table (44 of 50 or fewer) about one seed in five, so one row cannot say whether a goal is
over the bar (on 10e47d1 the chicken find is 0.96, 0.88 and 0.94 on seeds 1 to 3 with the same
network). Tables of the same
budgets and checkpoints on different seeds (`experiments.skill_table --out`) are pooled here:
three seeds give 150 tries a goal, and each goal is `over` (the interval wholly at or above the
bar), `under` (wholly below) or `unclear` (the interval holds the bar: more seeds would tell).

    python -m experiments.skill_pool s1.json s2.json s3.json [--bar 0.9] [--column learned] [--out pooled.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from experiments.figure4 import wilson

# what a pooled table's files must share: the tries' step budgets and the drivers measured
SAME = ("budget", "find_budget", "mine_budget", "kill_budget", "count", "greedy", "checkpoints")
OLD = {"count": 1}  # what a table written before a key existed measured


class PoolError(ValueError):
    """Tables that cannot be pooled; the message is the one line shown."""


def load_table(path: str) -> dict:
    try:
        table = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise PoolError(
            f"{path}: not a skill table ({e.__class__.__name__}); accepted: experiments.skill_table --out"
        ) from e
    if not isinstance(table, dict) or not isinstance(table.get("rows"), list) or "seed" not in table:
        raise PoolError(f"{path}: not a skill table (no rows or seed); accepted: experiments.skill_table --out")
    return table


def columns(tables: list[dict]) -> list[str]:
    """The drivers measured (scripted, learned, baseline), in the order the first table has them."""
    seen: dict[str, None] = {}
    for t in tables:
        for row in t["rows"]:
            for key in row:
                if key.endswith("_success"):
                    seen.setdefault(key[: -len("_success")])
    return list(seen)


def check_poolable(tables: list[dict], names: list[str]) -> None:
    seeds = [t["seed"] for t in tables]
    twice = sorted({s for s in seeds if seeds.count(s) > 1})
    if twice:
        raise PoolError(
            f"seed {twice[0]} is given twice (the same worlds would count twice); accepted: one table a seed"
        )
    for key in SAME:
        first, *rest = (t.get(key, OLD.get(key)) for t in tables)
        for name, value in zip(names[1:], rest, strict=True):
            if value != first:
                raise PoolError(
                    f"{name} differs from {names[0]} in {key} ({value!r} against {first!r}); "
                    "accepted: tables run with the same budgets, counts and checkpoints"
                )


def _cell(cells: list[dict], c: str, bar: float) -> dict:
    """One column's pooled figures over `cells`, rows of the tables that measured it."""
    n = sum(r["episodes"] for r in cells)
    wins = [round(r[f"{c}_success"] * r["episodes"]) for r in cells]
    k = sum(wins)
    steps = sum(w * r[f"{c}_mean_steps"] for w, r in zip(wins, cells, strict=True) if w)
    ends: Counter = Counter()
    for r in cells:
        ends.update(r.get(f"{c}_failures") or {})
    lo, hi = wilson(k / n, n)
    return {
        "successes": k,
        "tries": n,
        "success": round(k / n, 3),
        "low": round(lo, 3),
        "high": round(hi, 3),
        "mean_steps": round(steps / k, 1) if k else None,
        "by_seed": [r[f"{c}_success"] for r in cells],
        "failures": dict(sorted(ends.items())),
        "verdict": "over" if lo >= bar else "under" if hi < bar else "unclear",
    }


def pool(tables: list[dict], bar: float = 0.9) -> dict:
    """{"seeds", "bar", "columns", "rows"}: one row a goal (the tables' order), then "all", the
    goals' tries added up per column (a column's "all" counts only the goals it was trained for)."""
    cols = columns(tables)
    goals = list(dict.fromkeys(r["skill"] for t in tables for r in t["rows"] if r["skill"] != "all"))
    rows, measured = [], {c: [] for c in cols}
    for goal in goals:
        found = [r for t in tables for r in t["rows"] if r["skill"] == goal]
        row: dict = {"skill": goal, "tries": sum(r["episodes"] for r in found), "seeds": len(found)}
        for c in cols:
            cells = [r for r in found if r.get(f"{c}_success") is not None]
            measured[c] += cells
            row[c] = _cell(cells, c, bar) if cells else None  # None: not trained for it on any seed
        rows.append(row)
    total: dict = {"skill": "all", "tries": sum(r["tries"] for r in rows), "seeds": len(tables)}
    for c in cols:
        total[c] = {**_cell(measured[c], c, bar), "by_seed": []} if measured[c] else None
    return {"seeds": [t["seed"] for t in tables], "bar": bar, "columns": cols, "rows": [*rows, total]}


def markdown(pooled: dict, only: list[str] | None = None) -> str:
    cols = only or pooled["columns"]
    head = "| goal | tries | " + " | ".join(
        f"{c}: success (95% interval) | by seed | mean steps | vs {pooled['bar']}" for c in cols
    )
    lines = [head + " |", "|---|---|" + "---|---|---|---|" * len(cols)]
    for r in pooled["rows"]:
        cells = []
        for c in cols:
            x = r.get(c)
            if x is None:
                cells += ["not trained", "-", "-", "-"]
                continue
            by = ", ".join(f"{s:.2f}" for s in x["by_seed"])
            verdict = "-" if r["skill"] == "all" else x["verdict"]
            cells += [f"{x['success']:.3f} ({x['low']:.2f} to {x['high']:.2f})", by, str(x["mean_steps"]), verdict]
        lines.append(f"| {r['skill']} | {r['tries']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(pooled: dict, c: str) -> str:
    """One line for column c: how many goals, the goals whose pooled rate is under the bar, and
    how many lie wholly over it, wholly under it, or are not yet told apart from it."""
    cells = [(r["skill"], r[c]) for r in pooled["rows"] if r["skill"] != "all" and r.get(c)]
    bar = pooled["bar"]
    short = [f"{g} {x['success']:.2f}" for g, x in cells if x["success"] < bar]
    verdicts = Counter(x["verdict"] for _, x in cells)
    return (
        f"{c}: {len(cells)} goals, {len(cells) - len(short)} at {bar} or more pooled"
        + (f", under it: {', '.join(short)}" if short else "")
        + f"; the 95% interval wholly over {bar}: {verdicts['over']}, holding it: {verdicts['unclear']},"
        f" wholly under: {verdicts['under']}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m experiments.skill_pool",
        description="Pool skill tables of several seeds: per goal, success over every try with a 95%% "
        "interval, and whether it lies over or under a bar.",
    )
    ap.add_argument("tables", nargs="+", help="experiments.skill_table --out files, one a seed")
    ap.add_argument("--bar", type=float, default=0.9, help="the success each goal should reach (default: 0.9)")
    ap.add_argument(
        "--column", action="append", help="only this driver's column (scripted, learned, baseline); repeatable"
    )
    ap.add_argument("--out", help="write the pooled rows as JSON here")
    a = ap.parse_args(argv)
    try:
        if not 0 < a.bar < 1:
            raise PoolError(f"--bar {a.bar} is not a success rate; accepted: a number between 0 and 1")
        tables = [load_table(p) for p in a.tables]
        check_poolable(tables, a.tables)
        pooled = pool(tables, a.bar)
        unknown = [c for c in a.column or [] if c not in pooled["columns"]]
        if unknown:
            raise PoolError(f"--column {unknown[0]} is not in these tables; accepted: {', '.join(pooled['columns'])}")
    except PoolError as e:
        print(f"skill_pool: error: {e}", file=sys.stderr)
        return 2
    if a.out:
        Path(a.out).write_text(json.dumps(pooled, indent=1) + "\n")
    print(markdown(pooled, a.column))
    for c in a.column or pooled["columns"]:
        print(summary(pooled, c), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
