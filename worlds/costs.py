"""Skill costs and success rates (data: worlds/data/skill_costs.yaml, from DEPS Table 18).

`SkillCosts.unit(action, target, needs_table=...)` -> (cost in env steps, success rate)
for one unit of a skill: mining one block, killing one mob, one craft batch, one smelt,
one equip.  The formula lives in the data file's header: base + k * L * (1 - p).
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatch
from functools import lru_cache
from pathlib import Path

import yaml

DATA = Path(__file__).resolve().parent / "data" / "skill_costs.yaml"


@dataclass(frozen=True)
class Rate:
    cost: int
    success_rate: float
    goal: str


class SkillCosts:
    def __init__(self, table: dict | None = None):
        t = table if table is not None else _load_default()
        self.table = t
        self.base = float(t.get("base", 20))
        self.k = float(t.get("k", 0.2))

    def rate(self, row: dict) -> Rate:
        p = float(row.get("success_rate", 1.0))
        if "cost" in row:
            cost = int(row["cost"])
        else:
            cost = round(self.base + self.k * float(row.get("episode_length", 600)) * (1.0 - p))
        return Rate(max(1, cost), p, str(row.get("goal", "")))

    def mine(self, block: str, needs_pickaxe: bool = False) -> Rate:
        for row in self.table.get("mine", []):
            if any(fnmatch(block, pat) for pat in row.get("blocks", [])):
                return self.rate(row)
        return self.rate(self.table["default_pickaxe_block" if needs_pickaxe else "default_block"])

    def kill(self, mob: str) -> Rate:
        for row in self.table.get("kill", []):
            if any(fnmatch(mob, pat) for pat in row.get("mobs", [])):
                return self.rate(row)
        return self.rate(self.table["default_mob"])

    def craft(self, needs_table: bool) -> Rate:
        return self.rate(self.table["craft_with_table" if needs_table else "craft"])

    def smelt(self) -> Rate:
        return self.rate(self.table["smelt"])

    def equip(self) -> Rate:
        return self.rate(self.table["equip"])


@lru_cache(maxsize=1)
def _load_default() -> dict:
    with open(DATA) as f:
        return yaml.safe_load(f)


def default_costs() -> SkillCosts:
    return SkillCosts()
