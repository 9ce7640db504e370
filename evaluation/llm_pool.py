"""One embedded-LLM server per eval worker (issue 21, item 4).

llama-cpp-python's server answers one request at a time, so eval workers that share one server
queue behind each other. With `--llm local` and `--workers N > 1`, each worker gets its own
server instead, the CPU's cores split between them (each server's llama.cpp threads = cores / N,
at least 1), all started at once, each from the planner's saved fixed prompt part
(agent/llm/prompt_state.py) rather than evaluating it again, on one thread, at its first request.
A run that already has a shared server (one handed down by a parent process, or opened around
the eval) keeps using it.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any


class HandlePool(list):
    """The workers' LLM handles; worker k uses handle k (evaluation/backends.py: run_local)."""

    def stats(self) -> dict:
        """Every handle's counts added up (calls, retries, calls failed for good...)."""
        out: dict[str, Any] = {}
        for handle in self:
            for key, value in (handle.stats() if callable(getattr(handle, "stats", None)) else {}).items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    out[key] = out.get(key, 0) + value
                elif key not in out:
                    out[key] = value
        return out


def pooled(settings: Any, workers: int) -> bool:
    """Does this run get one server per worker: the embedded model, several workers, and no
    server shared already?"""
    from agent.llm import parse_llm_spec
    from agent.llm.local_server import shared_url

    try:
        spec = parse_llm_spec(settings.llm)
    except Exception:  # noqa: BLE001 - a bad --llm is reported by the single open
        return False
    return spec.kind == "local" and workers > 1 and shared_url(spec.model) is None


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@contextlib.contextmanager
def open_pool(settings: Any, workers: int) -> Iterator[HandlePool]:
    """`workers` servers of the run's local model, threads split, each behind its own handle."""
    from agent.llm import LLMError, llm_options, open_chat_model, parse_llm_spec
    from agent.llm.local_server import LocalServer, LocalServerError
    from agent.preload import preload

    model = parse_llm_spec(settings.llm).model
    preload("langchain_openai")  # the client's library loads while the servers start (agent/preload.py)
    threads = int(os.environ.get("DEPS_LLM_THREADS", "0") or 0) or max(1, cores() // workers)
    servers = [LocalServer(model, n_threads=threads, prompt_state_for=settings.planner) for _ in range(workers)]
    failures: list[BaseException] = []

    def start(srv: LocalServer) -> None:
        try:
            srv.start()
        except LocalServerError as exc:
            failures.append(exc)

    with contextlib.ExitStack() as stack:
        for srv in servers:
            stack.callback(srv.stop)
        starters = [threading.Thread(target=start, args=(srv,)) for srv in servers]
        for t in starters:
            t.start()
        for t in starters:
            t.join()
        if failures:
            raise LLMError(" | ".join(str(failures[0]).splitlines()))
        pool = HandlePool(
            stack.enter_context(open_chat_model(settings.llm, server=srv, **llm_options(settings))) for srv in servers
        )
        yield pool
