"""agent/preload.py: a job runs once per key in a background thread, and its failure is left for
the real use to report."""

from __future__ import annotations

import sys
import threading

from agent import preload as pl


def _join(key: str) -> None:
    for t in threading.enumerate():
        if t.name == f"deps-preload-{key}":
            t.join(timeout=60)


def test_a_key_runs_once_in_a_thread_of_its_own():
    calls: list[str] = []
    main = threading.get_ident()
    pl.preload("test-once", lambda: calls.append("first" if threading.get_ident() != main else "main"))
    pl.preload("test-once", lambda: calls.append("second"))
    _join("test-once")
    assert calls == ["first"]


def test_a_failing_job_is_swallowed_and_the_import_default_loads_the_module(monkeypatch):
    raised: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_value))
    pl.preload("test-fails", lambda: 1 / 0)
    _join("test-fails")
    assert raised == []  # nothing escaped the thread
    sys.modules.pop("colorsys", None)
    pl.preload("colorsys")  # a small stdlib module no test imports
    _join("colorsys")
    assert "colorsys" in sys.modules
