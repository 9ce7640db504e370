"""MP5's Parser: a task into short sub-objectives, each with the knowledge it needs.

The decomposition is grounded in the game's data (worlds/solver.py: what to gather, craft
and smelt, with tool tiers and batch sizes, from what is held now), which is what MP5's
parser gets from GPT-4 plus retrieval and what a 135M model cannot give; each sub-objective
then carries the fact and notes retrieved for it from the knowledge memory, which the
planner's prompt shows.  A find task (mp5-context) is one sub-objective: find the thing,
under the task's conditions.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from worlds.context_tasks import conditions
from worlds.solver import Unreachable, solve
from worlds.types import Goal, Task


@dataclass
class SubObjective:
    action: str  # mine | craft | smelt | kill | equip | find
    item: str  # what it should produce (the mob, for kill; the thing, for find)
    count: int = 1
    materials: dict[str, int] = field(default_factory=dict)
    tool: str | None = None  # the tool or platform the recipe book names
    fact: str = ""  # retrieved from the knowledge memory
    notes: list[str] = field(default_factory=list)
    conditions: dict[str, Any] = field(default_factory=dict)  # find tasks: biome, time, near...
    done: bool = False  # reached (the planner marks it from the outcomes)

    @property
    def text(self) -> str:
        verb = {"kill": "fight", "smelt": "smelt"}.get(self.action, self.action)
        where = "".join(f" ({k} {v})" for k, v in self.conditions.items())
        return f"{verb} {self.count} {self.item}{where}" if self.action != "find" else f"find a {self.item}{where}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_goal(cls, g: Goal) -> SubObjective:
        item, n = next(iter(g.obj.items()))
        return cls(g.action, item, n, dict(g.materials), g.tool)


def parse_task(
    task: Task,
    inventory: dict[str, int],
    kb: Any,
    knowledge: Any = None,
    allowed_skills: tuple[str, ...] | None = None,
    gives: Any = None,
) -> tuple[list[SubObjective], str | None]:
    """(sub-objectives from what is held now, or [] with the reason there are none); `gives` is
    the world's (World.gives), where it builds less than the recipe book knows."""
    if not task.target:
        conds = dict(conditions(task))
        thing = conds.pop("find", "thing")
        return [SubObjective("find", str(thing), 1, conditions=conds)], None
    try:
        goals = solve(kb, task.target, inventory, allowed_skills=allowed_skills, gives=gives)
    except Unreachable as e:
        return [], str(e)
    subs = [SubObjective.from_goal(g) for g in goals]
    if knowledge is not None:
        for s, found in zip(subs, knowledge.lookup_many([s.item for s in subs])):
            s.fact, s.notes = found["fact"], found["notes"]
    return subs, None
