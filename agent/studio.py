"""The graph as LangGraph's own server loads it (`langgraph dev`, LangGraph Studio, the
LangGraph API): `langgraph.json` points at `graph` below, a compiled graph, not a factory.

A client cannot send live Python objects, so a run's context here is plain data, an
`EpisodeRequest` (task, planner, selector, world, LLM, seed, budgets), every field with a
default; Studio shows it as the run's context form. The first node of a run builds the
episode's parts from it (knowledge base, world, planner, parser, selector, controller,
explainer: the same `build_context` as `deps run`) and every later node of the same run
reuses them. LLM back-ends are opened once per spec and kept for the server's life (the
embedded model's server is stopped at exit, as everywhere else).

    curl -s localhost:2024/runs/wait -H 'content-type: application/json' -d \
      '{"assistant_id": "deps", "input": {}, "context": {"task": "CraftPlanks", "planner": "oracle"}}'
"""
from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from typing import Any

from agent.graph import build_graph
from agent.runner import build_context, resolve_task
from nodes.context import AgentContext
from nodes.settings import RunSettings

MAX_CACHED_RUNS = 16


@dataclass
class EpisodeRequest:
    """One episode, as plain data (the CLI's `deps run` flags)."""
    task: str = "CraftPlanks"          # a task id (deps71, plan4mc, mp5) or an instruction
    planner: str = "oracle"            # deps, dep, zero-shot, ..., oracle (no LLM), or package.module:factory
    selector: str | None = None        # fixed, random, horizon, oracle; None: the planner's default
    controller: str | None = None      # scripted, learned; None: the world's default
    explainer: str | None = None       # package.module:factory for your own; None: the default
    parser: str | None = None
    describer: str | None = None
    world: str = "textworld"
    llm: str = "local"                 # local, PROVIDER:MODEL, or an OpenAI-compatible base URL
    mc_version: str = "1.11.2"
    seed: int = 0
    max_rounds: int = 12
    max_tokens: int = 200_000
    inventory: dict[str, int] = field(default_factory=dict)

    def settings(self) -> RunSettings:
        fields = asdict(self)
        fields.pop("task")
        return RunSettings(**fields).validate()


_lock = threading.Lock()
_runs: OrderedDict[str, AgentContext] = OrderedDict()
_llms: dict[str, Any] = {}
_exits = contextlib.ExitStack()


def _llm(spec: str, settings: RunSettings) -> Any:
    from agent.components import needs_llm
    from agent.llm import open_chat_model

    if not needs_llm(settings):
        return None
    if spec not in _llms:
        _llms[spec] = _exits.enter_context(open_chat_model(spec, seed=settings.seed))
    return _llms[spec]


def _run_key() -> str:
    from langgraph.config import get_config

    conf = get_config()
    c = conf.get("configurable") or {}
    meta = conf.get("metadata") or {}
    return str(c.get("run_id") or meta.get("run_id") or c.get("thread_id") or "default")


def episode_context(request: EpisodeRequest | AgentContext | dict | None) -> AgentContext:
    """The parts of this run's episode, built once per run from the client's request."""
    if isinstance(request, AgentContext):
        return request
    if request is None:
        request = EpisodeRequest()
    elif isinstance(request, dict):
        request = EpisodeRequest(**request)
    key = _run_key()
    with _lock:
        if key not in _runs:
            settings = request.settings()
            from worlds.knowledge import load_kb

            kb = load_kb(settings.mc_version)
            task = resolve_task(request.task, kb)
            _runs[key] = build_context(task, settings, _llm(settings.llm, settings), kb)
            while len(_runs) > MAX_CACHED_RUNS:
                _runs.popitem(last=False)
        return _runs[key]


def _with_parts(node):
    def run(state, runtime):
        return node(state, runtime.override(context=episode_context(runtime.context)))

    run.__name__ = node.__name__
    run.__doc__ = node.__doc__
    return run


graph = build_graph(wrap=_with_parts, context_schema=EpisodeRequest)
