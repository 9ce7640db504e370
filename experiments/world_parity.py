"""Text world against grid world on one task list: every item the recipe book can obtain
from an empty inventory, one of each (a harvest and tech-tree list), run by `deps eval` with
the oracle planner and the scripted controller in both worlds; then the differences, each
with its reason (the grid world's up-front refusal, or how the episode ended).

    python -m experiments.world_parity suite --out runs/parity/items.yaml
    deps eval --suite runs/parity/items.yaml --world textworld --planner oracle --controller scripted \\
        --selector fixed --episodes 1 --out runs/parity/text
    deps eval --suite runs/parity/items-grid.yaml --world gridworld --planner oracle --controller scripted \\
        --selector fixed --episodes 1 --out runs/parity/grid
    python -m experiments.world_parity compare runs/parity/text runs/parity/grid \\
        --refused runs/parity/items-refused.json

(items-grid.yaml is the list less the tasks the grid world refuses up front, whose one-line
reasons are in items-refused.json.)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import yaml

BUDGET = 12000  # MineDojo steps (DEPS Table 1's longest, MT8): 2400 grid steps


def suite(out: Path, mc_version: str = "1.11.2") -> int:
    from worlds.knowledge import load_kb
    from worlds.solver import Unreachable, solve

    kb = load_kb(mc_version)
    rows = []
    for item in kb.item_names():
        try:
            goals = solve(kb, {item: 1}, {})
        except (Unreachable, ValueError):
            continue
        if not goals:
            continue
        group = "raw" if len(goals) == 1 else "short" if len(goals) <= 5 else "long"
        rows.append(
            {
                "id": f"get_{item}",
                "group": group,
                "instruction": f"obtain {item.replace('_', ' ')}",
                "target": {item: 1},
                "max_steps": BUDGET,
                "inventory": {},
            }
        )
    from worlds.gridworld.coverage import budget_refusal, refusal
    from worlds.gridworld.world import GridWorld

    # from dawn, as a task starts: a spider never comes in time, nor does wheat ripen
    steps = GridWorld.budget_steps(BUDGET)

    out.parent.mkdir(parents=True, exist_ok=True)
    head = "# every item the recipe book obtains from nothing, one each (experiments/world_parity.py)\n"
    out.write_text(head + yaml.safe_dump(rows, sort_keys=False, width=200))
    refused = {r["id"]: refusal(kb, r["target"]) or budget_refusal(kb, r["target"], {}, 0, steps) for r in rows}
    grid = [r for r in rows if not refused[r["id"]]]
    grid_out = out.with_name(out.stem + "-grid" + out.suffix)
    grid_out.write_text(
        head.replace("each", "each, less those the grid world refuses up front")
        + yaml.safe_dump(grid, sort_keys=False, width=200)
    )
    out.with_name(out.stem + "-refused.json").write_text(json.dumps({k: v for k, v in refused.items() if v}, indent=1))
    print(
        f"{len(rows)} tasks written to {out}; {len(grid)} the grid world takes to {grid_out}; "
        f"{len(rows) - len(grid)} it refuses up front (their lines: {out.stem}-refused.json)"
    )
    return 0


def _episodes(folder: Path) -> dict[str, dict]:
    out = {}
    for line in (folder / "episodes.jsonl").read_text().splitlines():
        r = json.loads(line)
        out[r["task"]] = r
    return out


def compare(text_dir: Path, grid_dir: Path, refused_file: Path | None = None) -> int:
    text, grid = _episodes(text_dir), _episodes(grid_dir)
    raised = json.loads(refused_file.read_text()) if refused_file else {}
    solved = [t for t, r in text.items() if r["success"]]
    both = [t for t in solved if grid.get(t, {}).get("success")]
    print(f"text world solves {len(solved)} of {len(text)}; the grid world solves {len(both)} of those")
    reasons: Counter = Counter()
    for t in solved:
        if t in both:
            continue
        why = (
            grid[t].get("failure_reason")
            if t in grid
            else ("refused up front: " + raised[t])
            if t in raised
            else "not run"
        )
        why = (why or "").split("; accepted")[0]
        reasons[why] += 1
        print(f"- {t}: {why}")
    print("\nby reason:")
    for why, n in reasons.most_common():
        print(f"{n:4d}  {why}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.world_parity", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("suite", help="write the task list")
    s.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare", help="the differences between two `deps eval --out` folders")
    c.add_argument("text", type=Path)
    c.add_argument("grid", type=Path)
    c.add_argument("--refused", type=Path, default=None, help="the suite's -refused.json (the grid world's lines)")
    a = p.parse_args(argv)
    return suite(a.out) if a.cmd == "suite" else compare(a.text, a.grid, a.refused)


if __name__ == "__main__":
    sys.exit(main())
