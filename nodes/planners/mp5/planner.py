"""MP5 as a planner: parser, percipient, patroller, planner and the two memories.

One plan call, for the task from what the agent holds now:
1. the Parser lists the sub-objectives, each with the fact the knowledge memory gives for it;
2. for each, the Patroller asks the Percipient about the scene, round by round (MP5
   Figure 3), and the Planner (the LLM) writes the sub-objective's actions in MP5's action
   space, shown the 2 nearest successful sequences of the performer memory;
3. the Patroller checks the actions against the rules (tools, platform, materials) from
   what the agent will hold then; on a failed check it tells the Planner why and the
   Planner revises (twice at most).  A stored sequence for the very same sub-objective
   that passes the check is reused as it is, with no LLM call (our choice, to spare tokens
   on a small machine; MP5 shows it to the LLM as a demonstration, as we do otherwise);
4. the actions become goals of the DEPS code form, which the graph executes.
After a failure in the world the Patroller reads the world's cause and the Parser re-lists
the sub-objectives from what is held now (dropped items included); sequences that reached
their sub-objective go into the performer memory.

`--ablate performer-memory` plans without demonstrations and stores nothing; `--ablate
patroller` skips the rule check and, after a failure, resumes the old list at the failed
sub-objective with no cause given (MP5 Table 7's rows).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

import prompts
from nodes.describe import inventory_text
from nodes.facts import failure_missing, prompt_facts
from nodes.planners.base import PlanRequest, PlanResult
from nodes.planners.mp5.actions import action_grammar, parse_actions, to_goals
from nodes.planners.mp5.knowledge import KnowledgeMemory
from nodes.planners.mp5.memory import PerformerMemory, memory_folder
from nodes.planners.mp5.parser import SubObjective, parse_task
from nodes.planners.mp5.patroller import Patroller, perceive, questions_for
from nodes.planners.mp5.percipient import make_percipient

REVISIONS = 2  # patroller-driven revisions of one sub-objective's actions
DEMOS = 2  # performer-memory demonstrations per sub-objective (MP5: top 2)


def _usage(reply: Any) -> tuple[int, int]:
    um = getattr(reply, "usage_metadata", None) or {}
    tin, tout = int(um.get("input_tokens") or 0), int(um.get("output_tokens") or 0)
    if not (tin or tout):
        tu = (getattr(reply, "response_metadata", None) or {}).get("token_usage") or {}
        tin, tout = int(tu.get("prompt_tokens") or 0), int(tu.get("completion_tokens") or 0)
    return tin, tout


class MP5Planner:
    name = "mp5"
    replans = True
    explainer = "game"  # the patroller gives the cause; no separate LLM explainer

    def __init__(self, llm: Any, settings: Any, kb: Any = None):
        from worlds.knowledge import load_kb

        self.llm = llm
        opts = settings.option("mp5")
        ablate = set(opts.ablate or ())
        self.use_memory = "performer-memory" not in ablate
        self.use_patroller = "patroller" not in ablate
        self.folder = memory_folder(opts.memory)
        kb = kb or load_kb(settings.mc_version)
        self.performer = PerformerMemory(self.folder) if self.use_memory else None  # checked first: cheap
        self.knowledge = KnowledgeMemory(self.folder, kb)
        self.percipient = make_percipient(opts.percipient)
        self.patroller = Patroller(kb)
        self.subs: list[SubObjective] | None = None  # the list being worked through
        self.issued: dict[int, list[dict[str, Any]]] = {}  # plan number -> what each sub-objective got
        self.learned: set[int] = set()
        self.log: list[dict[str, Any]] = []  # per plan: perception, retrievals, checks

    # ------------------------------------------------------------------ the LLM
    def _ask(
        self,
        msgs: list,
        req: PlanRequest,
        attempt: int,
        usage: dict[str, int],
        sub: SubObjective,
        holding: dict[str, int],
    ) -> str:
        runnable = self.llm.model
        if getattr(self.llm, "supports_grammar", False):
            runnable = self.llm.grammar_mode(action_grammar(req.kb, sub, holding))
            if attempt or req.plans:  # sample revisions rather than repeat a greedy mistake
                runnable = runnable.bind(temperature=0.7, seed=req.seed * 1000 + req.round * 10 + attempt)
        reply = runnable.invoke(msgs)
        tin, tout = _usage(reply)
        usage["calls"] += 1
        usage["tokens_in"] += tin
        usage["tokens_out"] += tout
        return reply.content if isinstance(reply.content, str) else str(reply.content)

    def _knowledge(self, req: PlanRequest, sub: SubObjective, missing: list[str]) -> str:
        """The sub-objective's knowledge line (--knowledge): none; target: its fact (exact look-up
        first, nodes/planners/mp5/knowledge.py), the facts of what the world said was missing,
        and the notes; tree: the facts of its way down too (nodes/facts.py)."""
        if req.knowledge == "none":
            return "none"
        own = sub.fact or ""
        targets = [sub.item] if req.knowledge == "tree" else []
        extra = [
            f for f in prompt_facts(req.kb, targets, missing, req.knowledge, memory=self.knowledge) if f not in own
        ]
        return " ".join([own, *(f + "." for f in extra), *sub.notes]).strip() or "none"

    def _messages(
        self,
        sub: SubObjective,
        perceived: str,
        holding: dict[str, int],
        demos: list[dict[str, Any]],
        cause: str | None,
        knowledge: str = "none",
    ) -> list:
        msgs = prompts.chat("mp5_planner")
        for d in demos:
            msgs.append(HumanMessage(f"Sub-objective: {d['subobjective']}\nSituation: {d['situation']}"))
            msgs.append(AIMessage(d["actions"]))
        question = prompts.render(
            "mp5_subobjective",
            subobjective=sub.text,
            perceived=perceived,
            inventory=inventory_text(holding),
            knowledge=knowledge,
        ).strip()
        if cause:
            question += f"\nLast time: {cause}"
        msgs.append(HumanMessage(question))
        return msgs

    # ------------------------------------------------------------------ memory
    def _learn(self, outcomes: list[dict[str, Any]], plan_no: int, success: bool = False) -> None:
        """Sub-objectives of plan `plan_no` whose goals all ran and succeeded: done, and stored.
        When the episode ended in success, the goals left unrun were not needed: a
        sub-objective counts when every goal of it that ran succeeded."""
        if plan_no in self.learned or plan_no not in self.issued:
            return
        self.learned.add(plan_no)
        ran = {o["step"]: o["ok"] for o in outcomes if o.get("plan") == plan_no and o.get("step") is not None}
        for entry in self.issued[plan_no]:
            steps = range(entry["first"], entry["first"] + entry["n_goals"])
            done = [ran[i] for i in steps if i in ran] if success else [ran.get(i) for i in steps]
            if not done or not all(done):
                continue
            entry["sub_obj"].done = True
            if self.performer is not None:
                self.performer.remember(entry["sub"], entry["situation"], entry["actions"], task=entry["task"])

    def finish(self, state: dict[str, Any]) -> None:
        """End of the episode (agent/runner.py): learn from the last plan's outcomes."""
        self._learn(state.get("outcomes", []), len(state.get("plans", [])) - 1, state.get("status") == "success")

    # ------------------------------------------------------------------ planning
    def _sub_objectives(self, req: PlanRequest) -> tuple[list[SubObjective], str | None]:
        if self.subs is None or self.use_patroller:
            subs, why = parse_task(req.task, req.inventory, req.kb, self.knowledge, req.allowed_skills, req.gives)
            self.subs = subs
            return subs, why
        return [s for s in self.subs if not s.done], None  # no patroller: carry on with the old list

    def _reuse(
        self,
        demos: list[dict[str, Any]],
        sub: SubObjective,
        req: PlanRequest,
        holding: dict[str, int],
        biome: str | None,
        cause: str | None,
    ) -> tuple | None:
        """A stored sequence for this very sub-objective, taken as it is (no LLM call) when the
        patroller passes it here, or when there is no patroller; never right after it failed."""
        exact = next((d for d in demos if d["subobjective"] == sub.text), None)
        if exact is None or cause:
            return None
        actions = parse_actions(exact["actions"])
        goals = to_goals(actions, sub, req.kb)
        ok, _, after = self.patroller.check(goals, sub, holding, biome)
        return (actions, goals, after) if ok or not self.use_patroller else None

    def plan(self, req: PlanRequest) -> PlanResult:
        usage = {"calls": 0, "tokens_in": 0, "tokens_out": 0}
        if req.plans:
            self._learn(req.outcomes, len(req.plans) - 1)
        subs, why = self._sub_objectives(req)
        cause = None
        if req.plans and self.use_patroller:
            last = next((o for o in reversed(req.outcomes) if not o.get("ok")), None)
            cause = last["error"] if last else None
        plan_no = len(req.plans)
        lines: list[str] = []
        issued: list[dict[str, Any]] = []
        log: dict[str, Any] = {"plan": plan_no, "subs": []}
        holding = dict(req.inventory)
        biome = req.observation.get("biome") or req.task.biome
        scenes = [perceive(self.percipient, questions_for(sub, req.kb), req.observation) for sub in subs]
        recalled = (
            self.performer.recall_many([(s.text, p.text()) for s, p in zip(subs, scenes)], DEMOS)
            if self.performer and subs
            else [[] for _ in subs]
        )
        for k, (sub, seen, demos) in enumerate(zip(subs, scenes, recalled), 1):
            situation = seen.text()
            missing = failure_missing(req.outcomes) if k == 1 and req.plans else []
            msgs = self._messages(
                sub, seen.text(), holding, demos, cause if k == 1 else None, self._knowledge(req, sub, missing)
            )
            checks, reused = [], self._reuse(demos, sub, req, holding, biome, cause if k == 1 else None)
            for attempt in range(0 if reused else 1 + (REVISIONS if self.use_patroller else 0)):
                text = self._ask(msgs, req, attempt, usage, sub, holding)
                actions = parse_actions(text)
                goals = to_goals(actions, sub, req.kb)
                ok, problem, after = self.patroller.check(goals, sub, holding, biome, seen)
                checks.append(problem or "ok")
                if ok or not self.use_patroller:
                    break
                msgs += [AIMessage(text), HumanMessage(f"The patroller says: {problem}. Write the actions again.")]
            if reused:
                actions, goals, after = reused
                checks.append("reused from the performer memory")
            holding = after
            action_text = "\n".join(a.text() for a in actions)
            issued.append(
                {
                    "sub": sub.text,
                    "sub_obj": sub,
                    "situation": situation,
                    "actions": action_text,
                    "first": sum(e["n_goals"] for e in issued),
                    "n_goals": len(goals),
                    "task": req.task.id,
                }
            )
            log["subs"].append(
                {
                    "sub": sub.text,
                    "perceived": seen.facts,
                    "missing": seen.missing,
                    "demos": [d["subobjective"] for d in demos],
                    "checks": checks,
                }
            )
            source = " (reused from the performer memory)" if reused else ""
            lines.append(
                f"# sub-objective {k}{source}: {sub.text} | {'; '.join(a.text() for a in actions) or 'no action'}"
            )
            lines += [f"{g.code()}  # {g.text}" for g in goals]
        if not subs:
            lines.append(f"# no sub-objective: {why or 'nothing to do'}")
        self.issued[plan_no] = issued
        self.log.append(log)
        return PlanResult("\n".join(lines), usage)


def factory(llm: Any = None, settings: Any = None) -> MP5Planner:
    return MP5Planner(llm, settings)
