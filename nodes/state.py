"""The typed state of one DEPS episode.

Every field has exactly one writer node (named in its comment). Lists that grow over the
episode use the `add` reducer, so a node returns only what it appends. The dialogue the
LLM sees is not stored: it is rebuilt from `plans`, `descriptions` and `explanations`,
which interleave round by round (plan 0, description 0, explanation 0, plan 1, ...).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from typing_extensions import TypedDict


def add_usage(a: dict[str, int] | None, b: dict[str, int] | None) -> dict[str, int]:
    """Reducer for LLM usage counters: {calls, tokens_in, tokens_out} summed."""
    out = dict(a or {})
    for k, v in (b or {}).items():
        out[k] = out.get(k, 0) + v
    return out


class AgentState(TypedDict, total=False):
    # input
    task: dict[str, Any]  # input: Task.to_dict()
    # plan
    plans: Annotated[list[str], operator.add]  # plan: each plan's text, initial first
    plan_usage: Annotated[dict[str, int], add_usage]  # plan: LLM calls and tokens
    no_plan: str | None  # plan: why no plan is possible (the episode ends), else None
    # parse
    goals: list[dict[str, Any]]  # parse: the current plan as Goal dicts
    parse_notes: list[str]  # parse: steps it could not map, or mapped loosely
    # select
    current: int | None  # select: index into goals, None when none is left
    selection: dict[str, Any]  # select: candidates and why one was chosen
    # execute
    outcomes: Annotated[list[dict[str, Any]], operator.add]  # execute: one per executed goal
    inventory: dict[str, int]  # execute (and input): what the agent holds
    env_steps: int  # execute: environment steps used so far
    status: str  # execute: running | success | failed
    world: dict[str, Any]  # execute (and input): the world's snapshot, to resume from
    failure_reason: str | None  # execute: why the episode ended unsuccessfully
    # describe / explain
    descriptions: Annotated[list[str], operator.add]  # describe
    explanations: Annotated[list[str], operator.add]  # explain
    explain_usage: Annotated[dict[str, int], add_usage]  # explain: LLM calls and tokens


def rounds(state: AgentState) -> int:
    """Re-planning rounds so far: every plan after the first."""
    return max(0, len(state.get("plans", [])) - 1)


def drivers(state: AgentState) -> dict[str, list[str]]:
    """Which part drove each executed goal, by the outcomes' `driver` (the learned controller
    sets it: "policy", "expert" under --fallback, "functional" for craft, smelt and equip,
    "none" when refused): {"policy": ["mine:log", ...], ...}, each goal once in plan order;
    {} with a controller that does not say."""
    out: dict[str, list[str]] = {}
    for o in state.get("outcomes", []):
        goal, who = o.get("goal"), o.get("driver")
        if not goal or not who:
            continue
        for item in goal.get("obj") or {}:
            key = f"{goal['action']}:{item}"
            if key not in out.setdefault(str(who), []):
                out[str(who)].append(key)
    return out


def sheltered_steps(state: AgentState) -> int:
    """Environment steps the learned controller's pursuits spent in a night's hole, out of a
    zombie's or spider's reach, by the scripted rule rather than the policy (skills/find.py:
    Shelter); 0 with a controller that does not say."""
    return sum(int(o.get("sheltered") or 0) for o in state.get("outcomes", []))


def usage(state: AgentState) -> dict[str, int]:
    return add_usage(state.get("plan_usage"), state.get("explain_usage"))
