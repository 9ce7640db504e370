"""The local trace of one episode: every node's update as a JSON line, written as it
happens, beside LangGraph's own SQLite checkpoints of the state (so a run can be
inspected, replayed or resumed)."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any


class Tracer:
    def __init__(self, trace_dir: str | Path):
        self.dir = Path(trace_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / "trace.jsonl"
        self._fh = self.path.open("a", encoding="utf-8")
        self._t0 = time.monotonic()

    def write(self, event: str, **data: Any) -> None:
        line = {"t": round(time.monotonic() - self._t0, 4), "event": event, **data}
        self._fh.write(json.dumps(line, default=str) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()

    def checkpointer(self):
        import sqlite3

        from langgraph.checkpoint.sqlite import SqliteSaver

        conn = sqlite3.connect(self.dir / "checkpoints.sqlite", check_same_thread=False)
        return SqliteSaver(conn)
