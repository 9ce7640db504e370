"""Every item of a version's knowledge base, through the oracle's solver and the text world:
solved (a plan that the text world carries out to the item) or refused (the solver's reason,
which names the feature of the game that is not modelled, data/unmodelled.yaml).

    python -m worlds.coverage            # the three versions, one line each, then each refusal's feature
    python -m worlds.coverage 1.19.2 --count 3   # one version, three of each item
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass, field

from worlds.knowledge import VERSIONS, load_kb
from worlds.solver import Unreachable, solve
from worlds.textworld import TextWorld

MAX_STEPS = 10**8  # a bound, never reached: the longest plan (a trident) is far shorter
MAX_ACTIONS = 200_000  # env actions per item, a bound against a loop
_NEEDS = re.compile(r"it needs (.+?) \(")


@dataclass
class ItemResult:
    item: str
    solved: bool
    reason: str = ""  # the refusal, or why a plan failed in the world
    feature: str | None = None  # the feature a refusal names
    steps: int = 0


@dataclass
class Coverage:
    version: str
    results: list[ItemResult] = field(default_factory=list)

    @property
    def solved(self) -> int:
        return sum(r.solved for r in self.results)

    @property
    def refused(self) -> int:
        return len(self.results) - self.solved

    def features(self) -> Counter:
        return Counter(r.feature or "(none named)" for r in self.results if not r.solved)


def run_plan(kb, goals, target: dict[str, int]) -> tuple[bool, str, int]:
    """Carry out goals unit by unit in a fresh deterministic text world: (reached, error, steps)."""
    w = TextWorld(kb)
    w.reset(seed=0, options={"target": target, "max_steps": MAX_STEPS})
    actions = 0
    for g in goals:
        for item, n in g.obj.items():
            got = 0
            by_unit = g.action == "equip" or (g.action == "kill" and kb.is_mob(item))
            while got < n:
                actions += 1
                if actions > MAX_ACTIONS:
                    return False, f"more than {MAX_ACTIONS} actions", w.steps
                _, _, _, _, info = w.step({"action": g.action, "item": item})
                if not info["ok"]:
                    return False, f"{g.code()}: {info['error']}", w.steps
                got += 1 if by_unit else kb.count(info["gained"], item)
    return w.target_reached(), "" if w.target_reached() else "the plan ended without the item", w.steps


def check_item(kb, item: str, count: int = 1) -> ItemResult:
    try:
        goals = solve(kb, {item: count})
    except Unreachable as e:
        m = _NEEDS.search(str(e))
        return ItemResult(item, False, str(e), m.group(1) if m else None)
    ok, err, steps = run_plan(kb, goals, {item: count})
    return ItemResult(item, ok, err, None, steps)


def coverage(version: str, items: list[str] | None = None, count: int = 1) -> Coverage:
    kb = load_kb(version)
    return Coverage(version, [check_item(kb, it, count) for it in (items or kb.item_names())])


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    count = 1
    if "--count" in args:
        i = args.index("--count")
        value = args[i + 1] if i + 1 < len(args) else ""
        if not value.isdigit() or not 1 <= int(value) <= 64:
            print(f"--count {value!r}: accepted: a whole number from 1 to 64", file=sys.stderr)
            return 2
        count = int(value)
        del args[i : i + 2]
    versions = args or list(VERSIONS)
    for v in versions:
        if v not in VERSIONS:
            print(f"unknown version {v!r}; accepted: {', '.join(VERSIONS)}", file=sys.stderr)
            return 2
    for v in versions:
        c = coverage(v, count=count)
        print(
            f"{v}: {len(c.results)} items, {c.solved} solved, {c.refused} refused"
            + (f" (count {count})" if count > 1 else "")
        )
        for feature, n in c.features().most_common():
            print(f"    {n:4d} refused: needs {feature}")
        for r in c.results:
            if not r.solved and r.feature is None:
                print(f"    UNEXPLAINED {r.item}: {r.reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
