"""The baseline planners DEPS compares with (its section 4 and appendix G), each an LLM
prompt in prompts/ plus how it uses feedback:

| planner          | plan form                        | feedback                               |
| zero-shot        | step list (Huang et al.)         | none: plans once                       |
| progprompt       | program of action functions      | none: plans once                       |
| cot              | step list with inventory thinking| none: plans once                       |
| code-as-policies | loops with assertions            | re-plans with the game's message       |
| inner-monologue  | one goal at a time               | scene and success after every goal     |
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

import prompts
from nodes.describe import inventory_text
from nodes.facts import failure_missing, recipe_book
from nodes.planners.base import PlanRequest, PlanResult
from nodes.planners.llm import target_text
from worlds.facts import missing_names
from worlds.types import ACTIONS

_CAP_LOOP = re.compile(r"while not inventory\.has\(\{\s*['\"](\w+)['\"]\s*:\s*(\d+)\s*\}\)")
_CAP_CALL = re.compile(
    r"\b(" + "|".join(ACTIONS) + r")\s*\(\s*obj\s*=\s*['\"](\w+)['\"](?:\s*,\s*tool\s*=\s*['\"]?(\w+)['\"]?)?"
)


def _call(llm: Any, msgs: list) -> tuple[str, dict]:
    from nodes.ask import ask

    return ask(llm.model, msgs)


def cap_to_code(text: str) -> str:
    """Code as Policies: each `while not inventory.has({X: N}): action(obj=X, tool=T)` is a goal."""
    lines, pending = [], None
    for line in text.splitlines():
        loop = _CAP_LOOP.search(line)
        if loop:
            pending = (loop.group(1), int(loop.group(2)))
            continue
        call = _CAP_CALL.search(line)
        if call:
            action, obj, tool = call.groups()
            item, n = pending if pending and pending[0] == obj else (obj, 1)
            tool_text = f"'{tool}'" if tool and tool not in ("null", "None") else "null"
            args = (
                f"{{'{item}':{n}}}, {{}}, {tool_text}"
                if action in ("craft", "smelt")
                else f"{{'{item}':{n}}}, {tool_text}"
            )
            lines.append(f"{action}({args})")
            pending = None
    return "\n".join(lines) if lines else text


def _facts(req: PlanRequest, on: bool, missing: list[str] | None = None) -> str:
    """' Recipe book: ...' (--knowledge, nodes/facts.py) when the baseline's facts option is on:
    for the task's item, or (`missing`) for what the world said was missing."""
    if not on:
        return ""
    if missing is None:
        book = recipe_book(req.kb, req.task.target, (), req.knowledge)
    else:
        book = recipe_book(req.kb, (), missing, "none" if req.knowledge == "none" else "target")
    return " " + book if book else ""


class PromptPlanner:
    """Plans from a task question with a baseline prompt; optionally re-plans on feedback.
    `facts`: the question carries the recipe facts (--knowledge), which the papers' baselines
    did not have (off by default; --<name>-facts)."""

    explainer = "game"

    def __init__(self, llm: Any, *, name: str, prompt: str, replans: bool, postprocess=None, facts: bool = False):
        self.llm, self.name, self.prompt, self.replans = llm, name, prompt, replans
        self.postprocess = postprocess
        self.facts = facts

    def plan(self, req: PlanRequest) -> PlanResult:
        msgs = prompts.chat(self.prompt)
        msgs.append(HumanMessage(f"How to obtain {target_text(req.task.target)}?{_facts(req, self.facts)}"))
        for r, text in enumerate(req.plans):
            msgs.append(AIMessage(text))
            more = (
                ""
                if "Recipe book:" in req.descriptions[r]
                else _facts(req, self.facts, failure_missing(req.outcomes, r))
            )
            msgs.append(HumanMessage(f"{req.descriptions[r]}{more} Plan the task again from my current inventory."))
        text, used = _call(self.llm, msgs)
        return PlanResult(self.postprocess(text) if self.postprocess else text, used)


class InnerMonologuePlanner:
    """One goal at a time from the scene and the success of the last goal (Huang et al. 2022)."""

    name = "inner-monologue"
    replans = True
    explainer = "game"
    rounds_per_budget = 10  # it re-plans after every goal: 10 goals per --max-rounds round

    def __init__(self, llm: Any, settings: Any = None):
        self.llm = llm
        self.facts = _facts_on(settings, self.name)

    def plan(self, req: PlanRequest) -> PlanResult:
        msgs = prompts.chat("inner_monologue")
        start = inventory_text(req.task.inventory)
        msgs.append(
            HumanMessage(
                f"Task: obtain {target_text(req.task.target)}.{_facts(req, self.facts)}"
                f"\nScene: my inventory has {start}."
            )
        )
        executed = [o for o in req.outcomes if o.get("goal")]
        for goal_line, outcome in zip(req.plans[-8:], executed[-8:]):
            msgs.append(AIMessage(goal_line))
            why = (
                ""
                if outcome["ok"]
                else f" ({outcome['error']}{_facts(req, self.facts, missing_names(outcome.get('missing')))})"
            )
            msgs.append(
                HumanMessage(
                    f"Successful action: {outcome['ok']}{why}. Scene: my inventory has {inventory_text(req.inventory)}."
                )
            )
        text, used = _call(self.llm, msgs)
        first = next((line for line in text.splitlines() if line.strip()), "")
        return PlanResult(first.strip(), used)


# Each baseline's one option: the recipe facts in its prompt (--<name>-facts), off by default so
# that the baselines stay the papers' prompts; nodes/registry.py registers them.
def _facts_flag(name: str) -> Any:
    return field(
        default=False,
        metadata={
            "help": f"{name}: add the recipe facts of --knowledge to its prompt (default: the paper's prompt, none)",
            "flag": f"--{name}-facts",
        },
    )


@dataclass
class ZeroShotOptions:
    facts: bool = _facts_flag("zero-shot")


@dataclass
class ProgPromptOptions:
    facts: bool = _facts_flag("progprompt")


@dataclass
class CoTOptions:
    facts: bool = _facts_flag("cot")


@dataclass
class InnerMonologueOptions:
    facts: bool = _facts_flag("inner-monologue")


@dataclass
class CodeAsPoliciesOptions:
    facts: bool = _facts_flag("code-as-policies")


def _facts_on(settings: Any, name: str) -> bool:
    if settings is None:
        return False
    try:
        return bool(getattr(settings.option(name), "facts", False))
    except ValueError:  # registered without options (a user's registry): no facts
        return False


# The factories nodes/registry.py names (the registry holds the planners' names and help).
def zero_shot(llm: Any, settings: Any = None) -> PromptPlanner:
    return PromptPlanner(
        llm, name="zero-shot", prompt="zero_shot", replans=False, facts=_facts_on(settings, "zero-shot")
    )


def progprompt(llm: Any, settings: Any = None) -> PromptPlanner:
    return PromptPlanner(
        llm, name="progprompt", prompt="progprompt", replans=False, facts=_facts_on(settings, "progprompt")
    )


def chain_of_thought(llm: Any, settings: Any = None) -> PromptPlanner:
    return PromptPlanner(llm, name="cot", prompt="cot", replans=False, facts=_facts_on(settings, "cot"))


def code_as_policies(llm: Any, settings: Any = None) -> PromptPlanner:
    return PromptPlanner(
        llm,
        name="code-as-policies",
        prompt="code_as_policies",
        replans=True,
        postprocess=cap_to_code,
        facts=_facts_on(settings, "code-as-policies"),
    )
