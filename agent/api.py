"""The agent from Python, for people who use LangGraph: a compiled graph whose context is plain
data, and one call that runs an episode.

    from agent import make_graph

    graph = make_graph()
    final = graph.invoke({"task": "obtain a wooden pickaxe"}, context={"planner": "oracle"})
    final["status"], final["inventory"]

The context (`EpisodeContext`) holds only plain values: planner, world, selector, controller,
LLM, seed, budgets, inventory; every field has a default and its choices come from the parts'
registry (nodes/registry.py). The graph builds the episode's parts (knowledge base, world,
planner, ...) from it when a run starts, and keeps them for that run alone: two runs never
share a world. A run on a checkpointed thread (`config={"configurable": {"thread_id": ...}}`)
keeps its parts across invocations, so an interrupted run resumes on the same world; when
they are gone (another process), the world is restored from the state's snapshot.

`make_graph(interrupt_before_execute=True)` pauses before each skill runs, so a person can look
at (and edit, with `graph.update_state`) the plan and the selected goal, LangGraph's
human-in-the-loop; resume with `graph.invoke(None, config)`.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from typing import Any

from typing_extensions import TypedDict

from agent.graph import build_graph
from nodes.context import AgentContext
from nodes.settings import RunSettings

MAX_CACHED_RUNS = 16


class EpisodeInput(TypedDict, total=False):
    """What a run is given: the task (a task id such as CraftWoodenPickaxe, or an instruction)."""

    task: str


@dataclass
class EpisodeContext:
    """One episode's settings as plain data (the `deps run` flags). `task` here is used when the
    input names none."""

    task: str = "CraftWoodenPickaxe"
    planner: str = "deps"
    world: str = "textworld"
    selector: str | None = None
    controller: str | None = None
    explainer: str | None = None
    parser: str | None = None
    describer: str | None = None
    llm: str = "local"
    mc_version: str = "1.11.2"
    knowledge: str = "target"
    short_goals: str = "go-on"
    seed: int = 0
    max_rounds: int = 12
    max_tokens: int = 200_000
    inventory: dict[str, int] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # part name -> {option: value}

    def settings(self) -> RunSettings:
        """The RunSettings; with a shipped adapter's taught settings (agent/llm/taught.py) where a
        field is left at its default and an option is not given, as `deps run` fills them."""
        from agent.llm import taught

        values = asdict(self)
        values.pop("task")
        options = values.pop("options") or {}
        settings = RunSettings(**values)
        for part, given in options.items():
            settings.configure(part, **given)
        defaults = EpisodeContext()
        given = {k for k in taught.CORE if getattr(self, k) != getattr(defaults, k)}
        taught.fill(settings, given | {f"{p}.{k}" for p, opts in options.items() for k in opts})
        return settings.validate()


def context_schema() -> type:
    """`EpisodeContext` as a pydantic model whose part fields list the registered names and whose
    every field has a description: the context form Studio draws."""
    from typing import Literal

    from pydantic import Field, create_model

    from nodes import registry
    from nodes.settings import KNOWLEDGE, MC_VERSIONS, SHORT_GOALS

    def choice(kind: str, default: str | None, text: str) -> tuple:
        names = registry.names(kind)
        helps = "; ".join(f"{p.name}: {p.help}" for p in registry.parts(kind))
        typ = Literal[names] if default is not None else (Literal[names] | None)  # type: ignore[valid-type]
        return (typ, Field(default, description=f"{text} ({helps})"))

    return create_model(
        "EpisodeContext",
        task=(
            str,
            Field(
                "CraftWoodenPickaxe",
                description="used when the input names no task: a task id "
                "(deps tasks) or an instruction naming an item",
            ),
        ),
        planner=choice("planner", "deps", "who writes the plan"),
        world=choice("world", "textworld", "where the agent acts"),
        selector=choice("selector", None, "which ready goal runs next (default: horizon where trained, else fixed)"),
        controller=choice(
            "controller", None, "what drives a goal in the world (default: learned where trained, else scripted)"
        ),
        explainer=choice("explainer", None, "who explains a failure (default: the LLM where the planner has one)"),
        llm=(
            str,
            Field("local", description="local (the embedded model), PROVIDER:MODEL, or an OpenAI-compatible base URL"),
        ),
        mc_version=(Literal[MC_VERSIONS], Field("1.11.2", description="the Minecraft data version")),
        knowledge=(Literal[KNOWLEDGE], Field("target", description="recipe facts in the planner's prompt")),
        short_goals=(
            Literal[SHORT_GOALS],
            Field("go-on", description="a failed goal that left enough for the rest of its plan: go on, or replan"),
        ),
        seed=(int, Field(0, ge=0, description="the random seed")),
        max_rounds=(int, Field(12, ge=0, description="re-planning rounds allowed (0: never re-plan)")),
        max_tokens=(int, Field(200_000, ge=1, description="token budget of the episode")),
        inventory=(dict[str, int], Field(default_factory=dict, description="initial inventory, item -> count")),
        options=(
            dict[str, dict[str, Any]],
            Field(default_factory=dict, description='a part\'s own options, e.g. {"rider": {"revisions": 3}}'),
        ),
    )


_lock = threading.Lock()
_runs: OrderedDict[str, AgentContext] = OrderedDict()  # checkpointed threads, the latest kept
_invocations: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # one-off runs, while they run
_llms: dict[str, Any] = {}
_exits = contextlib.ExitStack()


def _llm(settings: RunSettings) -> Any:
    """LLM back-ends are opened once per spec and kept for the process's life."""
    from agent.components import needs_llm
    from agent.llm import open_chat_model

    if not needs_llm(settings):
        return None
    if settings.llm not in _llms:
        _llms[settings.llm] = _exits.enter_context(
            open_chat_model(settings.llm, seed=settings.seed, warm_for=settings.planner)
        )
    return _llms[settings.llm]


