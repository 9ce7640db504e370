"""The execute node: the controller drives the selected goal in the world.

It records the outcome (with the world's precise cause on failure), the inventory and the
steps used, and decides whether the episode goes on: the task's item is held (success),
or the step, round or token budget is spent, or the agent died in a world whose episode ends
there (failure, with the reason stated: re-planning a dead agent's route only spent LLM calls).
"""

from __future__ import annotations

from langchain_core.tools import StructuredTool
from langgraph.config import get_config
from langgraph.runtime import Runtime
from pydantic import BaseModel

from nodes.context import AgentContext
from nodes.enough import enough_for_rest
from nodes.select import finished_goals
from nodes.state import AgentState, rounds, usage
from worlds.context_tasks import task_done
from worlds.types import Goal


def _target_text(target: dict[str, int]) -> str:
    return ", ".join(f"{n} {item}" for item, n in target.items())


class SkillFailed(Exception):
    """A goal the controller could not reach: raised inside the traced tool run so that a trace
    marks the skill as an error with the world's cause, then caught at once (the outcome is data)."""

    def __init__(self, outcome: dict):
        super().__init__(outcome.get("error") or "the skill failed")
        self.outcome = outcome


class _GoalArgs(BaseModel):
    """The one argument of a traced skill run (built once: a schema per call cost 20 ms)."""

    goal: dict


def _observed() -> bool:
    """Whether anyone listens to this node's runs (LangSmith or another callback handler);
    when nobody does, the skill is driven directly, with no tool run to build (issue 21)."""
    try:
        callbacks = get_config().get("callbacks")
    except RuntimeError:  # called outside a graph run
        return False
    return bool(getattr(callbacks, "handlers", callbacks))


def drive(ctx: AgentContext, goal: Goal) -> dict:
    """The controller drives one goal: a batch of world steps, traced (when a tracer or callback
    listens) as one `tool` run named after the controller and the skill, whose output is the
    outcome, or whose error is the world's cause when the goal failed."""
    if not _observed():
        return ctx.controller.run(goal, ctx.world)

    def run_goal(goal: dict) -> dict:
        outcome = ctx.controller.run(Goal.from_dict(goal), ctx.world)
        if not outcome.get("ok"):
            raise SkillFailed(outcome)
        return outcome

    name = f"{getattr(ctx.controller, 'name', 'controller')}.{goal.action}"
    tool = StructuredTool(
        name=name, description=f"drive {goal.code()} in the world", func=run_goal, args_schema=_GoalArgs
    )
    try:
        return tool.invoke({"goal": goal.to_dict()})
    except SkillFailed as failed:
        return failed.outcome


def _short_but_enough(state: AgentState, i: int, goal: Goal, outcome: dict, inventory: dict, kb) -> dict:
    """The outcome, as done (`ok`, with the world's refusal kept and `short` saying what was held
    and used), where the goal failed but what it was for is held in the amount the plan's goals
    still to run use (nodes/enough.py); else unchanged."""
    done = finished_goals(state) | {i}
    rest = [Goal.from_dict(g) for k, g in enumerate(state.get("goals") or []) if k not in done]
    short = enough_for_rest(goal, rest, inventory, kb)
    return {**outcome, "ok": True, "short": short} if short else outcome


def execute(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    ctx = runtime.context
    world, task = ctx.world, ctx.task
    plan_no = len(state["plans"]) - 1
    i = state.get("current")
    why = state.get("no_plan")
    if why:  # the planner knows no plan can reach the task (or loops): end now
        why = why if why.startswith("the planner is looping") else f"no plan is possible: {why}"
        return {
            "outcomes": [
                {
                    "plan": plan_no,
                    "step": None,
                    "goal": None,
                    "ok": False,
                    "error": why,
                    "steps": 0,
                    "gained": {},
                    "missing": dict(task.target),
                }
            ],
            "inventory": world.inventory,
            "env_steps": world.steps,
            "status": "failed",
            "failure_reason": why,
        }
    if i is None:
        if state.get("goals"):
            error = f"I did every step of the plan but I do not have {_target_text(task.target)}"
        else:
            error = "the plan has no step I can execute"
        outcome = {"ok": False, "error": error, "steps": 0, "gained": {}, "missing": dict(task.target)}
        goal_dict = None
    else:
        goal = Goal.from_dict(state["goals"][i])
        if hasattr(world, "begin_goal"):  # --random-drop (worlds/random_drop.py)
            world.begin_goal(goal)
        outcome = drive(ctx, goal)
        if hasattr(world, "end_goal"):
            world.end_goal(goal, outcome)
        if not outcome.get("ok") and ctx.settings.short_goals == "go-on":
            outcome = _short_but_enough(state, i, goal, outcome, world.inventory, ctx.kb)
        goal_dict = goal.to_dict()
    record = {"plan": plan_no, "step": i, "goal": goal_dict, **outcome}
    update: dict = {
        "outcomes": [record],
        "inventory": world.inventory,
        "env_steps": world.steps,
        "status": "running",
        "failure_reason": None,
    }
    snapshot = getattr(world, "snapshot", None)  # an optional extra of some worlds
    if callable(snapshot):
        update["world"] = snapshot()

    spent = usage(state)
    tokens = spent.get("tokens_in", 0) + spent.get("tokens_out", 0)
    if task_done(world, task):  # the items held, or a find task's conditions true
        update["status"] = "success"
    elif world.steps >= world.max_steps:
        update.update(
            status="failed", failure_reason=f"step budget spent ({world.steps} of {world.max_steps} environment steps)"
        )
    elif getattr(world, "dead", False):  # a world whose episode ends with the agent (the grid world)
        update.update(status="failed", failure_reason=getattr(world, "death", None) or "the agent died")
    elif not outcome["ok"] and rounds(state) >= ctx.max_rounds:
        update.update(
            status="failed",
            failure_reason=f"re-planning budget spent ({rounds(state)} of {ctx.max_rounds} rounds); "
            f"last failure: {outcome['error']}",
        )
    elif not outcome["ok"] and tokens >= ctx.settings.max_tokens:
        update.update(
            status="failed",
            failure_reason=f"token budget spent ({tokens} of {ctx.settings.max_tokens} tokens); "
            f"last failure: {outcome['error']}",
        )
    return update
