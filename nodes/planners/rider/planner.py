"""The LLaMA-Rider planner (Feng et al. 2023): an LLM as a next-skill policy that explores.

Each round it asks for ONE skill from the task, the inventory, the last three skills that
ran and the recipe book's line for the task's item, and returns a one-goal plan; the
graph runs it and comes back (plan -> parse -> select -> execute -> ... -> plan).

- Feedback-revision (its Algorithm 1): when the skill could not run, the world's own cause
  (`needs 3 planks, has 2`, with the recipe book's line for what is missing) goes back to
  the LLM with its reply, and it revises; after `revisions` failed revisions of one sub-task
  in a row the exploration has failed and the episode ends (a `# no plan` plan).
- Action retrieval (appendix D): the reply is mapped onto a skill by noun, then embedding.
- Sub-task relabelling: while the skills work on an item the task still needs, that item
  is the prompt's task (nodes/planners/rider/subtasks.py); so is, in a revision, an item the
  world said was missing, when the task needs it; `relabel=False` ablates it.
- The requirement check (appendix B.3's chain of thought) as an option: one more call first.
- With llama.cpp the reply is held to one line, `Next skill: VERB ITEM`, by a GBNF grammar.

Its state lives in the plans (a `# rider {...}` line each), so a resumed run goes on.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage

from nodes.facts import recipe_book
from nodes.planners.base import PlanRequest, PlanResult
from nodes.planners.rider.prompt import (
    cot_messages,
    read_record,
    record_line,
    revise_messages,
    skill_grammar,
    step_messages,
)
from nodes.planners.rider.retrieval import ActionRetriever, vocabulary
from nodes.planners.rider.subtasks import Level, needed, push, push_tool, refresh
from worlds.facts import missing_names
from worlds.options import best_option
from worlds.types import Goal

HISTORY = 3  # skills the prompt recalls (the paper's h_t: the last three)
# Revisions are counted per sub-task: a refusal that names a missing item the task needs makes
# that item the sub-task, and a new sub-task starts its own `revisions` (a chain from nothing to an
# iron tool is seven refusals deep); CHAIN x revisions refusals in a row end the episode all the same.
CHAIN = 3


def _add(total: dict[str, int], used: dict[str, int]) -> None:
    for k, v in used.items():
        total[k] = total.get(k, 0) + v


def missing_items(outcome: dict) -> list[str]:
    """The items a failed skill lacked, as the world named them ({"planks": 2}, {"tool": "stone_pickaxe"})."""
    return missing_names(outcome.get("missing"))


def feedback_text(kb: Any, outcome: dict, knowledge: str = "target") -> str:
    """The world's cause, with the recipe book's line for each missing item (none with --knowledge none)."""
    text = (outcome.get("error") or "it failed").rstrip(".") + "."
    book = recipe_book(kb, (), missing_items(outcome), "none" if knowledge == "none" else "target")
    return text + (" " + book if book else "")


def still_missing(kb: Any, records: list[dict], ran: list[dict], shown: Level, inventory: dict[str, int]) -> list[str]:
    """What the sub-task `shown` lacks now, as the world would name it if its skill were tried: the
    materials, station, tool and fuel of its recipe-book line that the inventory does not cover, then
    anything the world named missing the last time a skill for it was refused and it still needs.
    The recipe line carries their facts, so the prompt says what the sub-task lacks, never what to do."""
    item = next(iter(shown))
    need = needed(kb, shown, inventory) or {}

    def lacks(name: str) -> bool:
        names = kb.variants(name) if kb.is_generic(name) else [name]
        return name != item and any(need.get(n, 0) > 0 for n in [name, *names])

    opt = best_option(kb, kb.canonical(item) or item)
    direct = opt.uses() if opt else []
    refused: list[str] = []
    for r, o in zip(reversed(records), reversed(ran)):
        if not o["ok"] and item in (r.get("shown") or {}):
            refused = missing_items(o)
            break
    return [m for m in dict.fromkeys([*direct, *refused]) if lacks(m)]


class RiderPlanner:
    name = "rider"
    replans = True
    explainer = "game"  # the world's cause is the feedback; no LLM explanation
    rounds_per_budget = 10  # one skill per round: --max-rounds 12 allows 120 skills

    def __init__(
        self,
        llm: Any,
        *,
        revisions: int = 5,
        relabel: bool = True,
        cot: bool = False,
        temperature: float | None = 0.7,
        kb: Any = None,
    ):
        self.llm, self.revisions, self.relabel, self.cot = llm, revisions, relabel, cot
        self.temperature = temperature
        self._retriever: ActionRetriever | None = None
        self._kb = kb

    def _runnable(self, req: PlanRequest, salt: int, *, names: frozenset[str] | None, max_tokens: int) -> Any:
        """The model to ask: held to one skill line over `names` where it takes a grammar."""
        if names and getattr(self.llm, "supports_grammar", False):
            runnable = self.llm.grammar_mode(skill_grammar(names))
        else:
            runnable = self.llm.model
        kwargs: dict[str, Any] = {"max_tokens": max_tokens}
        if self.temperature is not None:  # explore: sample, reproducibly from the episode's seed
            kwargs.update(temperature=self.temperature, seed=req.seed * 10_000 + salt)
        return runnable.bind(**kwargs)

    def _ask(self, runnable: Any, msgs: list[BaseMessage], total: dict[str, int]) -> str:
        from nodes.ask import ask

        text, used = ask(runnable, msgs)
        _add(total, used)
        return text

    def propose(
        self,
        req: PlanRequest,
        msgs: list[BaseMessage],
        salt: int,
        total: dict[str, int],
        shown: Level | None = None,
        short: list[str] | None = None,
    ) -> str:
        """The reply to the next-skill question (`msgs`, which show the sub-task `shown` and the
        facts of `short`): the LLM's, held to one skill line."""
        assert self._retriever is not None
        return self._ask(self._runnable(req, salt, names=self._retriever.names, max_tokens=24), msgs, total)

    def plan(self, req: PlanRequest) -> PlanResult:
        kb = req.kb or self._kb
        if self._retriever is None or self._retriever.kb is not kb:
            self._retriever = ActionRetriever(kb, vocabulary(kb, req.task.target))
        ran = [o for o in req.outcomes if o.get("goal")]  # goals the world ran, oldest first
        records = [r for r in (read_record(p) for p in req.plans) if r is not None]
        last = records[-1] if records else None
        failed = stuck = 0  # failures in a row; those of them on the latest sub-task
        for r, o in zip(reversed(records), reversed(ran)):
            if o["ok"]:
                break
            failed += 1
            stuck += r.get("shown") == records[-1].get("shown")
        if stuck > self.revisions or failed > CHAIN * self.revisions:
            why = ran[-1].get("error") or "it failed"
            return PlanResult(f"# no plan: the rider gave up after {self.revisions} revision(s); last: {why}")

        root: Level = dict(req.task.target)
        pinned = list(last.get("pinned") or []) if last else []  # tools a refused route lacks (push_tool)
        stack = refresh(kb, last["next_stack"] if last else [root], req.inventory, pinned)
        if failed:  # a revision: what the world said is missing, when the task needs it, is the sub-task now
            stack = push(kb, stack, missing_items(ran[-1]), req.inventory)
            tool = (ran[-1].get("missing") or {}).get("tool")
            if tool and self.relabel:  # a tool the refused route lacks, where the solver's route needs none
                product = next(iter(Goal.from_dict(ran[-1]["goal"]).obj))
                grown = push_tool(kb, stack, str(tool), product, req.inventory)
                pinned += [str(tool)] if len(grown) > len(stack) else []
                stack = grown
        pinned = [t for t in dict.fromkeys(pinned) if any(t in level for level in stack)]
        shown = stack[-1] if self.relabel else root
        history = [r["skill"] for r, o in zip(records, ran) if o["ok"]][-HISTORY:]
        # (each record's goal ran exactly once, in order: records and ran line up)
        total: dict[str, int] = {}
        salt = len(records) * 10
        analysis = ""
        if self.cot:
            analysis = self._ask(
                self._runnable(req, salt + 9, names=None, max_tokens=120), cot_messages(kb, shown, req.inventory), total
            ).strip()
        short = still_missing(kb, records, ran, shown, req.inventory)
        msgs = step_messages(kb, shown, req.inventory, history, analysis, req.knowledge, short)
        feedback = None
        if failed and last is not None:
            feedback = feedback_text(kb, ran[-1], req.knowledge)
            msgs = revise_messages(msgs, last["reply"], last["skill"], feedback, req.inventory)
        reply = self.propose(req, msgs, salt, total, shown, short)
        action, how = self._retriever.retrieve(reply)
        if action is None:
            return PlanResult(f"# no plan: the LLM named no skill (reply {reply.strip()[:80]!r})", total)
        made = list(kb.mob_drops(action.item)) if action.action == "kill" and kb.is_mob(action.item) else [action.item]
        next_stack = push(kb, stack, made, req.inventory)
        record = {
            "skill": action.text,
            "action": action.action,
            "item": action.item,
            "reply": reply.strip(),
            "how": how,
            "stack": stack,
            "shown": shown,
            "inventory": dict(req.inventory),
            "history": history,
            "revision": failed,
            "feedback": feedback,
            "analysis": analysis or None,
            "next_stack": next_stack,
            "relabel": self.relabel,
            "knowledge": req.knowledge,
            "short": short,
        }
        if pinned:
            record["pinned"] = pinned
        goal = Goal(action.action, {action.item: 1})
        text = f"{goal.code()}  # step 1: {action.text}\n{record_line(record)}"
        return PlanResult(text, total)


def make_rider(llm: Any, settings: Any) -> RiderPlanner:
    opts = settings.option("rider")  # nodes/registry.py: RiderOptions
    return RiderPlanner(llm, revisions=opts.revisions, relabel=opts.relabel, cot=opts.rider_cot)
