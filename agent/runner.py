"""Run one episode: build the world and the swappable parts, invoke the graph, and
return the `deps run` record of docs/cli.md."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
import uuid
from typing import Any

from agent.components import (
    make_controller,
    make_describer,
    make_explainer,
    make_parser,
    make_planner,
    make_selector,
    make_world,
    needs_llm,
)
from agent.fresh import check_fresh_state, check_new_thread
from agent.graph import episode_graph
from agent.trace import LLMCallRecorder, Tracer
from nodes.ask import LLMCallFailed
from nodes.context import AgentContext
from nodes.settings import RunSettings, SettingsError
from nodes.state import drivers, rounds, sheltered_steps, usage
from worlds.base import WorldError
from worlds.context_tasks import check_judgeable
from worlds.find_instruction import find_task_from_instruction, is_find
from worlds.random_drop import RandomDrop
from worlds.tasks import (
    CountError,
    SuiteError,
    find_task,
    localize,
    sized_budget,
    task_from_instruction,
    unasked,
)
from worlds.types import Task

RECURSION_LIMIT = 100_000


def resolve_task(spec: str, kb: Any) -> Task:
    """A task id (CraftWoodenPickaxe) or an instruction ("obtain a wooden pickaxe") -> the Task,
    in the knowledge base's names; SuiteError (one line) when it is neither."""
    task = find_task(spec)
    plain = unasked(spec)  # "can you find a pig at night, please" -> "find a pig at night"
    if task is None and is_find(plain):  # "find a pig at night": a context task, as MP5's
        task = find_task_from_instruction(plain)
    if task is None:
        try:
            task = task_from_instruction(spec, kb.canonical)
        except CountError:
            raise  # it names its items: what is wrong is the count, which its own line says
        except SuiteError:
            raise SuiteError(
                f"unknown task {spec!r}; accepted: a task id from 'deps tasks' (e.g. CraftWoodenPickaxe),"
                ' an instruction naming an item (e.g. "obtain a wooden pickaxe") or one to find a thing'
                ' (e.g. "find a pig at night")'
            ) from None
    return sized_budget(localize(task, kb), kb)


def build_context(task: Task, settings: RunSettings, llm: Any = None, kb: Any = None) -> AgentContext:
    from worlds.knowledge import load_kb

    kb = kb or load_kb(settings.mc_version)
    task = localize(task, kb)
    unknown = [name for name in settings.inventory if kb.canonical(name) is None]
    if unknown:
        raise SettingsError(
            f"unknown item {unknown[0]!r} in --inventory for Minecraft {kb.version}; accepted: "
            "item ids or display names, e.g. '{\"stone_pickaxe\": 1}' (see deps kb ITEM)"
        )
    world = make_world(settings, kb, task)
    check_judgeable(task, world, settings.world)  # a find task this world cannot judge: one line, up front
    if settings.random_drop:
        world = RandomDrop(world, seed=settings.seed)
    planner = make_planner(settings, llm, kb)
    return AgentContext(
        settings=settings,
        task=task,
        kb=kb,
        world=world,
        planner=planner,
        parser=make_parser(settings, kb, llm),
        selector=make_selector(settings),
        controller=make_controller(settings, kb, task),
        explainer=make_explainer(settings, llm, planner),
        describer=make_describer(settings, kb, llm),
        llm=llm,
        max_rounds=(
            settings.max_rounds * getattr(planner, "rounds_per_budget", 1) if getattr(planner, "replans", True) else 0
        ),
    )


LLM_FAILED = "LLM call failed"  # how an episode ended by an LLM fault says so in failure_reason


def _record(task: Task, state: dict, wall: float, settings: RunSettings) -> dict:
    used = usage(state)
    return {
        "task": task.id,
        "success": state.get("status") == "success",
        "env_steps": state.get("env_steps", 0),
        "rounds": rounds(state),
        "llm_calls": used.get("calls", 0),
        "tokens_in": used.get("tokens_in", 0),
        "tokens_out": used.get("tokens_out", 0),
        "wall_s": round(wall, 3),
        "plans": state.get("plans", []),
        "final_inventory": state.get("inventory", {}),
        "drivers": drivers(state),
        "sheltered_steps": sheltered_steps(state),
        "failure_reason": state.get("failure_reason"),
        "llm_failed": str(state.get("failure_reason") or "").startswith(LLM_FAILED),
        "instruction": task.instruction,
        "target": task.target,
        "planner": settings.planner,
        "world": settings.world,
        "seed": settings.seed,
    }


