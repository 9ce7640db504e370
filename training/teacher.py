"""Teacher data for the DEPS planner: its own first-plan prompt, answered by the oracle.

For each task, the messages are exactly what `nodes/planners/llm.py` (DialoguePlanner)
sends for the first plan (its own message builder is called, no prompt is copied here),
and the reply is the oracle's plan (worlds/solver.py) in the code form the GBNF grammar
of nodes/planners/grammar.py accepts: one goal a line, "  # step K: comment", each line
ending in a newline. The examples are labelled source "teacher:oracle", format "deps-plan".

`--augment N` adds, per task, up to N copies that start part-way: the inventory after the
first k goals of the oracle's plan, answered by the oracle from there (so the model learns
to plan from what is held, as it must when the dialogue asks it to plan again).

`--replans N` adds, per task, up to N re-planning turns (format "deps-plan") and the
explainer turns before them (format "deps-explain"): the oracle's plan with one goal left
out is run in the text world through the real graph, so the description (which step failed,
the game's cause, the inventory, the recipe book) is the one the agent would get; the
explanation names the cause and the oracle's next goal, and the re-plan is the oracle's plan
from the inventory at the failure. A first-plan-only adapter repeats the failed step when
asked again; these turns show it what to do instead.

Tasks whose target is a target of a held-out task (default: the plan4mc "iron" group) are
left out entirely, for the generalisation figure.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from nodes.planners.base import PlanRequest
from nodes.planners.grammar import plan_vocabulary
from nodes.planners.llm import DialoguePlanner
from training.data import DatasetError, default_base_model, write_dataset
from worlds.solver import Unreachable, solve
from worlds.types import Goal, Task

MAX_LINES = 16  # the grammar's cap (code_form_grammar's max_steps)
MAX_COMMENT = 60  # the grammar's comment length
DEFAULT_HOLDOUT = "plan4mc:iron"

_ROLE = {"system": "system", "human": "user", "ai": "assistant"}


def _role_dicts(msgs: list) -> list[dict[str, str]]:
    return [{"role": _ROLE[m.type], "content": str(m.content)} for m in msgs]


def plan_reply(goals: list[Goal]) -> str:
    """The oracle's goals as the grammar writes them (every line ends in a newline), with a
    short comment ("craft 1 stick"): fewer tokens to write, the same plan."""
    lines = []
    for k, g in enumerate(goals, 1):
        comment = " ".join([g.action, *(f"{n} {k}" for k, n in g.obj.items())])[:MAX_COMMENT]
        lines.append(f"{g.code()}  # step {k}: {comment}\n")
    return "".join(lines)


def _fits_grammar(goals: list[Goal], kb: Any) -> bool:
    items, mobs, tools = plan_vocabulary(kb)
    names = set(items) | set(mobs)
    if not goals or len(goals) > MAX_LINES:
        return False
    for g in goals:
        if any(k not in names for k in g.obj) or any(k not in names for k in g.materials):
            return False
        if g.tool and g.tool not in tools and not (g.action == "smelt" and g.tool == "furnace"):
            return False
        if len(g.materials) > 5 or any(not 1 <= n <= 99 for n in [*g.obj.values(), *g.materials.values()]):
            return False
    return True


def _after(inventory: dict[str, int], goals: list[Goal]) -> dict[str, int]:
    inv = dict(inventory)
    for g in goals:
        for k, n in g.materials.items():
            inv[k] = inv.get(k, 0) - n
        for k, n in g.obj.items():
            inv[k] = inv.get(k, 0) + n
    return {k: n for k, n in sorted(inv.items()) if n > 0}


def first_plan_example(
    task: Task,
    kb: Any,
    inventory: dict[str, int] | None = None,
    *,
    planner: DialoguePlanner | None = None,
    recipe_hints: bool = True,
    knowledge: str = "target",
) -> dict | None:
    """One deps-sft/1 example for `task` (already localized), or None if the oracle's plan
    does not fit the grammar (too long, or a name outside its vocabulary)."""
    planner = planner or DialoguePlanner(None, output="grammar")
    inv = dict(task.inventory if inventory is None else inventory)
    try:
        goals = solve(kb, task.target, inv)
    except Unreachable:
        return None
    if not _fits_grammar(goals, kb):
        return None
    req = PlanRequest(
        task=replace(task, inventory=inv),
        inventory=inv,
        plans=[],
        descriptions=[],
        explanations=[],
        kb=kb,
        recipe_hints=recipe_hints,
        knowledge=knowledge,
    )
    msgs = _role_dicts(planner.messages(req))
    msgs.append({"role": "assistant", "content": plan_reply(goals)})
    return {
        "messages": msgs,
        "task": task.id,
        "source": "teacher:oracle",
        "format": "deps-plan",
        "relabelled": False,
        "inventory": inv,
    }


def _goal_words(g: Goal) -> str:
    ((item, n),) = list(g.obj.items())[:1]
    return f"{g.action} {n} {item}"


def teacher_explanation(error: str, fix: list[Goal]) -> str:
    """The explainer's answer a teacher gives: the game's cause, and the goal that comes first."""
    first = f", so I must first {_goal_words(fix[0])}" if fix else ""
    return f"The game says {error.rstrip('.')}{first}."


class _ScriptedLLM:
    """An LLM handle that replies with fixed texts in turn (LangChain's fake chat model):
    used to run a known flawed plan through the real graph."""

    supports_json_schema = False
    supports_grammar = False
    name = "teacher-script"

    def __init__(self, replies: list[str]):
        from langchain_core.language_models.fake_chat_models import FakeListChatModel

        self.model = FakeListChatModel(responses=replies)

    def json_mode(self, schema: Any) -> Any:
        return self.model


def _first_failure(task: Task, plan: str, kb: Any) -> tuple[str, dict, dict[str, int]] | None:
    """Run `plan` (then nothing more) on the text world: (description, failed outcome,
    inventory) at its first failure, or None when it succeeds."""
    from agent.runner import run_episode
    from nodes.settings import RunSettings

    seen: dict[str, Any] = {}

    def on_update(node: str, update: dict) -> None:
        if "description" in seen:
            return
        if node == "execute":
            seen["outcome"], seen["inventory"] = update["outcomes"][-1], dict(update.get("inventory", {}))
        elif node == "describe":
            seen["description"] = update["descriptions"][0]

    run_episode(
        task,
        RunSettings(planner="deps", selector="fixed", max_rounds=1),
        llm=_ScriptedLLM([plan, "-"]),
        kb=kb,
        on_update=on_update,
    )
    if "description" not in seen:
        return None
    return seen["description"], seen["outcome"], seen["inventory"]


def _spread(n_items: int, n: int) -> list[int]:
    """Up to n indices spread evenly over range(n_items)."""
    if n >= n_items:
        return list(range(n_items))
    return sorted({round(k * (n_items - 1) / max(n - 1, 1)) for k in range(n)})


def replan_examples(
    task: Task, kb: Any, n: int, *, planner: DialoguePlanner | None = None, knowledge: str = "target"
) -> list[dict]:
    """Up to n (explain, re-plan) example pairs for `task` (localized): each leaves one goal
    out of the oracle's plan, runs it, and answers the failure as a teacher would."""
    planner = planner or DialoguePlanner(None, output="grammar")
    inv0 = dict(task.inventory)
    try:
        goals = solve(kb, task.target, inv0)
    except Unreachable:
        return []
    if len(goals) < 2 or n <= 0:
        return []
    out: list[dict] = []
    for k in _spread(len(goals), n):
        flawed = plan_reply(goals[:k] + goals[k + 1 :])
        got = _first_failure(task, flawed, kb)
        if got is None:
            continue
        description, outcome, inv = got
        try:
            fix = solve(kb, task.target, inv)
        except Unreachable:
            continue
        if not _fits_grammar(fix, kb):
            continue
        failed = Goal.from_dict(outcome["goal"]).code() if outcome.get("goal") else "(the plan as a whole)"
        explanation = teacher_explanation(outcome["error"], fix)
        import prompts
        from nodes.describe import inventory_text

        explain_msgs = prompts.chat(
            "deps_explainer", goal=failed, error=outcome["error"], inventory=inventory_text(inv)
        )
        common = {"task": task.id, "source": "teacher:oracle", "relabelled": False, "inventory": inv, "left_out": k + 1}
        out.append(
            {
                "messages": [*_role_dicts(explain_msgs), {"role": "assistant", "content": explanation}],
                "format": "deps-explain",
                **common,
            }
        )
        req = PlanRequest(
            task=task,
            inventory=inv,
            plans=[flawed],
            descriptions=[description],
            explanations=[explanation],
            kb=kb,
            recipe_hints=True,
            knowledge=knowledge,
        )
        msgs = _role_dicts(planner.messages(req))
        msgs.append({"role": "assistant", "content": plan_reply(fix)})
        out.append({"messages": msgs, "format": "deps-plan", **common})
    return out


def holdout_targets(spec: str) -> set[str]:
    """'SUITE:GROUP[,GROUP]' -> the target items of those tasks ('' or 'none' -> none)."""
    from worlds.tasks import load_suite

    if not spec or spec == "none":
        return set()
    suite, _, groups = spec.partition(":")
    wanted = set(groups.split(",")) if groups else None
    out = set()
    for t in load_suite(suite):
        if wanted is None or t.group in wanted or t.id in wanted:
            out |= set(t.target)
    return out


def teacher_examples(
    tasks: Iterable[Task],
    kb: Any,
    *,
    augment: int = 0,
    replans: int = 0,
    holdout: set[str] = frozenset(),
    progress: bool = False,
    knowledge: str = "target",
) -> tuple[list[dict], dict]:
    """Examples for every task not held out; also {kept, skipped, held_out} task ids."""
    from worlds.tasks import localize

    planner = DialoguePlanner(None, output="grammar")
    examples, info = [], {"kept": [], "skipped": [], "held_out": []}
    seen: set[tuple] = set()
    for task in tasks:
        task = localize(task, kb)
        if set(task.target) & holdout:
            info["held_out"].append(task.id)
            continue
        ex = first_plan_example(task, kb, planner=planner, knowledge=knowledge)
        if ex is None:
            info["skipped"].append(task.id)
            continue
        key = (tuple(sorted(task.target.items())), tuple(sorted(ex["inventory"].items())))
        if key in seen:
            continue
        seen.add(key)
        info["kept"].append(task.id)
        examples.append(ex)
        goals = solve(kb, task.target, dict(task.inventory))
        for k in range(1, min(augment, len(goals) - 1) + 1):
            inv = _after(task.inventory, goals[:k])
            key = (tuple(sorted(task.target.items())), tuple(sorted(inv.items())))
            if key in seen:
                continue
            aug = first_plan_example(task, kb, inv, planner=planner, knowledge=knowledge)
            if aug is not None:
                seen.add(key)
                examples.append(aug)
        examples += replan_examples(task, kb, replans, planner=planner, knowledge=knowledge)
    if progress:
        print(
            f"{len(examples)} examples from {len(info['kept'])} tasks ({len(info['held_out'])} held out, "
            f"{len(info['skipped'])} unplannable in the grammar)",
            file=sys.stderr,
        )
    return examples, info


def make_teacher_dataset(
    out: str | os.PathLike,
    suites: list[str],
    *,
    mc_version: str = "1.11.2",
    augment: int = 0,
    replans: int = 0,
    holdout: str = DEFAULT_HOLDOUT,
    command: str = "",
    progress: bool = False,
    only: str = "",
) -> dict:
    """Write the teacher dataset for `suites` (their tasks or groups named in `only`) to `out`
    (atomically); returns its card."""
    from worlds.knowledge import load_kb
    from worlds.tasks import load_suite

    kb = load_kb(mc_version)
    tasks = [t for s in suites for t in load_suite(s)]
    if only:  # task ids or group names, comma-separated
        wanted = {w.strip() for w in only.split(",") if w.strip()}
        tasks = [t for t in tasks if t.id in wanted or t.group in wanted]
        if not tasks:
            raise DatasetError(f"--tasks {only!r} matches no task of {', '.join(suites)}")
    examples, info = teacher_examples(
        tasks, kb, augment=augment, replans=replans, holdout=holdout_targets(holdout), progress=progress
    )
    if not examples:
        raise DatasetError(f"no teacher examples from suites {', '.join(suites)} (all held out or unplannable)")
    counts = {
        "tasks_kept": len(info["kept"]),
        "tasks_skipped": len(info["skipped"]),
        "tasks_held_out": len(info["held_out"]),
        "augment": augment,
        "replans": replans,
        "holdout": holdout,
        "held_out_tasks": info["held_out"],
        "skipped_tasks": info["skipped"],
    }
    return write_dataset(out, examples, base_model=default_base_model(), command=command, episodes=0, counts=counts)
