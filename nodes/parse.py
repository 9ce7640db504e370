"""The parse node: plan text -> goals of the skill library.

Lines in the DEPS code form (`craft({'stick':4}, {'planks':2}, null)`) are parsed exactly.
Other lines ("step 2: chop three trees") go to the skill library's nearest neighbour by
sentence embedding. Item names go through the knowledge base's aliases, then the nearest
known name. Whatever cannot be mapped is reported in `parse_notes`, which the descriptor
passes back to the planner: nothing is dropped silently.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from langgraph.runtime import Runtime

from nodes.context import AgentContext
from nodes.state import AgentState
from worlds.tasks import NUMBER_WORDS
from worlds.types import ACTIONS, SKILLS, TRAVEL, Goal

_CALL = re.compile(r"\b(" + "|".join(SKILLS) + r")\s*\(")
_SKIP = re.compile(r"^\s*(def |return\b|```|#|ok\.?$|the (code|plan)\b|planner:|thinking:|from actions|$)", re.I)
_PROG = re.compile(r"\b(" + "|".join(ACTIONS) + r")_(\w+)\s*\(\s*(?:num\s*=\s*)?(\d+)?\s*\)")


def _call_text(line: str, start: int) -> str | None:
    """The text of the call starting at `start`, up to its matching parenthesis."""
    depth = 0
    for i in range(line.index("(", start), len(line)):
        depth += {"(": 1, ")": -1}.get(line[i], 0)
        if depth == 0:
            return line[start : i + 1]
    return None


def _literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Name) and node.id in ("null", "None", "none"):
        return None
    return ast.literal_eval(node)


def parse_call(text: str) -> Goal:
    """Parse one DEPS code-form call; raises ValueError when it is not one."""
    expr = ast.parse(text.strip(), mode="eval").body
    if not isinstance(expr, ast.Call) or not isinstance(expr.func, ast.Name):
        raise ValueError(f"not a skill call: {text!r}")
    action = expr.func.id
    args = [_literal(a) for a in expr.args]
    kw = {k.arg: _literal(k.value) for k in expr.keywords}
    obj = kw.pop("obj", None) or (args.pop(0) if args else None)
    if isinstance(obj, str):
        obj = {obj: 1}
    if not isinstance(obj, dict) or not obj:
        raise ValueError(f"{action}() needs an object like {{'log': 1}}: {text!r}")
    materials: object = {}  # checked below: a dict of counts
    tool = None
    if action in TRAVEL:  # find({'pig':1}, {'time':'night'}): the conditions, not materials
        where = kw.pop("where", None) if "where" in kw else (args.pop(0) if args else None)
        if where is not None and not isinstance(where, dict):
            raise ValueError(f"{action}() takes its conditions as a dict like {{'time': 'night'}}: {text!r}")
        counts = {str(k): int(v) for k, v in obj.items()}
        return Goal(action, counts, where={str(k): str(v) for k, v in (where or {}).items()})
    if action in ("craft", "smelt"):
        materials = kw.pop("materials", None) or (args.pop(0) if args else None) or {}
    tool = kw.pop("tool", None) if "tool" in kw else (args.pop(0) if args else None)
    if not isinstance(materials, dict) or (tool is not None and not isinstance(tool, str)):
        raise ValueError(f"bad materials or tool in {text!r}")
    counts = {str(k): int(v) for k, v in obj.items()}
    return Goal(action, counts, {str(k): int(v) for k, v in materials.items()}, tool)


_VERBS = {
    "mine": "mine",
    "craft": "craft",
    "smelt": "smelt",
    "kill": "kill",
    "equip": "equip",
    "cook": "smelt",
    "chop": "mine",
    "collect": "mine",
    "gather": "mine",
    "dig": "mine",
    "hunt": "kill",
    "slay": "kill",
    "wear": "equip",
    "make": "craft",
    "build": "craft",
}
_FREE = re.compile(
    r"^(" + "|".join(_VERBS) + r")\s+(?:(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve)\s+)?([a-z_ ]+?)(?:\s+(?:from|with|without|on|using|in|by|for|at)\b.*)?[.,;]?$",
    re.I,
)


def code_goals(text: str) -> list[Goal]:
    """The goals of a plan written in the code form, one call a line, comments left out (raises
    ValueError like parse_call on a line that is not a call)."""
    return [parse_call(line.split("#", 1)[0]) for line in str(text).splitlines() if "(" in line.split("#", 1)[0]]


def _count(text: str) -> int:
    for tok in re.findall(r"[a-z]+|\d+", text.lower()):
        if tok.isdigit():
            return max(1, int(tok))
        if tok in NUMBER_WORDS:
            return NUMBER_WORDS[tok]
    return 1


class GoalParser:
    """Exact code-form parsing with an embedding fallback (the skill library's)."""

    def __init__(self, kb: Any, library: Any = None, threshold: float = 0.55):
        self.kb = kb
        self.library = library  # skills.library.SkillLibrary, made lazily when needed
        self.threshold = threshold

    def _lib(self):
        if self.library is None:
            from skills.library import SkillLibrary

            self.library = SkillLibrary(self.kb)
        return self.library

    def _resolve(self, name: str, action: str, notes: list[str]) -> str | None:
        if action == "kill" and name in self.kb.mobs():
            return name
        canon = self.kb.canonical(name)
        if canon is not None:
            return canon
        near, score = self._lib().nearest_name(name, mobs=(action == "kill"))
        if near is not None and score >= self.threshold:
            notes.append(f"'{name}' is not a known name; read it as '{near}'")
            return near
        notes.append(f"'{name}' is not a Minecraft {'mob' if action == 'kill' else 'item'} I know")
        return None

    def _ground(self, goal: Goal, notes: list[str]) -> Goal | None:
        if goal.action in TRAVEL:  # a thing to go to: a word of the context tasks, a mob or a block
            from worlds.context_tasks import findable

            bad = [n for n in goal.obj if not findable(n, self.kb)]
            if bad:
                notes.append(f"'{bad[0]}' is not something I can find (a mob, a block, or one of tree, grass, water)")
                return None
            return goal
        obj = {}
        for name, n in goal.obj.items():
            canon = self._resolve(name, goal.action, notes)
            if canon is None:
                return None
            obj[canon] = n
        mats = {self.kb.canonical(k) or k: v for k, v in goal.materials.items()}
        tool = (self.kb.canonical(goal.tool) or goal.tool) if goal.tool else None
        return Goal(goal.action, obj, mats, tool, goal.text)

    def parse(self, text: str) -> tuple[list[Goal], list[str]]:
        goals: list[Goal] = []
        notes: list[str] = []
        for raw in text.splitlines():
            line = raw.strip()
            if _SKIP.match(line):
                continue
            comment = line.split("#", 1)[1].strip() if "#" in line else ""
            prog = _PROG.search(line)
            if prog:  # ProgPrompt's action functions: craft_planks(num=4)
                action, item, n = prog.groups()
                goal = self._ground(Goal(action, {item: int(n or 1)}, text=comment or line), notes)
                if goal is not None:
                    goals.append(goal)
                continue
            m = _CALL.search(line)
            if m:
                call = _call_text(line, m.start())
                try:
                    goal = parse_call(call or "")
                    goal.text = comment or (call or "")
                except (ValueError, SyntaxError) as e:
                    goal = None
                    notes.append(f"could not read {line!r} as a skill call ({e})")
                if goal is not None:
                    grounded = self._ground(goal, notes)
                    if grounded is not None:
                        goals.append(grounded)
                continue
            free = re.sub(r"^(step\s*\d+\s*[:.)-]|\d+\s*[.):-]|[-*])\s*", "", line, flags=re.I)
            simple = _FREE.match(free)
            if simple:  # "craft 4 stick from 2 planks": verb, count, item
                verb, n, name = simple.groups()
                item = self.kb.canonical(name.strip().replace(" ", "_")) or self.kb.canonical(name.strip())
                action = _VERBS[verb.lower()]
                if action == "kill" and name.strip().rstrip("s") in self.kb.mobs():
                    item = name.strip().rstrip("s")
                if item is not None:
                    goals.append(Goal(action, {item: _count(n or "1")}, text=free))
                    continue
            words = free.split(None, 1)
            if words and words[0].lower() in _VERBS:  # the library's own verbs: chop -> mine
                free_norm = " ".join([_VERBS[words[0].lower()], *words[1:]])
            else:
                free_norm = free
            skill, score = self._lib().nearest_skill(free_norm)
            if skill is not None and score >= self.threshold:
                goals.append(Goal(skill.action, {skill.item: _count(free)}, text=free))
                if score < 0.8:
                    notes.append(f"read '{free}' as '{skill.action} {skill.item}'")
            else:
                notes.append(f"'{free}' does not match any skill I have")
        return goals, notes


def parse(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    if state.get("no_plan"):  # the planner said no plan is possible: nothing to map (execute ends the episode)
        return {"goals": [], "parse_notes": []}
    goals, notes = runtime.context.parser.parse(state["plans"][-1])
    return {"goals": [g.to_dict() for g in goals], "parse_notes": notes}
