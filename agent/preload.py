"""Load a library in a background thread while this process waits on something else (issue 21).

An eval's first episode waits for its LLM servers to start (0.6 to 0.7 s on 2 cores) and then
for the LLM client's library to import (`langchain_openai`, about half a second); its report
waits for matplotlib (about 0.4 s) after the last episode. Neither needs the other: the
servers load in their own processes, and while episodes run this process mostly waits on the
model's answers. `preload(key, fn)` runs `fn` once per process in a daemon thread, so that the
later import finds the module loaded (or waits on Python's import lock for the rest of it).
What fails here is left for the real use to report.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

_STARTED: set[str] = set()
_LOCK = threading.Lock()


def preload(key: str, fn: Callable[[], Any] | None = None) -> None:
    """Run `fn` (default: import the module named `key`) in a daemon thread, once per `key`."""
    with _LOCK:
        if key in _STARTED:
            return
        _STARTED.add(key)
    job = fn or (lambda: importlib.import_module(key))

    def run() -> None:
        try:
            job()
        except Exception:  # noqa: BLE001 - the real import reports it
            pass

    threading.Thread(target=run, name=f"deps-preload-{key}", daemon=True).start()
