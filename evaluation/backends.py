"""Where episodes run: concurrently on one asyncio loop sharing one LLM handle (`local`),
or as Ray tasks (`ray`). Both call the episode function, report each result or error to
the caller's callbacks as it comes, and stop early when told to."""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import inspect
import os
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from evaluation.identity import EvalError
from evaluation.safe_files import safe_name
from nodes.settings import RunSettings
from worlds.types import Task

BACKENDS = ("local", "ray")

EpisodeFn = Callable[..., "Awaitable[dict[str, Any]] | dict[str, Any]"]


def episode_trace_dir(trace_dir: str, task_id: str, episode: int) -> str:
    """An episode's own trace folder inside --trace-dir; a task id is data: as a folder name it
    must stay inside --trace-dir (`../../x` too)."""
    return os.path.join(trace_dir, f"{safe_name(task_id)}-e{episode}")


def episode_settings(settings: RunSettings, task: Task, episode: int, seed: int) -> RunSettings:
    changes: dict[str, Any] = {"seed": seed}
    if settings.trace_dir:
        changes["trace_dir"] = episode_trace_dir(settings.trace_dir, task.id, episode)
        if os.path.islink(changes["trace_dir"]):  # the trace would land wherever the link points
            raise EvalError(
                f"{changes['trace_dir']} is a symbolic link; deps eval never writes through links: "
                "remove it, or choose another --trace-dir"
            )
    return dataclasses.replace(settings, **changes)


def one_line(exc: BaseException) -> str:
    msg = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


class DaemonExecutor(concurrent.futures.ThreadPoolExecutor):
    """An executor whose every call runs in a new daemon thread, and whose shutdown never waits:
    on Ctrl-C the eval's loop closes at once, leaving a call blocked on the LLM behind (the
    default executor would wait for it: minutes, with retries)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        import threading

        fut: concurrent.futures.Future = concurrent.futures.Future()

        def work() -> None:
            if not fut.set_running_or_notify_cancel():
                return
            try:
                fut.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
                fut.set_exception(exc)

        threading.Thread(target=work, daemon=True, name="deps-episode").start()
        return fut

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        return None


def run_loop(coro: Any) -> Any:
    """asyncio.run(coro), with DaemonExecutor as the loop's default executor (Ctrl-C: see it)."""

    def new_loop() -> asyncio.AbstractEventLoop:
        loop = asyncio.new_event_loop()
        loop.set_default_executor(DaemonExecutor())
        return loop

    with asyncio.Runner(loop_factory=new_loop) as runner:
        return runner.run(coro)


