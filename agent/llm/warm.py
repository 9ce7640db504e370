"""Warming the embedded server's prompt cache with the fixed part of each planner's prompts.

A planner's prompt opens with text that never changes between calls: the system text and the
few-shot demonstrations of its prompt file (prompts/*.txt), before the first message that
carries a placeholder ($target, $goal ...). The llama.cpp server keeps the state of the
prompts it has evaluated (`--cache`, agent/llm/local_server.py) and starts each request from
the longest cached prefix, so once that fixed part has been evaluated, a request only pays for
what follows it: the task, the dialogue so far, the reply.

`warm(base_url, model, planner)` sends the fixed part of the planner's own prompt and of its
explainer's, each as a one-token completion, so the evaluation happens while the caller does
other work (start it in a thread), not on the first plan's path.
"""

from __future__ import annotations

import json
import time
import urllib.request

import prompts

# the prompt files a planner's LLM calls open with (planner prompt first, then its explainer's)
PLANNER_PROMPTS: dict[str, tuple[str, ...]] = {
    "deps": ("deps_planner", "deps_explainer"),
    "dep": ("deps_planner", "deps_explainer"),
}


def fixed_messages(prompt: str) -> list[tuple[str, str]]:
    """The (role, content) messages of a prompt file before its first placeholder: the part
    of every call with this prompt that never changes."""
    out = []
    for role, content in prompts.messages(prompt):
        if "$" in content:
            break
        out.append((role, content))
    return out


def fixed_prefixes(planner: str) -> list[list[tuple[str, str]]]:
    """The fixed parts to warm for `planner` (none for a planner without an entry)."""
    parts = [fixed_messages(name) for name in PLANNER_PROMPTS.get(planner, ())]
    return [p for p in parts if p]


def warm(base_url: str, model: str, planner: str, timeout: float = 120.0, *, planner_only: bool = False) -> float:
    """Evaluate each fixed part once on the server at `base_url` (OpenAI-compatible, llama.cpp);
    returns the seconds it took. `planner_only`: the planner's part alone (what the first request
    needs; the explainer's is cached by its own first call). Failures are left to the real
    request to report."""
    t0 = time.perf_counter()
    parts = fixed_prefixes(planner)
    for part in parts[:1] if planner_only else parts:
        body = json.dumps(
            {
                "model": model,
                "max_tokens": 1,
                "temperature": 0.0,
                "messages": [{"role": r, "content": c} for r, c in part],
            }
        ).encode()
        req = urllib.request.Request(
            base_url.rstrip("/") + "/chat/completions", data=body, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                resp.read()
        except OSError:
            break
    return time.perf_counter() - t0
