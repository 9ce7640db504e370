"""Where an eval's environment steps go, goal by goal: the steps each mine, kill or find goal
took over every episode traced in a folder (`deps eval ... --trace-dir DIR`), the units it
got, and, given a second folder of the same tasks and seeds, the ratio of steps per unit.

    python -m experiments.goal_steps DIR_LEARNED [DIR_SCRIPTED]

Read from each episode's trace.jsonl: its `execute` updates' outcomes (goal, steps, ok, gained).
A unit is one of the goal's items got: all it asked for when it succeeded, what it mined when
its episode's budget ran out first.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ACTED = ("mine", "kill", "find")


def goal_steps(root: str | Path) -> dict[str, list[int]]:
    """goal ('mine:iron_ore') -> [steps taken, units got, pursuits] over the folder's traces."""
    out: dict[str, list[int]] = {}
    for trace in sorted(Path(root).glob("*/trace.jsonl")):
        for line in trace.read_text().splitlines():
            event = json.loads(line)
            if event.get("event") != "update" or event.get("node") != "execute":
                continue
            for o in event["update"].get("outcomes") or []:
                goal = o.get("goal")
                if not goal or goal["action"] not in ACTED:  # no goal: the loop's own "no plan" outcome
                    continue
                item = next(iter(goal["obj"]))
                row = out.setdefault(f"{goal['action']}:{item}", [0, 0, 0])
                row[0] += int(o["steps"])
                # a goal ended short (budget spent) counts what it mined; a kill's drops are not the mob
                row[1] += goal["obj"][item] if o["ok"] else int((o.get("gained") or {}).get(item, 0))
                row[2] += 1
    return out


def table(a: dict[str, list[int]], b: dict[str, list[int]] | None = None) -> str:
    head = "| goal | steps | units | pursuits |" + (
        " steps (2nd) | units (2nd) | steps per unit, 1st / 2nd |" if b else ""
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for key in sorted(set(a) | set(b or {}), key=lambda k: -a.get(k, [0])[0]):
        s, u, p = a.get(key, [0, 0, 0])
        row = f"| {key} | {s} | {u} | {p} |"
        if b:
            s2, u2, _ = b.get(key, [0, 0, 0])
            ratio = f"{(s / u) / (s2 / u2):.2f}" if u and u2 and s2 else "-"
            row += f" {s2} | {u2} | {ratio} |"
        lines.append(row)
    total = sum(r[0] for r in a.values())
    lines.append(f"| all | {total} | | |" + (f" {sum(r[0] for r in b.values())} | | |" if b else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not 1 <= len(args) <= 2 or any(not Path(d).is_dir() for d in args):
        print(
            "goal_steps: error: give one or two folders written by `deps eval ... --trace-dir DIR`",
            file=sys.stderr,
        )
        return 2
    dirs = [goal_steps(d) for d in args]
    print(table(dirs[0], dirs[1] if len(dirs) > 1 else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