def _run_key() -> Any:
    """The parts' key: the checkpointed thread when there is one, else this invocation itself (an
    object LangGraph makes once per invoke and shares among its nodes, held weakly, so the parts
    go when the invocation does)."""
    from langgraph.config import get_config

    conf = get_config()
    thread = (conf.get("configurable") or {}).get("thread_id")
    if thread:
        return f"thread:{thread}"
    runtime = (conf.get("configurable") or {}).get("__pregel_runtime")
    writer = getattr(runtime, "stream_writer", None)
    if writer is None:
        raise RuntimeError("the agent graph ran outside a LangGraph invocation; use graph.invoke or graph.stream")
    return writer


def _as_request(context: Any) -> EpisodeContext:
    if isinstance(context, EpisodeContext):
        return context
    if context is None:
        return EpisodeContext()
    values = context if isinstance(context, dict) else context.model_dump()
    return EpisodeContext(
        **{
            k: v
            for k, v in values.items()
            if v is not None or k in ("selector", "controller", "explainer", "parser", "describer")
        }
    )


def episode_context(context: Any, state: dict) -> AgentContext:
    """The parts of this run's episode, built once per run from the plain-data context."""
    if isinstance(context, AgentContext):
        return context
    key = _run_key()
    runs: Any = _runs if isinstance(key, str) else _invocations
    with _lock:
        if key not in runs:
            from agent.runner import build_context, resolve_task
            from worlds.knowledge import load_kb
            from worlds.types import Task

            request = _as_request(context)
            settings = request.settings()
            kb = load_kb(settings.mc_version)
            given = state.get("task")
            task = Task(**given) if isinstance(given, dict) else resolve_task(given or request.task, kb)
            ctx = build_context(task, settings, _llm(settings), kb)
            restore = getattr(ctx.world, "restore", None)
            if state.get("world") and callable(restore):  # parts rebuilt for a checkpointed run: its world back
                restore(state["world"])
            runs[key] = ctx
            while len(_runs) > MAX_CACHED_RUNS:
                _runs.popitem(last=False)
        return runs[key]


def _with_parts(node: Any) -> Any:
    def run(state: dict, runtime: Any) -> Any:
        return node(state, runtime.override(context=episode_context(runtime.context, state)))

    run.__name__ = node.__name__
    run.__doc__ = node.__doc__
    return run


def make_graph(checkpointer: Any = None, *, interrupt_before_execute: bool = False) -> Any:
    """The DEPS loop, compiled, taking `{"task": ...}` as input and an `EpisodeContext` (or a dict
    of its fields) as context."""
    return build_graph(
        checkpointer,
        wrap=_with_parts,
        context_schema=context_schema(),
        input_schema=EpisodeInput,
        interrupt_before=["execute"] if interrupt_before_execute else None,
    )


def run_episode(task: str, **settings: Any) -> dict:
    """One episode, as `deps run TASK` with the given settings (the `EpisodeContext` fields):
    returns the `deps run --json` record."""
    from agent.runner import resolve_task
    from agent.runner import run_episode as run
    from worlds.knowledge import load_kb

    run_settings = EpisodeContext(task=task, **settings).settings()
    kb = load_kb(run_settings.mc_version)
    return run(resolve_task(task, kb), run_settings, kb=kb)
