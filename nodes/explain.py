"""The explain node: why did the goal fail? The LLM answers from the failed goal, the game's
message and the inventory (DEPS's explainer, with its few-shot demonstrations in
prompts/deps_explainer.txt). Planners without an LLM use the game's message as it is.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

import prompts
from nodes.context import AgentContext
from nodes.describe import inventory_text
from nodes.state import AgentState
from worlds.types import Goal


class GameMessageExplainer:
    """No LLM: the explanation is the world's own statement of the missing precondition."""

    name = "game"

    def explain(self, failed: str, error: str, inventory: dict[str, int]) -> tuple[str, dict]:
        return f"The game says: {error}.", {}


class LLMExplainer:
    name = "llm"

    def __init__(self, llm: Any, prompt: str = "deps_explainer"):
        self.llm, self.prompt = llm, prompt

    def explain(self, failed: str, error: str, inventory: dict[str, int]) -> tuple[str, dict]:
        from nodes.ask import ask

        msgs = prompts.chat(self.prompt, goal=failed, error=error, inventory=inventory_text(inventory))
        text, used = ask(self.llm.model, msgs)
        return text.strip().split("\n\n")[0], used


def explain(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    last = state["outcomes"][-1]
    failed = Goal.from_dict(last["goal"]).code() if last["goal"] else "(the plan as a whole)"
    text, used = runtime.context.explainer.explain(failed, last["error"], state.get("inventory", {}))
    return {"explanations": [text], "explain_usage": used}
