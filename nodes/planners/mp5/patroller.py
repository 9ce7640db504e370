"""MP5's Patroller: it asks the percipient about the scene (active perception, MP5 Figure 3),
checks an action sequence against the game's rules before it runs (tools, platform,
materials), and after a failure tells the planner the cause.

Perception runs round by round: one question per round, each answer kept in the
temporary set of perceived facts and shown with the next question, until every factor the
sub-objective needs is asked; what could not be confirmed is reported as missing, so the
plan can add find/move actions for it.

The rule check runs the sequence in a scratch copy of the text world's rules from what the
agent holds (the same rules every world of this project follows for inventory, recipes,
tools and platforms): the first action that would fail gives the cause, in the game's
words ("cannot craft wooden_pickaxe: needs a crafting_table").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nodes.planners.mp5.percipient import Question
from skills.controller import ScriptedController
from worlds.context_tasks import matches, terms
from worlds.textworld import TextWorld
from worlds.types import Goal


@dataclass
class Perception:
    facts: list[str] = field(default_factory=list)  # the temporary env-info set, in order asked
    missing: list[str] = field(default_factory=list)  # factors not confirmed
    rounds: int = 0

    def text(self) -> str:
        return "; ".join(self.facts) if self.facts else "nothing asked"


def _term_for_block(block: str) -> str:
    for word in terms()["blocks"]:
        if matches(word, {block}, "blocks"):
            return word
    return block


def questions_for(sub: Any, kb: Any) -> list[Question]:
    """What to ask before a sub-objective: where and when the agent is, and whether what the
    sub-objective needs (the block to mine, the mob to fight, the thing to find) is in view."""
    qs = [Question("biome"), Question("time")]
    if sub.action == "mine":
        src = kb.mine_sources(sub.item)
        if src:
            qs.append(Question("thing", _term_for_block(src[0].block)))
    elif sub.action in ("kill", "find"):
        qs.append(Question("thing", sub.item))
    for cond, want in (getattr(sub, "conditions", None) or {}).items():
        if cond == "near":
            qs.append(Question("thing", str(want)))
        elif cond in ("weather", "brightness"):
            qs.append(Question(cond))
    return list(dict.fromkeys(qs))


def perceive(
    percipient: Any, questions: list[Question], observation: dict[str, Any], max_rounds: int = 8
) -> Perception:
    p = Perception()
    for q in questions[:max_rounds]:
        answer = percipient.answer(q, observation)
        p.rounds += 1
        p.facts.append(str(answer))
        if "cannot tell" in str(answer) or "not in view" in str(answer):
            p.missing.append(q.about or q.factor)
    return p


def check_find(goals: list[Goal], sub: Any, seen: Perception | None) -> tuple[bool, str | None]:
    """A find sub-objective's actions against the percipient's answers (MP5 Figure 3): a find
    goal must go for the thing under every condition of the sub-objective, and a thing the
    percipient did not see must be looked for (find) before it is moved to (move)."""
    hit = next((g for g in goals if g.action == "find" and sub.item in g.obj), None)
    if hit is None:
        return False, f"no find or move action goes to the {sub.item}"
    lost = [f"{k} {v}" for k, v in (sub.conditions or {}).items() if hit.where.get(k) != str(v)]
    if lost:
        return False, f"find({sub.item}) drops the condition {', '.join(lost)}"
    if seen is not None and sub.item in seen.missing and hit.text.startswith("move("):
        return False, f"the percipient does not see a {sub.item}: find({sub.item}) before move({sub.item})"
    return True, None


class Patroller:
    def __init__(self, kb: Any):
        self.kb = kb
        self.controller = ScriptedController(kb, max_retries=1)

    def check(
        self,
        goals: list[Goal],
        sub: Any,
        inventory: dict[str, int],
        biome: str | None = None,
        seen: Perception | None = None,
    ) -> tuple[bool, str | None, dict[str, int]]:
        """(the sequence reaches the sub-objective, the cause if not, the inventory after it).
        `seen`: the percipient's answers for this sub-objective (a find checks against them)."""
        world = TextWorld(self.kb)
        world.reset(seed=0, options={"inventory": inventory, "biome": biome, "max_steps": 10**9})
        if sub.action == "find":
            return (*check_find(goals, sub, seen), world.inventory)
        before = self.kb.count(world.inventory, sub.item)
        for g in goals:
            out = self.controller.run(g, world)
            if not out["ok"]:
                return False, f"{g.text or g.code()} would fail: {out['error']}", world.inventory
        if sub.action == "equip":
            done = any(g.action == "equip" and sub.item in g.obj for g in goals)
        elif sub.action == "kill":
            done = any(g.action == "kill" and sub.item in g.obj for g in goals)
        else:
            done = self.kb.count(world.inventory, sub.item) >= before + sub.count
        if not done:
            return False, f"these actions do not give {sub.count} {sub.item}", world.inventory
        return True, None, world.inventory