async def _in_daemon_thread(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` in a daemon thread, awaited. Unlike asyncio.to_thread, Ctrl-C never
    waits for it: an episode blocked on the LLM (minutes, with retries) is left behind when the
    eval stops, and what was finished is already stored."""
    import contextvars
    import threading

    loop = asyncio.get_running_loop()
    fut: asyncio.Future = loop.create_future()
    ctx = contextvars.copy_context()

    def settle(ok: bool, value: Any) -> None:
        if not fut.done():
            (fut.set_result if ok else fut.set_exception)(value)

    def work() -> None:
        try:
            result, ok = ctx.run(fn, *args, **kwargs), True
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            result, ok = exc, False
        try:
            loop.call_soon_threadsafe(settle, ok, result)
        except RuntimeError:  # the loop is gone: the eval was stopped
            pass

    threading.Thread(target=work, daemon=True, name="deps-episode").start()
    return await fut


async def _call_episode(fn: EpisodeFn, task: Task, settings: RunSettings, llm: Any) -> dict[str, Any]:
    if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__):
        res = await fn(task, settings, llm=llm)
    else:  # a plain function: keep the loop free, run it in a thread
        res = await _in_daemon_thread(fn, task, settings, llm=llm)
        if inspect.isawaitable(res):
            res = await res
    if not isinstance(res, dict):
        raise TypeError(f"the episode function returned {type(res).__name__}, not a dict")
    return res


async def run_local(pending, settings, episode_fn, llm, workers, on_result, on_error, stop) -> None:
    queue = deque(pending)

    async def worker(k: int) -> None:
        own = llm[k % len(llm)] if isinstance(llm, list) and llm else llm  # a pool: one server per worker
        while queue and not stop():
            task, ep, seed = queue.popleft()
            s = episode_settings(settings, task, ep, seed)
            try:
                res = await _call_episode(episode_fn, task, s, own)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - reported, not stored, retried on --resume
                on_error(task, ep, exc)
                continue
            on_result(task, ep, seed, res)

    await asyncio.gather(*(worker(k) for k in range(max(1, min(workers, len(queue))))))


def _ray_episode(fn: EpisodeFn, task: Task, settings: RunSettings) -> dict[str, Any]:
    """Body of one Ray task: run the episode function in the worker process."""
    res = fn(task, settings, llm=None)
    if inspect.isawaitable(res):

        async def _await() -> Any:
            return await res

        res = asyncio.run(_await())
    return res


def import_ray():
    try:
        import ray  # noqa: F401
    except ImportError:
        raise EvalError(
            "--backend ray needs Ray, which is not installed: pip install ray "
            "(or pip install 'deps-agent[ray]'), or use --backend local"
        ) from None
    return ray


RAY_CONNECT_TIMEOUT_S = 5.0


def check_reachable(address: str) -> None:
    """Fail fast when a Ray head at HOST:PORT does not accept connections (ray.init would retry for minutes)."""
    import socket

    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=RAY_CONNECT_TIMEOUT_S):
            return
    except ValueError:
        raise EvalError(f"bad --ray-address {address!r}; accepted: HOST:PORT of a Ray head, or auto") from None
    except OSError as exc:
        raise EvalError(
            f"no Ray head answers at {address} ({exc.strerror or exc}); start one with "
            "'ray start --head', or leave out --ray-address for a local Ray"
        ) from None


def run_ray(pending, settings, episode_fn, workers, ray_address, on_result, on_error, stop) -> None:
    ray = import_ray()
    address = ray_address or os.environ.get("RAY_ADDRESS") or None
    started = False
    if not ray.is_initialized():
        import logging

        if address and address not in ("auto", "local") and not address.startswith("ray://"):
            check_reachable(address)

        try:
            ray.init(
                address=address,
                ignore_reinit_error=True,
                include_dashboard=False,
                logging_level=logging.WARNING,
                log_to_driver=True,
            )
        except Exception as exc:  # noqa: BLE001
            raise EvalError(
                f"could not start or reach Ray ({'address ' + address if address else 'local'}): {one_line(exc)}"
            ) from None
        started = True
    try:
        remote = ray.remote(max_retries=0)(_ray_episode)
        fn_ref = ray.put(episode_fn)
        queue = deque(pending)
        in_flight: dict[Any, tuple] = {}

        def submit() -> None:
            if queue and not stop():
                task, ep, seed = queue.popleft()
                s = episode_settings(settings, task, ep, seed)
                in_flight[remote.remote(fn_ref, task, s)] = (task, ep, seed)

        for _ in range(max(1, workers)):
            submit()
        while in_flight:
            done, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in done:
                task, ep, seed = in_flight.pop(ref)
                try:
                    res = ray.get(ref)
                    if not isinstance(res, dict):
                        raise TypeError(f"the episode function returned {type(res).__name__}, not a dict")
                except Exception as exc:  # noqa: BLE001
                    cause = getattr(exc, "cause", None) or exc
                    on_error(task, ep, cause)
                else:
                    on_result(task, ep, seed, res)
                submit()
    finally:
        if started:
            ray.shutdown()


def default_episode_fn() -> EpisodeFn:
    try:
        from agent.runner import arun_episode
    except ImportError as exc:
        raise EvalError(f"the episode runner (agent.runner.arun_episode) is not available: {one_line(exc)}") from None
    return arun_episode


def needs_llm(settings: RunSettings) -> bool:
    try:
        from agent.components import needs_llm
    except ImportError:
        return settings.planner != "oracle"
    return bool(needs_llm(settings))


class OpenLLM:
    """Opens the shared LLM handle (agent.llm.open_chat_model) for the default episode runner."""

    def __init__(self, settings: Any, workers: int = 1):
        self.settings, self.workers, self._cm = settings, workers, None

    def __enter__(self) -> Any:
        try:
            from agent.llm import llm_options, open_chat_model
        except ImportError as exc:
            raise EvalError(f"the LLM back-ends (agent.llm) are not available: {one_line(exc)}") from None
        try:
            from evaluation.llm_pool import open_pool, pooled

            if pooled(self.settings, self.workers):  # the embedded model: one server per worker
                self._cm = open_pool(self.settings, self.workers)
            else:
                self._cm = open_chat_model(self.settings.llm, **llm_options(self.settings))
            return self._cm.__enter__()
        except EvalError:
            raise
        except Exception as exc:  # noqa: BLE001 - LLMError and friends: one line
            self._cm = None
            raise EvalError(" ".join(str(exc).split()) or one_line(exc)) from None

    def __exit__(self, *exc: Any) -> None:
        if self._cm is not None:
            self._cm.__exit__(*exc)