def trace_labels(task: Task, settings: RunSettings, thread: str, ctx: AgentContext | None = None) -> dict:
    """The run's name, tags and metadata as LangSmith (or any LangChain tracer) shows them:
    `deps:<task>`, filterable by task, group, planner, selector, controller, world, LLM and seed,
    each naming what actually ran (with `ctx`, the episode's built parts)."""
    from agent.llm import redact

    def part(obj: Any, asked: str | None) -> str:
        return str(getattr(obj, "name", None) or asked or "default")

    llm = redact(settings.llm) if ctx is None or ctx.llm is not None else "none"
    meta = {
        "task": task.id,
        "group": task.group,
        "planner": settings.planner,
        "selector": part(ctx and ctx.selector, settings.selector),
        "controller": part(ctx and ctx.controller, settings.controller),
        "world": settings.world,
        "llm": llm,
        "seed": settings.seed,
        "mc_version": settings.mc_version,
        "thread": thread,
    }
    tags = [f"{k}:{meta[k]}" for k in ("task", "group", "planner", "selector", "world", "llm")]
    return {"run_name": f"deps:{task.id}", "tags": tags, "metadata": meta}


def langchain_listens() -> bool:
    """Whether LangChain hands runs to a callback handler set up outside this call: LangSmith
    tracing from the environment, or a tracing or run-collecting context around the run."""
    from langchain_core.callbacks.manager import CallbackManager

    return bool(CallbackManager.configure().handlers)


def report_outcome(config: dict, result: dict) -> None:
    """Where LangSmith tracing is on: the episode's root run gets its outcome, an `outcome:` tag,
    the failure as its error, and a `success` feedback score (1 or 0), so failures can be filtered.
    A tracing service that cannot be reached costs the run nothing."""
    try:
        from langsmith.run_trees import get_cached_client
        from langsmith.utils import tracing_is_enabled
    except ImportError:  # pragma: no cover - langsmith comes with langchain-core
        return
    if not tracing_is_enabled():
        return
    from langchain_core.tracers.langchain import wait_for_all_tracers

    run_id = config["run_id"]
    wait_for_all_tracers()  # the root run is posted before it is updated
    outcome = "success" if result["success"] else "failed"
    try:
        client = get_cached_client()  # the tracer's own client: the same endpoint, one queue
        client.update_run(
            run_id,
            name=config["run_name"],
            tags=[*config["tags"], f"outcome:{outcome}"],
            trace_id=run_id,
            error=None if result["success"] else str(result.get("failure_reason") or "failed"),
        )
        client.create_feedback(
            run_id,
            key="success",
            score=1 if result["success"] else 0,
            trace_id=run_id,
            comment=result.get("failure_reason") or None,
        )
        client.flush()
    except Exception:  # noqa: BLE001 - tracing is an observer; it never fails the episode
        pass


def new_thread(task: Task) -> str:
    """A fresh checkpoint thread for one run: two runs never share state, even in one --trace-dir."""
    return f"{task.id}-{secrets.token_hex(4)}"


def _restart_point(graph: Any, ctx: AgentContext, config: dict, checkpoint_step: int | None) -> dict:
    """Where a resumed or replayed run starts: the thread's last checkpoint, or the one at
    `checkpoint_step`; the world is restored to that checkpoint's snapshot. Returns the state."""
    thread = config["configurable"]["thread_id"]
    if checkpoint_step is None:
        snap = graph.get_state(config)
        if not snap.values:
            raise SettingsError(
                f"no checkpoint of thread {thread!r} in {ctx.settings.trace_dir}; "
                "accepted: a thread that `deps trace show` lists for that folder"
            )
        if not snap.next:
            raise SettingsError(
                f"thread {thread!r} has already finished ({snap.values.get('status')}); "
                f"to run part of it again: deps replay {thread} --from STEP"
            )
    else:
        history = list(graph.get_state_history(config))
        snap = next((h for h in history if h.metadata.get("step") == checkpoint_step), None)
        if snap is None:
            steps = sorted(h.metadata.get("step") for h in history)
            raise SettingsError(
                f"thread {thread!r} has no step {checkpoint_step}; accepted: {steps[0]}..{steps[-1]}"
                if steps
                else f"thread {thread!r} has no checkpoints"
            )
        config["configurable"]["checkpoint_id"] = snap.config["configurable"]["checkpoint_id"]
    restore = getattr(ctx.world, "restore", None)
    if "world" in snap.values and callable(restore):
        restore(snap.values["world"])
    elif snap.values.get("outcomes"):
        raise SettingsError(
            f"the {ctx.settings.world} world cannot be restored from a checkpoint, "
            "so this run cannot be resumed; accepted: textworld runs"
        )
    return dict(snap.values)


