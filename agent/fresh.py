"""A new run starts from nothing: the guard that keeps one run's state out of another.

Runs sharing a `--trace-dir` share one checkpoint file; each run gets its own thread in it
(agent.runner.new_thread). Should a thread ever be reused (a name collision, a caller that
passes the thread of an earlier run without `resume`), LangGraph would merge the new input
into the old thread's state: plans, outcomes and token counts would carry over and the
result would describe two runs at once. These checks make that impossible to miss: a fresh
run refuses a thread that already holds checkpoints, and its first state must be empty of
history (round 0, no plans, outcomes, descriptions or LLM usage). A run that fails them
raises, so no result is ever made, printed or stored from a contaminated state.
"""

from __future__ import annotations

from typing import Any

# the state's history: what only a run's own nodes may write (nodes/state.py)
HISTORY_FIELDS = ("plans", "outcomes", "descriptions", "explanations")
USAGE_FIELDS = ("plan_usage", "explain_usage")


class ContaminatedState(RuntimeError):
    """A fresh run found another run's state; the message is one line."""


def check_new_thread(graph: Any, config: dict[str, Any], where: str | None = None) -> None:
    """Refuse to start a fresh run on a thread that already has checkpoints."""
    thread = config["configurable"]["thread_id"]
    try:
        snap = graph.get_state(config)
    except ValueError:  # no checkpointer: nothing persists, nothing can carry over
        return
    if snap.values:
        raise ContaminatedState(
            f"thread {thread!r} already holds a run's checkpoints{' in ' + where if where else ''}; "
            "a new run needs a new thread (to continue that run: deps run --resume THREAD)"
        )


def check_fresh_state(values: dict[str, Any], thread: str) -> None:
    """A fresh run's first state: round 0, no history, no LLM usage."""
    dirty = [k for k in HISTORY_FIELDS if values.get(k)]
    dirty += [k for k in USAGE_FIELDS if any((values.get(k) or {}).values())]
    if values.get("status") not in (None, "running"):
        dirty.append(f"status={values.get('status')}")
    if dirty:
        raise ContaminatedState(
            f"run {thread!r} did not start fresh (it inherited {', '.join(dirty)} from another run); "
            "no result is made from it"
        )
