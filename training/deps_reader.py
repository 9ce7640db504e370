"""A DEPS planner whose every plan can be read off its own dialogue (issue 23, the DEPS half).

The oracle teacher answers each DEPS question with the solver's whole plan: from "obtain 1
spruce_boat, my inventory is empty" it writes nine goals with their counts worked out.  Nothing
in the question says them; a 135M model trained on such plans memorises the items it saw.  This
rule writes plans that a reader of the dialogue could write:

- the first plan is the target's own goal, as its recipe-book line says (verb, item, count);
- a re-plan puts, before the goal that failed, one goal for each thing the world's refusal named
  missing (the count the refusal gives; a tool or station once), each as its own recipe-book line
  says (the describer's recipe hints carry those lines); then the failed goal again, for what it
  still had to make; then the rest of the failed plan;
- a plan whose goals all ran without the task's item held is followed by the target's goal again.

Held to this rule, the plans grow down the recipe tree one level a round, led by the refusals.
`python -m training.deps_reader` is not a command: `--planner training.deps_reader:factory`
runs the rule as a planner (no LLM), which measures its ceiling.
"""

from __future__ import annotations

import re
from typing import Any

from nodes.parse import code_goals
from nodes.planners.base import PlanRequest, PlanResult
from nodes.planners.grammar import MAX_STEPS as MAX_GOALS
from worlds.options import best_option
from worlds.types import Goal


def fact_goal(kb: Any, item: str, count: int) -> Goal | None:
    """The goal that makes `count` of `item` as its recipe-book line says: the verb, the item (for
    a kill the mob), the line's unit materials and its station or tool; None when nothing makes it."""
    canon = kb.canonical(item) or item
    opt = best_option(kb, canon)
    if opt is None:
        return None
    if opt.kind == "kill":
        return Goal("kill", {str(opt.source): max(1, count)}, {}, None)
    if opt.kind == "mine":
        tool = getattr(opt.source, "tool", None) or opt.tool
        return Goal("mine", {canon: count}, {}, tool if isinstance(tool, str) else None)
    return Goal(opt.kind, {canon: count}, dict(opt.inputs), opt.tool)


_NEEDS = re.compile(r"needs (\d+) ([a-z0-9_]+)")


def reader_plan(req: PlanRequest) -> list[Goal]:
    kb = req.kb
    target, n = next(iter(req.task.target.items()))
    held = kb.count(req.inventory, target)
    first = fact_goal(kb, target, max(1, n - held))
    if not req.plans:
        return [first] if first else []
    plan_no = len(req.plans) - 1
    mine = [o for o in req.outcomes if o.get("plan") == plan_no]
    last = mine[-1] if mine else None
    if last is None or last.get("ok") or last.get("step") is None:
        return [first] if first else []
    previous = code_goals(req.plans[-1])
    k = int(last["step"])
    failed = Goal.from_dict(last["goal"])
    item, want = next(iter(failed.obj.items()))
    error = str(last.get("error") or "")
    if "obtain it by" in error:  # the wrong verb for the item: its own line's goal instead
        redo = fact_goal(kb, item, want)
        return [redo, *previous[k + 1 :]] if redo else [first] if first else []
    needs = {m.group(2): int(m.group(1)) for m in _NEEDS.finditer(error)}
    fixes: list[Goal] = []
    for key, v in (last.get("missing") or {}).items():
        if key == "tool":
            name, count = v, 1
        elif key == "fuel":
            name, count = "coal", 1
        else:  # the number the refusal says the unit needs, as written (no subtraction)
            name, count = key, needs.get(key, int(v))
        g = fact_goal(kb, str(name), max(1, count))
        if g is not None and all(g.obj != f.obj for f in fixes):
            fixes.append(g)
    gained = int((last.get("gained") or {}).get(item, 0)) if failed.action != "kill" else 0  # as the describer says
    retry = Goal(failed.action, {item: max(1, want - gained)}, failed.materials, failed.tool)
    return [*fixes, retry, *previous[k + 1 :]]


def plan_text(goals: list[Goal]) -> str:
    """The plan as the grammar writes it, with empty step comments (fewer tokens to decode); a plan
    longer than the grammar allows keeps its first goals and its last (the target's)."""
    if len(goals) > MAX_GOALS:
        goals = [*goals[: MAX_GOALS - 1], goals[-1]]
    return "".join(f"{g.code()}  # step {k}: \n" for k, g in enumerate(goals, 1))


class DepsReader:
    """The rule as a planner (`--planner training.deps_reader:factory`). With a `sink`, each plan is
    also handed to it with the DEPS planner's own messages for the same request, as the embedded
    model would be asked (the training examples)."""

    name = "deps-reader"
    replans = True

    def __init__(self, sink: Any = None, history_chars: int = 8000):
        self.sink, self.history_chars = sink, history_chars

    def plan(self, req: PlanRequest) -> PlanResult:
        text = plan_text(reader_plan(req))
        if self.sink is not None:
            from nodes.planners.llm import DialoguePlanner

            asked = DialoguePlanner(None, name="deps", output="grammar", history_chars=self.history_chars).messages(req)
            self.sink(req, asked, text)
        return PlanResult(text, {})


_SINK: list[Any] = []  # set while `recorded_examples` runs: the planner the graph builds hands its plans here


def factory(settings: Any = None) -> DepsReader:
    chars = settings.option("deps").history_chars if settings is not None else 8000
    return DepsReader(_SINK[-1] if _SINK else None, history_chars=chars)


def deps_example(req: PlanRequest, msgs: list, text: str, task: Any, source: str) -> dict:
    """One DEPS training example: the planner's messages for `req`, answered by `text`."""
    from nodes.planners.rider.prompt import as_chat

    return {
        "messages": [*as_chat(msgs), {"role": "assistant", "content": text}],
        "task": task.id,
        "source": source,
        "format": "deps-plan",
        "relabelled": False,
        "revision": bool(req.plans),
        "round": req.round,
        "inventory": dict(req.inventory),
        "target": dict(task.target),
    }


def recorded_examples(
    tasks: list[Any],
    kb: Any,
    *,
    max_rounds: int = 30,
    history_chars: int = 8000,
    knowledge: str = "target",
    progress: bool = False,
) -> list[dict]:
    """One rule episode per task in the text world, through the real graph (the game's explainer);
    every plan the rule wrote becomes a DEPS example: the planner's messages for that request,
    then the plan. Plans of failed episodes are kept too: each is the rule's reading of its own
    question, whatever came after."""
    import sys

    from agent.runner import run_episode
    from nodes.registry import DialogueOptions
    from nodes.settings import RunSettings

    settings = RunSettings(
        planner=f"{__name__}:factory",
        explainer="game",
        max_rounds=max_rounds,
        knowledge=knowledge,
        options={"deps": DialogueOptions(history_chars=history_chars)},
    )
    out: list[dict] = []
    for n, task in enumerate(tasks, 1):
        got: list[dict] = []

        def sink(req: PlanRequest, msgs: list, text: str, task: Any = task, got: list = got) -> None:
            got.append(deps_example(req, msgs, text, task, "teacher:deps-reader"))

        _SINK.append(sink)
        try:
            row = run_episode(task, settings, kb=kb)
        finally:
            _SINK.pop()
        for e in got:
            e["success"] = bool(row["success"])
        out += got
        if progress and n % 50 == 0:
            print(f"deps reader: {n}/{len(tasks)} episodes, {len(out)} plans", file=sys.stderr)
    return out