def run_episode(
    task: Task,
    settings: RunSettings,
    *,
    llm: Any = None,
    kb: Any = None,
    on_update=None,
    thread: str | None = None,
    resume: bool = False,
    from_step: int | None = None,
    on_llm=None,
) -> dict:
    """One episode. `llm` is an open agent.llm handle (shared across episodes) or None to
    open one from `settings.llm` for this episode alone. `on_update(node, update)` sees
    every node's update as it happens, `on_llm(event)` every LLM call's start and end (with
    prompt, reply and tokens; also written to the trace). Each run gets a fresh checkpoint thread (`thread` in
    the result); with `resume=True` the given thread continues from its last checkpoint,
    with `from_step=N` from its checkpoint at step N (a fork: the thread's history stays)."""
    settings.validate()
    if (resume or from_step is not None) and not (thread and settings.trace_dir):
        raise SettingsError("resuming or replaying needs the thread and its --trace-dir (where the checkpoints are)")
    thread = thread or new_thread(task)
    with contextlib.ExitStack() as stack:
        if llm is None and needs_llm(settings):
            from agent.llm import llm_options, open_chat_model

            llm = stack.enter_context(open_chat_model(settings.llm, **llm_options(settings)))
        ctx = build_context(task, settings, llm, kb)
        task = ctx.task
        tracer = Tracer(settings.trace_dir, thread) if settings.trace_dir else None
        if tracer:
            stack.callback(tracer.close)
        graph = episode_graph(checkpointer=tracer.checkpointer() if tracer else None)
        config = {"recursion_limit": RECURSION_LIMIT, "configurable": {"thread_id": thread}, "run_id": uuid.uuid4()}
        if tracer or on_llm or ctx.llm is not None or langchain_listens():  # labels only where someone reads them
            config.update(trace_labels(task, settings, thread, ctx))
        if tracer or on_llm:

            def llm_event(event: dict) -> None:
                if tracer and event["phase"] != "start":
                    tracer.write("llm", **event)
                if on_llm:
                    on_llm(event)

            config["callbacks"] = [LLMCallRecorder(llm_event)]
        state: dict = {"task": task.to_dict(), "inventory": ctx.world.inventory, "env_steps": 0}
        if callable(getattr(ctx.world, "snapshot", None)):
            state["world"] = ctx.world.snapshot()
        start: dict | None = state
        if resume or from_step is not None:
            state, start = _restart_point(graph, ctx, config, from_step), None
        else:  # a fresh run never starts on a thread that holds another run's state (agent/fresh.py)
            check_new_thread(graph, config, settings.trace_dir)
        if tracer:
            tracer.write(
                "start",
                task=task.to_dict(),
                settings=settings.to_dict(),
                resumed_from=config["configurable"].get("checkpoint_id") or (resume or None),
            )
        t0 = time.monotonic()
        durable = {"durability": "sync"} if tracer else {}  # each checkpoint on disk before the next step
        try:
            modes = ["updates", "values"] if tracer or on_update else ["values"]  # each node's update if wanted
            for mode, data in graph.stream(start, config=config, context=ctx, stream_mode=modes, **durable):
                if mode == "values":
                    if state is start:  # a fresh run's first state: round 0, no history
                        check_fresh_state(data, thread)
                    state = data
                    continue
                for node, update in data.items():
                    if tracer:
                        tracer.write("update", node=node, update=update)
                    if on_update:
                        on_update(node, update)
        except LLMCallFailed as exc:  # retries spent (agent/llm/retry.py): the episode fails, with why
            state = {**state, "status": "failed", "failure_reason": f"{LLM_FAILED}: {exc}"}
            if tracer:
                tracer.write("llm_failed", error=str(exc))
        except WorldError as exc:  # the world went away mid-episode (a server that disconnects): stored as failed
            state = {**state, "status": "failed", "failure_reason": f"world failed: {exc}"}
            if tracer:
                tracer.write("world_failed", error=str(exc))
        finish = getattr(ctx.planner, "finish", None)
        if callable(finish):
            finish(state)  # a planner that learns from the episode (mp5: its performer memory)
        result = _record(task, state, time.monotonic() - t0, settings)
        result["thread"] = thread
        if tracer:
            tracer.write("end", result=result)
        report_outcome(config, result)
        return result


async def arun_episode(task: Task, settings: RunSettings, *, llm: Any = None, kb: Any = None) -> dict:
    """The same episode in a worker thread, so many can share one LLM server concurrently."""
    return await asyncio.to_thread(run_episode, task, settings, llm=llm, kb=kb)
