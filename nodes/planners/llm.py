"""The DEPS planner: an LLM in a growing dialogue (task, plan, description, explanation,
re-plan ...), with the paper's two worked examples as few-shot demonstrations.

Where the back-end constrains output to a JSON schema (the local llama.cpp server), the
plan is asked for as JSON and rendered back to the code form; else the code form is read
from the text. The prompt files are in prompts/ and can be swapped per planner.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

import prompts
from nodes.describe import inventory_text
from nodes.facts import failure_missing, recipe_book
from nodes.parse import code_goals
from nodes.planners.base import PlanRequest, PlanResult, goals_to_text
from worlds.types import ACTIONS, Goal

PLAN_SCHEMA = {
    "type": "object",
    "properties": {
        "goals": {
            "type": "array",
            "minItems": 1,
            "maxItems": 16,
            "items": {
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": list(ACTIONS)},
                    "item": {"type": "string"},
                    "count": {"type": "integer", "minimum": 1, "maximum": 64},
                    "materials": {
                        "type": "array",
                        "maxItems": 6,
                        "items": {
                            "type": "object",
                            "properties": {
                                "item": {"type": "string"},
                                "count": {"type": "integer", "minimum": 1, "maximum": 64},
                            },
                            "required": ["item", "count"],
                        },
                    },
                    "tool": {"type": "string"},
                },
                "required": ["action", "item", "count", "materials", "tool"],
            },
        }
    },
    "required": ["goals"],
}


def plan_schema(kb: Any) -> dict:
    """PLAN_SCHEMA with item and tool names constrained to the knowledge base's names, so a
    grammar-constrained model cannot invent items (it can still pick the wrong ones)."""
    if kb is None:
        return PLAN_SCHEMA
    from nodes.planners.grammar import plan_vocabulary

    items, mobs, tools = plan_vocabulary(kb)
    names = sorted(set(items) | set(mobs))
    tool_names = ["none", *tools]
    schema = json.loads(json.dumps(PLAN_SCHEMA))
    props = schema["properties"]["goals"]["items"]["properties"]
    props["item"] = {"type": "string", "enum": names}
    props["tool"] = {"type": "string", "enum": tool_names}
    props["materials"]["items"]["properties"]["item"] = {"type": "string", "enum": names}
    return schema


def target_text(target: dict[str, int]) -> str:
    return ", ".join(f"{n} {item}" for item, n in target.items())


def goals_to_json(goals: list[Goal]) -> str:
    return json.dumps(
        {
            "goals": [
                {
                    "action": g.action,
                    "item": next(iter(g.obj)),
                    "count": next(iter(g.obj.values())),
                    "materials": [{"item": k, "count": v} for k, v in g.materials.items()],
                    "tool": g.tool or "none",
                }
                for g in goals
            ]
        }
    )


def json_to_goals(text: str) -> list[Goal]:
    data = json.loads(text)
    goals = []
    for g in data.get("goals", []):
        tool = g.get("tool")
        tool = None if not tool or str(tool).lower() in ("none", "null", "hand") else str(tool)
        mats = g.get("materials") or []
        if isinstance(mats, dict):
            mats = [{"item": k, "count": v} for k, v in mats.items()]
        goals.append(
            Goal(
                g["action"],
                {str(g["item"]): int(g.get("count", 1))},
                {str(m["item"]): int(m.get("count", 1)) for m in mats},
                tool,
            )
        )
    return goals


def _code_lines_to_json(text: str) -> str:
    return goals_to_json(code_goals(text))


OVERFLOW_SHRINK = 0.6  # the dialogue's size after a refusal for the context, of what was refused
RELAY_AFTER = 1  # the rounds the run's own model plans before a relay takes the dialogue over


def leg(req: PlanRequest, start: int, knowledge: str | None = None) -> PlanRequest:
    """The request as a dialogue that began at round `start`: its plans, descriptions and
    explanations from there on, its outcomes renumbered to match; the world is as it is now."""
    outcomes = [{**o, "plan": o["plan"] - start} for o in req.outcomes if o.get("plan", 0) >= start]
    return replace(
        req,
        plans=req.plans[start:],
        descriptions=req.descriptions[start:],
        explanations=req.explanations[start:],
        outcomes=outcomes,
        knowledge=knowledge or req.knowledge,
    )


class DialoguePlanner:
    """An LLM planner in the DEPS dialogue form.

    `output`: "grammar" (the code form, constrained by a GBNF grammar: llama.cpp), "json"
    (a JSON schema, rendered back to the code form), "text" (the code form as written), or
    "auto": grammar where the back-end takes one, else text. On SmolLM2-135M the grammar
    keeps the model's own code-form habits (11 of 12 first plans start by mining a log)
    where the JSON form loses them (0 of 12), so it is the default for llama.cpp.
    """

    replans = True

    def __init__(
        self,
        llm: Any,
        *,
        name: str = "deps",
        prompt: str = "deps_planner",
        output: str = "auto",
        history_chars: int = 8000,
        recipe_grammar: bool = False,
        replan_temperature: float | None = 0.7,
        relay: str | None = None,
    ):
        self.llm, self.name, self.prompt = llm, name, prompt
        self.relay = relay if relay not in (None, "auto", "none") else None  # the model that re-plans (`leg`)
        self._relayed: DialoguePlanner | None = None
        if output == "auto":
            output = "grammar" if getattr(llm, "supports_grammar", False) else "text"
        self.output = output
        self.structured = output == "json"
        self.history_chars = history_chars  # the dialogue's earlier rounds kept, newest first, within this size
        self.recipe_grammar = recipe_grammar  # the grammar also holds lines to recipes (grammar.LineFacts)
        self.replan_temperature = replan_temperature

    def _as_plan(self, text: str) -> str:
        """Earlier plans as the model should see them: JSON in structured mode, else code."""
        return _code_lines_to_json(text) if self.structured else text

    def messages(self, req: PlanRequest, history_chars: int | None = None) -> list:
        msgs = [
            AIMessage(_code_lines_to_json(m.content))
            if self.structured and isinstance(m, AIMessage) and isinstance(m.content, str) and "(" in m.content
            else m
            for m in prompts.chat(self.prompt)
        ]
        if self.structured:
            msgs[0] = SystemMessage(
                str(msgs[0].content) + '\nWrite the plan as JSON: {"goals": [{"action", '
                '"item", "count", "materials": [{"item", "count"}], "tool"}, ...]}.'
            )
        rounds, left_out = self.window(req, history_chars)
        start_inv = (
            "My inventory is empty."
            if not req.task.inventory
            else f"My inventory has {inventory_text(req.task.inventory)}."
        )
        question = prompts.render("deps_question", target=target_text(req.task.target), inventory=start_inv).strip()
        book = recipe_book(req.kb, req.task.target, (), req.knowledge)  # --knowledge (nodes/facts.py)
        if book:
            question += " " + book
        if left_out and left_out[0] == 0:  # even the first plan did not fit
            question += " " + _summary(req, left_out)
        msgs.append(HumanMessage(question))
        for r in rounds:
            msgs.append(AIMessage(self._as_plan(req.plans[r])))
            description = req.descriptions[r]
            if req.knowledge != "none" and "Recipe book:" not in description:  # the describer's hints, else ours
                more = recipe_book(req.kb, (), failure_missing(req.outcomes, r), "target")
                description = f"{description} {more}".strip()
            msgs.append(
                HumanMessage(
                    prompts.render(
                        "deps_replan",
                        description=description,
                        explanation=req.explanations[r] if r < len(req.explanations) else "",
                        task=f"obtain {target_text(req.task.target)}",
                    ).strip()
                )
            )
            if left_out and r == rounds[0] and r + 1 == left_out[0]:
                msgs[-1] = HumanMessage(str(msgs[-1].content) + " " + _summary(req, left_out))
        return msgs

    def window(self, req: PlanRequest, history_chars: int | None = None) -> tuple[list[int], list[int]]:
        """Which earlier rounds the dialogue keeps, so that it fits the model's context (the
        embedded model's is 4096 tokens): the first plan (round 0) and the newest rounds, as many
        as fit in `history_chars` characters (the planner's own unless given; the newest always).
        Returns (kept, left out); the left-out rounds are told in one summary line after the
        first round (`_summary`)."""
        limit = self.history_chars if history_chars is None else history_chars
        n = len(req.plans)
        if n == 0:
            return [], []

        def size(r: int) -> int:
            return (
                len(req.plans[r])
                + len(req.descriptions[r] if r < len(req.descriptions) else "")
                + len(req.explanations[r] if r < len(req.explanations) else "")
            )

        kept = [n - 1]
        used = size(n - 1)
        if n > 1 and used + size(0) <= limit:
            used += size(0)
            kept.append(0)
        for r in range(n - 2, 0, -1):
            if used + size(r) > limit:
                break
            used += size(r)
            kept.append(r)
        kept.sort()
        return kept, [r for r in range(n) if r not in kept]

    def relayed(self) -> DialoguePlanner | None:
        """The planner of the relay's leg: the same dialogue on the relay model (opened beside the
        run's, `llm.sibling`) with the options that model was taught (its card's, else these)."""
        if self.relay is None or not hasattr(self.llm, "sibling"):
            return None
        if self._relayed is None:
            other = self.llm.sibling(self.relay, warm_for=self.name)
            mine = {"history_chars": self.history_chars, "recipe_grammar": self.recipe_grammar}
            taught = {k: v for k, v in ((other.taught.get("options") or {}).get("deps") or {}).items() if k in mine}
            self._relayed = DialoguePlanner(
                other,
                name=self.name,
                prompt=self.prompt,
                replan_temperature=self.replan_temperature,
                **{**mine, **taught},
            )
        return self._relayed

    def plan(self, req: PlanRequest) -> PlanResult:
        from nodes.ask import ContextOverflow, ask

        if req.round >= RELAY_AFTER and (other := self.relayed()) is not None:
            # the first plan failed: the relay plans from here on in a dialogue of its own (its first
            # plan read from the world as it is now), as it was taught, not continuing this one's
            return other.plan(leg(req, RELAY_AFTER, getattr(other.llm, "taught", {}).get("knowledge")))
        if self.output == "grammar" and req.kb is not None:
            from nodes.planners.grammar import code_form_grammar

            runnable = self.llm.grammar_mode(
                code_form_grammar(req.kb, target=dict(req.task.target), recipes=self.recipe_grammar)
            )
        elif self.structured:
            runnable = self.llm.json_mode(plan_schema(req.kb))
        else:
            runnable = self.llm.model
        if req.plans and self.replan_temperature is not None:
            # sample re-plans (a new seed each round, reproducible from the episode's seed) rather
            # than repeat the same greedy plan: small models otherwise loop on one mistake
            runnable = runnable.bind(temperature=self.replan_temperature, seed=req.seed * 1000 + req.round)
        budget = self.history_chars
        while True:
            msgs = self.messages(req, budget)
            try:
                text, used = ask(runnable, msgs)
                break
            except ContextOverflow:
                # characters are a rough measure of tokens (code-like plans take more): the back-end
                # refused the prompt as too long, so keep fewer rounds and ask again, until only the
                # newest round is left (then the refusal stands)
                kept = self.window(req, budget)[0]
                if len(kept) <= 1:
                    raise
                while self.window(req, budget)[0] == kept:  # at least one round fewer
                    budget = int(budget * OVERFLOW_SHRINK)
        if self.structured:
            try:
                text = goals_to_text(json_to_goals(text))
            except (ValueError, KeyError, TypeError):
                pass  # left as written; the parser reports what it cannot read
        return PlanResult(text, used)


def _summary(req: PlanRequest, left_out: list[int]) -> str:
    """One line in place of the rounds cut from the dialogue: how many, and how each ended."""
    ends = []
    for r in left_out[:4]:
        d = req.descriptions[r] if r < len(req.descriptions) else ""
        ends.append(" ".join(d.split())[:100])
    more = f"; and {len(left_out) - 4} more" if len(left_out) > 4 else ""
    return (
        f"(Rounds {left_out[0] + 1} to {left_out[-1] + 1} are left out to fit the context; "
        f"each plan failed: {' | '.join(ends)}{more}.)"
    )


def _dialogue(settings: Any) -> dict[str, Any]:
    """The dialogue's options (nodes/registry.py DialogueOptions) as DialoguePlanner's arguments."""
    if settings is None:
        return {}
    o = settings.option("deps")
    return {"history_chars": o.history_chars, "recipe_grammar": o.recipe_grammar, "relay": o.relay}


def deps_planner(llm: Any, settings: Any = None) -> DialoguePlanner:
    """DEPS: the growing dialogue, with the run's selector (nodes/registry.py names it)."""
    return DialoguePlanner(llm, name="deps", **_dialogue(settings))


def dep_planner(llm: Any, settings: Any = None) -> DialoguePlanner:
    """DEP: the same dialogue (and the same --history-chars, --recipe-grammar); goals run in plan order."""
    return DialoguePlanner(llm, name="dep", **_dialogue(settings))
