"""Teacher data over the whole game (issue 23, part 2): every item the oracle obtains in the
text world, from varied start inventories, with a held-out split by item fixed by a rule.

- **Targets**: every item of the version's knowledge base that the recipe solver plans and the
  text world carries out (worlds/coverage.py), not only the suites' 61 tasks.
- **The held-out rule** (fixed before any training, `HOLDOUT_RULE`): `sha256:SALT:PCT` holds out
  an item when int(sha256(f"{SALT}:{item}"), 16) % 100 < PCT. It draws only among items that
  are in no deps71 or plan4mc task's recipe tree (their targets and every item their oracle plans
  make), so the suites' trained tasks keep their data; every item it holds out is never a target
  of the training data, nor the task line of a relabelled sub-task example (`check_no_heldout`).
- **Start inventories** per target (`start_inventories`): empty; part-way (the inventory after
  the first half of the oracle's plan); a tool of the plan already held; a better pickaxe than
  the plan needs.

The examples themselves come from the planners' own prompt code: rider next-skill turns from
the rider's oracle teacher run through the real graph (training/rider_teacher.py, which also
stumbles now and then so that the feedback-revision turns come from the world's real refusals),
DEPS plans and re-planning turns from training/teacher.py.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from worlds.types import Task
# (worlds.solver, worlds.types and training.data are imported where used: the CLI reads this
# module's defaults when it builds its parser, and stays quick to start)

HOLDOUT_RULE = "sha256:deps-23:55"  # fixed before the first whole-game adapter was trained
RULE_VERSION = "1.11.2"  # the names the rule was first drawn over (the held-out suite's)
TRAINED_SUITES = ("deps71", "plan4mc")  # their recipe trees are never held out
VARIANTS = ("empty", "partway", "tool", "better-tool")
PICKAXES = ("wooden_pickaxe", "stone_pickaxe", "iron_pickaxe", "diamond_pickaxe")
TOOL_WORDS = ("_pickaxe", "_axe", "_shovel", "_sword", "_hoe", "shears")
STATIONS = ("crafting_table", "furnace")
MAX_STEPS = 12000  # a one-off task's budget (worlds/tasks.py CUSTOM_MAX_STEPS)
_RULE = re.compile(r"^sha256:([A-Za-z0-9_.\-]+):(\d{1,3})$")
RULE_HELP = "accepted: sha256:SALT:PCT (PCT 1-100; e.g. " + HOLDOUT_RULE + ") or none"


@dataclass(frozen=True)
class HoldoutRule:
    salt: str
    pct: int

    def holds(self, item: str) -> bool:
        return int(hashlib.sha256(f"{self.salt}:{item}".encode()).hexdigest(), 16) % 100 < self.pct

    def __str__(self) -> str:
        return f"sha256:{self.salt}:{self.pct}"


def parse_rule(text: str) -> HoldoutRule | None:
    """'sha256:SALT:PCT' -> the rule; 'none' -> None; anything else -> one-line DatasetError."""
    from training.data import DatasetError

    text = (text or "").strip()
    if text == "none":
        return None
    m = _RULE.match(text)
    if not m or not 1 <= int(m.group(2)) <= 100:
        raise DatasetError(f"--holdout-rule {text!r} not understood; {RULE_HELP}")
    return HoldoutRule(m.group(1), int(m.group(2)))


def obtainable_items(kb: Any) -> list[str]:
    """Every item the solver plans and the text world carries out, in the KB's order."""
    from worlds.coverage import check_item

    return [r.item for r in (check_item(kb, it) for it in kb.item_names()) if r.solved]


def suite_tree_items(kb: Any, suites: Iterable[str] = TRAINED_SUITES) -> set[str]:
    """The targets of the suites' tasks and every item their oracle plans make (from the
    task's own inventory and from nothing)."""
    from worlds.solver import Unreachable, solve
    from worlds.tasks import load_suite, localize

    out: set[str] = set()
    for s in suites:
        for t in load_suite(s):
            t = localize(t, kb)
            out |= set(t.target)
            for inv in (dict(t.inventory), {}):
                try:
                    for g in solve(kb, dict(t.target), inv):
                        out |= set(g.obj)
                except Unreachable:
                    pass
    return out


@dataclass
class Split:
    rule: str
    items: list[str]  # every obtainable item
    protected: list[str]  # in a trained suite's recipe tree: never held out
    held_out: list[str]
    train: list[str]


def split_items(kb: Any, rule: str = HOLDOUT_RULE, items: list[str] | None = None) -> Split:
    """The training and held-out items under `rule` (one-line DatasetError when it leaves no
    training item)."""
    from training.data import DatasetError

    r = parse_rule(rule)
    items = list(items if items is not None else obtainable_items(kb))
    tree = suite_tree_items(kb)
    earlier = _first_drawn(kb, rule) if r is not None and kb.version != RULE_VERSION else set()
    held = [i for i in items if r is not None and i not in tree and (r.holds(i) or i in earlier)]
    train = [i for i in items if i not in set(held)]
    if not train:
        raise DatasetError(
            f"--holdout-rule {rule} holds out all {len(items)} items and leaves no training data; {RULE_HELP}"
        )
    return Split(str(r) if r else "none", items, sorted(set(items) & tree), sorted(held), train)


def _first_drawn(kb: Any, rule: str) -> set[str]:
    """The items `rule` held out at RULE_VERSION, in this version's names: a renamed item
    (cactus_green is green_dye from 1.13) hashes differently, so without these a later
    version's data would teach what the held-out suite asks. A name that became several items,
    or a group (log2 is one of the logs), holds them all out."""
    from worlds.knowledge import AmbiguousName, load_kb

    groups = kb.groups()
    out: set[str] = set()
    for item in split_items(load_kb(RULE_VERSION), rule).held_out:
        try:
            names = [kb.translate(item, RULE_VERSION)]
        except AmbiguousName as e:
            names = list(e.candidates)
        for n in filter(None, names):
            out |= {n, *groups.get(n, ())}
    return out


