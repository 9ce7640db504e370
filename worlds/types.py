"""Plain data types shared by every part of the agent: goals (plan steps) and tasks.

They are JSON-friendly so they can live in the LangGraph state (and its checkpoints)
and in result files unchanged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

ACTIONS = ("mine", "craft", "smelt", "kill", "equip")
# Travel skills, for worlds with space (the grid world): find({'pig':1}, {'time':'night'})
# goes until the thing is within 2 cells and the conditions hold (MP5's find and move).  Kept
# apart from ACTIONS: the planners' grammars and the learned policy's goal table list those.
TRAVEL = ("find",)
SKILLS = ACTIONS + TRAVEL


def _fmt_dict(d: dict[str, int] | None) -> str:
    if not d:
        return "null"
    return "{" + ", ".join(f"'{k}':{v}" for k, v in d.items()) + "}"


@dataclass
class Goal:
    """One step of a plan, in the DEPS code form's terms.

    `obj` is what the step should produce ({item: count}; for `kill` the mob: {"cow": 1};
    for `equip` the item to wear or hold). `materials` are the items the planner believes
    it consumes, `tool` the tool or platform it believes it needs (crafting_table,
    furnace, wooden_pickaxe...). The world checks the real rules; these are the plan's claims.
    """

    action: str
    obj: dict[str, int]
    materials: dict[str, int] = field(default_factory=dict)
    tool: str | None = None
    text: str = ""  # the line the planner wrote, kept for descriptions and traces
    where: dict[str, str] = field(default_factory=dict)  # find: conditions {"time": "night", "near": "grass"}

    def code(self) -> str:
        """Render in the DEPS code form: craft({'stick':4}, {'planks':2}, null)."""
        tool = f"'{self.tool}'" if self.tool else "null"
        if self.action in TRAVEL:
            where = "{" + ", ".join(f"'{k}':'{v}'" for k, v in self.where.items()) + "}" if self.where else "null"
            return f"{self.action}({_fmt_dict(self.obj)}, {where})"
        if self.action in ("mine", "kill", "equip"):
            return f"{self.action}({_fmt_dict(self.obj)}, {tool})"
        return f"{self.action}({_fmt_dict(self.obj)}, {_fmt_dict(self.materials)}, {tool})"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Goal:
        return cls(
            action=d["action"],
            obj=dict(d.get("obj") or {}),
            materials=dict(d.get("materials") or {}),
            tool=d.get("tool"),
            text=d.get("text", ""),
            where={str(k): str(v) for k, v in (d.get("where") or {}).items()},
        )


@dataclass
class Task:
    """A task as the suites store it (MineDojo tasks_specs style: tasks as data)."""

    id: str
    group: str
    instruction: str
    target: dict[str, int]
    max_steps: int
    inventory: dict[str, int] = field(default_factory=dict)
    biome: str | None = None
    suite: str | None = None
    mc_version: str | None = None  # set once the names are this version's (worlds.tasks.localize)
    context: dict[str, Any] | None = None  # a find task's {find, conditions} (worlds.context_tasks)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: v for k, v in d.items() if v not in (None, {}) or k in ("target", "inventory")}
