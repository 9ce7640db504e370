"""How a node asks a chat model: one call, the reply's text, and the usage the state counts.

Any LangChain chat model (or one bound to a grammar or schema) will do; the project's
back-ends (agent/llm/__init__.py) hand the nodes such a model, and tests hand them a fake one.
"""

from __future__ import annotations

from typing import Any


class LLMCallFailed(RuntimeError):
    """The LLM could not answer (after the back-end's retries): one line saying why. The runner
    ends the episode with it as the failure_reason, so the episode is stored, not lost."""


class ContextOverflow(LLMCallFailed):
    """The back-end refused the prompt as longer than the model's context: a caller that can
    say the same in fewer words (the DEPS dialogue, leaving out more rounds) may ask again."""


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def _int(v: Any) -> int:
    try:
        return int(v or 0)
    except (TypeError, ValueError):
        return 0


def _model_name(runnable: Any) -> str:
    """The chat model's own name under any bindings (the back-end names it after the --llm spec)."""
    while hasattr(runnable, "bound"):
        runnable = runnable.bound
    return str(getattr(runnable, "name", None) or type(runnable).__name__)


def run_name(runnable: Any) -> str:
    """How a trace names this LLM call: the role (the graph node asking, and the planner when it
    is the plan node) and the model, e.g. "deps planner · local:rider" or "explainer · local"."""
    try:
        from langgraph.config import get_config

        meta: dict[str, Any] = get_config().get("metadata") or {}
    except RuntimeError:  # called outside a graph run (a test, the teacher)
        meta = {}
    node = meta.get("langgraph_node") or ""  # "" as None: no node, the role is "llm"
    role = {"plan": f"{meta.get('planner', '')} planner".strip(), "explain": "explainer"}.get(node, node or "llm")
    return f"{role} · {_model_name(runnable)}"


def ask(runnable: Any, messages: list) -> tuple[str, dict[str, int]]:
    """Invoke a chat model (or a bound one) once: the reply's text, and its usage as
    {calls, tokens_in, tokens_out} for the state's counters."""
    reply = runnable.invoke(messages, config={"run_name": run_name(runnable)})
    tin, tout = usage_of(reply)
    text = reply.content if isinstance(reply.content, str) else str(reply.content)
    return text, {"calls": 1, "tokens_in": tin, "tokens_out": tout}


def usage_of(message: Any) -> tuple[int, int]:
    """(tokens_in, tokens_out) of an AIMessage: usage_metadata, else response_metadata's token_usage
    (or usage); (0, 0) when the back-end reported none."""
    um = _get(message, "usage_metadata")
    if um:
        tin, tout = _int(_get(um, "input_tokens")), _int(_get(um, "output_tokens"))
        if tin or tout:
            return tin, tout
    rm = _get(message, "response_metadata") or {}
    for key in ("token_usage", "usage"):
        tu = _get(rm, key)
        if tu:
            tin = _int(_get(tu, "prompt_tokens") or _get(tu, "input_tokens"))
            tout = _int(_get(tu, "completion_tokens") or _get(tu, "output_tokens"))
            if tin or tout:
                return tin, tout
    return 0, 0
