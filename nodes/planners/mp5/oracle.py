"""MP5 with oracle-grade planning: the same parser, memories, percipient and patroller, with
the LLM replaced by the recipe book's actions for each sub-objective (no tokens).  It
isolates what the other parts do (the patroller under random drop, the memories) from how
well a model writes actions:

    deps eval --suite mp5 --planner nodes.planners.mp5.oracle:factory --selector fixed --random-drop ...
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda

from nodes.planners.mp5.actions import reference_actions
from nodes.planners.mp5.parser import SubObjective
from nodes.planners.mp5.planner import MP5Planner

_SUB = re.compile(r"Sub-objective: (\w+) (\d+) (\w+)")
_FIND = re.compile(r"find an? (\w+)")
_VERBS = {"fight": "kill"}


class RecipeBookLLM:
    """A stand-in chat model: answers "Sub-objective: craft 1 bowl" with the recipe book's
    actions, naming the tool or platform of the planner's own sub-objective when it has it."""

    name = "recipe-book"
    supports_grammar = False

    def __init__(self, kb: Any):
        self.kb = kb
        self.planner: MP5Planner | None = None
        self.model = RunnableLambda(self._reply)

    def _sub(self, asked: str) -> SubObjective | None:
        line = next((ln[len("Sub-objective: ") :] for ln in asked.splitlines() if ln.startswith("Sub-objective: ")), "")
        known = next((s for s in (self.planner.subs if self.planner else None) or [] if s.text == line), None)
        if known is not None:
            return known
        find = _FIND.match(line)
        if find:
            return SubObjective("find", find.group(1))
        m = _SUB.search(asked)
        if m is None:
            return None
        verb, n, item = m.groups()
        return SubObjective(_VERBS.get(verb, verb), item, int(n))

    def _reply(self, msgs: list) -> AIMessage:
        asked = next((m.content for m in reversed(msgs) if "Sub-objective: " in m.content), "")  # the question
        sub = self._sub(asked)
        if sub is None:
            return AIMessage("")
        perceived = next((ln for ln in asked.splitlines() if ln.startswith("Perceived: ")), "")
        in_view = f"{sub.item}: in view" in perceived  # the percipient's answer, as the prompt shows it
        return AIMessage("\n".join(a.text() for a in reference_actions(sub, self.kb, in_view)))


def factory(settings: Any = None, kb: Any = None) -> MP5Planner:
    """No `llm` parameter: the episode opens no LLM for this planner (agent/components.py)."""
    from worlds.knowledge import load_kb

    kb = kb or load_kb(settings.mc_version)
    llm = RecipeBookLLM(kb)
    planner = MP5Planner(llm, settings, kb=kb)
    llm.planner = planner
    planner.name = "mp5-oracle"
    return planner
