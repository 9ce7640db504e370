"""Run one episode: build the world and the swappable parts, invoke the graph, and
return the CONTRACT's `deps run` record."""
from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from agent.components import (
    make_controller,
    make_describer,
    make_explainer,
    make_parser,
    make_planner,
    make_selector,
    needs_llm,
)
from agent.graph import build_graph
from agent.trace import Tracer
from nodes.context import AgentContext
from nodes.settings import RunSettings, SettingsError
from nodes.state import rounds, usage
from worlds.context_tasks import check_judgeable
from worlds.random_drop import RandomDrop
from worlds.tasks import SuiteError, find_task, localize, task_from_instruction
from worlds.types import Task

RECURSION_LIMIT = 100_000


def resolve_task(spec: str, kb: Any) -> Task:
    """A task id (CraftWoodenPickaxe) or an instruction ("obtain a wooden pickaxe") -> the Task,
    in the knowledge base's names; SuiteError (one line) when it is neither."""
    task = find_task(spec)
    if task is None:
        try:
            task = task_from_instruction(spec, kb.canonical)
        except SuiteError:
            raise SuiteError(f"unknown task {spec!r}; accepted: a task id from 'deps tasks' (e.g. CraftWoodenPickaxe)"
                             " or an instruction naming an item (e.g. \"obtain a wooden pickaxe\")") from None
    return localize(task, kb)


def make_world(settings: RunSettings, kb: Any, task: Task) -> Any:
    if settings.world == "gridworld":
        return _make_grid_world(settings, kb, task)
    if settings.world != "textworld":
        raise SettingsError(f"world {settings.world!r} is not available in this build; available: textworld, gridworld")
    from worlds.textworld import TextWorld

    world = TextWorld(kb, stochastic=settings.stochastic,
                      allowed_skills=set(settings.skills) if settings.skills else None)
    inventory = {**task.inventory, **settings.inventory}
    world.reset(seed=settings.seed, options={"inventory": inventory, "biome": task.biome,
                                             "max_steps": task.max_steps, "target": task.target})
    return world


def _make_grid_world(settings: RunSettings, kb: Any, task: Task) -> Any:
    from worlds.gridworld.spec import GridWorldError
    from worlds.gridworld.world import GridWorld

    try:  # an unknown biome or a seed out of range: one line, exit 2
        world = GridWorld(kb, allowed_skills=set(settings.skills) if settings.skills else None)
        world.reset(seed=settings.seed, options={"inventory": {**task.inventory, **settings.inventory},
                                                 "biome": settings.biome or task.biome, "max_steps": task.max_steps,
                                                 "target": task.target})
    except GridWorldError as e:
        raise SettingsError(str(e)) from None
    return world


def build_context(task: Task, settings: RunSettings, llm: Any = None, kb: Any = None) -> AgentContext:
    from worlds.knowledge import load_kb

    kb = kb or load_kb(settings.mc_version)
    task = localize(task, kb)
    world = make_world(settings, kb, task)
    check_judgeable(task, world, settings.world)  # a find task this world cannot judge: one line, up front
    if settings.random_drop:
        world = RandomDrop(world, seed=settings.seed)
    planner = make_planner(settings, llm, kb)
    return AgentContext(
        settings=settings, task=task, kb=kb, world=world,
        planner=planner, parser=make_parser(settings, kb, llm), selector=make_selector(settings),
        controller=make_controller(settings, kb), explainer=make_explainer(settings, llm, planner),
        describer=make_describer(settings, kb, llm),
        llm=llm, max_rounds=(settings.max_rounds * getattr(planner, "rounds_per_budget", 1)
                             if getattr(planner, "replans", True) else 0),
    )


def _record(task: Task, state: dict, wall: float, settings: RunSettings) -> dict:
    used = usage(state)
    return {
        "task": task.id, "success": state.get("status") == "success",
        "env_steps": state.get("env_steps", 0), "rounds": rounds(state),
        "llm_calls": used.get("calls", 0), "tokens_in": used.get("tokens_in", 0),
        "tokens_out": used.get("tokens_out", 0), "wall_s": round(wall, 3),
        "plans": state.get("plans", []), "final_inventory": state.get("inventory", {}),
        "failure_reason": state.get("failure_reason"),
        "instruction": task.instruction, "target": task.target, "planner": settings.planner,
        "world": settings.world, "seed": settings.seed,
    }


def run_episode(task: Task, settings: RunSettings, *, llm: Any = None, kb: Any = None,
                on_update=None) -> dict:
    """One episode. `llm` is an open agent.llm handle (shared across episodes) or None to
    open one from `settings.llm` for this episode alone. `on_update(node, update)` sees
    every node's update as it happens."""
    settings.validate()
    with contextlib.ExitStack() as stack:
        if llm is None and needs_llm(settings):
            from agent.llm import open_chat_model

            llm = stack.enter_context(open_chat_model(settings.llm, seed=settings.seed))
        ctx = build_context(task, settings, llm, kb)
        task = ctx.task
        tracer = Tracer(settings.trace_dir) if settings.trace_dir else None
        checkpointer = tracer.checkpointer() if tracer else None
        graph = build_graph(checkpointer=checkpointer)
        config = {"recursion_limit": RECURSION_LIMIT,
                  "configurable": {"thread_id": f"{task.id}-seed{settings.seed}"}}
        state: dict = {"task": task.to_dict(), "inventory": ctx.world.inventory, "env_steps": 0}
        if tracer:
            tracer.write("start", task=task.to_dict(), settings=settings.to_dict())
        t0 = time.monotonic()
        for chunk in graph.stream(state, config=config, context=ctx, stream_mode=["updates", "values"]):
            mode, data = chunk
            if mode == "values":
                state = data
                continue
            for node, update in data.items():
                if tracer:
                    tracer.write("update", node=node, update=update)
                if on_update:
                    on_update(node, update)
        finish = getattr(ctx.planner, "finish", None)
        if callable(finish):
            finish(state)   # a planner that learns from the episode (mp5: its performer memory)
        result = _record(task, state, time.monotonic() - t0, settings)
        if tracer:
            tracer.write("end", result=result)
            tracer.close()
        return result


async def arun_episode(task: Task, settings: RunSettings, *, llm: Any = None, kb: Any = None) -> dict:
    """The same episode in a worker thread, so many can share one LLM server concurrently."""
    return await asyncio.to_thread(run_episode, task, settings, llm=llm, kb=kb)