def _is_tool(item: str) -> bool:
    return item.endswith(TOOL_WORDS) or item in STATIONS


def _partway(kb: Any, goals: list, k: int) -> dict[str, int]:
    """What the player holds after the first k goals of a plan, carried out unit by unit in a
    deterministic text world (as worlds/coverage.py runs a plan); {} if one cannot run."""
    from worlds.textworld import TextWorld

    w = TextWorld(kb)
    w.reset(seed=0, options={"max_steps": 10**8})
    for g in goals[:k]:
        for item, n in g.obj.items():
            got, tries = 0, 0
            by_unit = g.action == "equip" or (g.action == "kill" and kb.is_mob(item))
            while got < n and tries < 10_000:
                tries += 1
                _, _, _, _, info = w.step({"action": g.action, "item": item})
                if not info["ok"]:
                    return {}
                got += 1 if by_unit else kb.count(info["gained"], item)
    return dict(sorted(w.inventory.items()))


def start_inventories(kb: Any, item: str, variants: Iterable[str] = VARIANTS) -> list[tuple[str, dict[str, int]]]:
    """(variant, inventory) pairs for `item`; a variant that does not apply (no tool in the plan,
    a plan too short to start part-way) is left out."""
    from worlds.solver import Unreachable, solve

    try:
        goals = solve(kb, {item: 1}, {})
    except Unreachable:
        return []
    made = [name for g in goals for name in g.obj]
    tools = [t for t in dict.fromkeys(made) if _is_tool(t) and t != item]
    out: list[tuple[str, dict[str, int]]] = []
    for v in variants:
        if v == "empty":
            out.append((v, {}))
        elif v == "partway" and len(goals) >= 3:
            inv = _partway(kb, goals, len(goals) // 2)
            if inv:
                out.append((v, inv))
        elif v == "tool" and tools:
            out.append((v, {tools[-1]: 1}))
        elif v == "better-tool":
            needed = [p for p in PICKAXES if p in made]
            if needed and needed[-1] != PICKAXES[-1] and item not in PICKAXES:
                better = PICKAXES[PICKAXES.index(needed[-1]) + 1]
                out.append((v, {better: 1}))
    return out


def item_task(item: str, variant: str, inventory: dict[str, int], *, group: str = "") -> Task:
    from worlds.types import Task

    words = item.replace("_", " ")
    return Task(
        id=f"{item}@{variant}",
        group=group or variant,
        instruction=f"obtain 1 {words}",
        target={item: 1},
        max_steps=MAX_STEPS,
        inventory=dict(inventory),
        suite="whole-game",
    )


def training_tasks(kb: Any, split: Split, variants: Iterable[str] = VARIANTS) -> list[Task]:
    """One task per training item and start inventory."""
    variants = tuple(variants)
    return [item_task(it, v, inv) for it in split.train for v, inv in start_inventories(kb, it, variants)]


def heldout_records(kb: Any, split: Split) -> list[dict[str, Any]]:
    """The held-out items as a suite (`deps eval --suite FILE`): one task each, empty inventory,
    in the order of sha256(item), so that the first N tasks of a run cut short are a fair sample."""
    order = sorted(split.held_out, key=lambda it: hashlib.sha256(it.encode()).hexdigest())
    return [
        {
            "id": f"heldout_{it}",
            "group": "heldout",
            "instruction": f"obtain 1 {it.replace('_', ' ')}",
            "target": {it: 1},
            "max_steps": MAX_STEPS,
            "inventory": {},
        }
        for it in order
    ]


def write_suite(path: str | Path, records: list[dict[str, Any]], header: str) -> None:
    import yaml

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    body = yaml.safe_dump(records, sort_keys=False, default_flow_style=None, width=200)
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_text("".join(f"# {line}\n" for line in header.splitlines()) + body, encoding="utf-8")
    tmp.replace(p)


def shown_items(example: dict[str, Any]) -> set[str]:
    """The items an example's prompt names as its task: the episode's target and, for a
    relabelled or revising rider turn, the sub-task shown."""
    out = set(example.get("target") or {})
    for key in ("subtask",):
        if example.get(key):
            out.add(example[key])
    out |= set(example.get("shown") or {})
    return out


def check_no_heldout(examples: Iterable[dict[str, Any]], held_out: Iterable[str]) -> list[dict[str, Any]]:
    """The examples none of whose task lines is a held-out item."""
    held = set(held_out)
    return [e for e in examples if not (shown_items(e) & held)]


def sample_examples(examples: list[dict[str, Any]], budget: int, seed: int = 0) -> list[dict[str, Any]]:
    """At most `budget` examples, spread over the target items (round-robin over items, each
    item's examples in a seeded random order), so every item keeps some."""
    if budget <= 0 or len(examples) <= budget:
        return list(examples)
    rng = random.Random(seed)
    by_item: dict[str, list[dict[str, Any]]] = {}
    for e in examples:
        by_item.setdefault(next(iter(e.get("target") or {"?": 1})), []).append(e)
    for lst in by_item.values():
        rng.shuffle(lst)
    out: list[dict[str, Any]] = []
    queues = [by_item[k] for k in sorted(by_item)]
    while len(out) < budget:
        took = False
        for q in queues:
            if q and len(out) < budget:
                out.append(q.pop())
                took = True
        if not took:
            break
    return out
