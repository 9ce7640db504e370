"""The local trace of an episode: every node's update as a JSON line, written as it happens,
beside LangGraph's own SQLite checkpoints of the state (so a run can be inspected, resumed
or replayed). Several runs may share a folder: every line names its run's thread."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler

from nodes.ask import usage_of
from nodes.settings import SettingsError

TRACE_NAME = "trace.jsonl"
CHECKPOINTS_NAME = "checkpoints.sqlite"


class Tracer:
    def __init__(self, trace_dir: str | Path, thread: str):
        self.dir = Path(trace_dir)
        self.thread = thread
        self.path = self.dir / TRACE_NAME
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            refuse_links(self.dir)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o644)
            self._fh = os.fdopen(fd, "a", encoding="utf-8")
        except OSError as e:
            raise SettingsError(
                f"cannot write --trace-dir {str(trace_dir)!r} ({e.strerror or e}); "
                "accepted: a folder you can create and write"
            ) from None
        self._t0 = time.monotonic()

    def write(self, event: str, **data: Any) -> None:
        line = {"t": round(time.monotonic() - self._t0, 4), "thread": self.thread, "event": event, **data}
        self._fh.write(json.dumps(line, default=str) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()

    def checkpointer(self):
        return open_checkpointer(self.dir)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# every name a trace folder holds: never written through a link planted there
TRACE_FILES = (
    TRACE_NAME,
    CHECKPOINTS_NAME,
    f"{CHECKPOINTS_NAME}-wal",
    f"{CHECKPOINTS_NAME}-shm",
    f"{CHECKPOINTS_NAME}-journal",
)


def refuse_links(trace_dir: str | Path) -> None:
    """SettingsError (one line) if a file the trace writes in `trace_dir` is a symbolic link, or the
    checkpoint database is not a regular file (a FIFO, a folder): it would be written through."""
    for name in TRACE_FILES:
        path = Path(trace_dir) / name
        if path.is_symlink():
            raise SettingsError(
                f"{path} is a symbolic link; a trace is never written through links: "
                "remove it, or choose another --trace-dir"
            )
    db = Path(trace_dir) / CHECKPOINTS_NAME
    if db.exists() and not db.is_file():
        raise SettingsError(
            f"{db} is not a regular file; accepted: a --trace-dir whose {CHECKPOINTS_NAME} "
            "is a checkpoint database written by deps, or absent"
        )


def open_checkpointer(trace_dir: str | Path):
    """LangGraph's SQLite checkpointer on TRACE_DIR/checkpoints.sqlite, checked first: a link, a
    FIFO, a corrupt file or another program's database is one line (SettingsError), not a
    traceback halfway through the run."""
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    refuse_links(trace_dir)
    db = Path(trace_dir) / CHECKPOINTS_NAME
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        tables = {r[0] for r in conn.execute("select name from sqlite_master where type='table'")}
        if tables and not {"checkpoints", "writes"} <= tables:  # another program's: never written into
            raise sqlite3.DatabaseError(f"it holds other tables ({', '.join(sorted(tables)[:5])})")
        saver = SqliteSaver(conn)
        saver.setup()
        conn.execute("select thread_id, checkpoint_id, checkpoint from checkpoints limit 1").fetchall()
    except sqlite3.DatabaseError as e:
        conn.close()
        raise SettingsError(
            f"{db} is not a deps checkpoint database ({e}); accepted: one written by deps run "
            "--trace-dir, or none (move it away, or choose another --trace-dir)"
        ) from None
    return saver


MAX_LINE_BYTES = 16 * 2**20  # one trace line (an LLM reply is cut long before: nodes/ask.py)


def read_trace(trace_dir: str | Path) -> Iterator[dict]:
    """The trace's lines, oldest first: JSON objects only. A line cut short by a crash, a line
    that is not an object, and a line over MAX_LINE_BYTES (read in bounded pieces and skipped)
    are left out."""
    path = Path(trace_dir) / TRACE_NAME
    if not path.is_file():
        return
    with path.open("rb") as fh:
        while True:
            line = fh.readline(MAX_LINE_BYTES + 1)
            if not line:
                return
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of the huge line
                    line = fh.readline(MAX_LINE_BYTES)
                continue
            try:
                value = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                yield value


def threads(trace_dir: str | Path) -> list[str]:
    """The runs recorded in a trace folder, in the order they started."""
    return list(
        dict.fromkeys(
            line["thread"]
            for line in read_trace(trace_dir)
            if line.get("event") == "start" and isinstance(line.get("thread"), str) and line["thread"]
        )
    )


def start_record(trace_dir: str | Path, thread: str) -> dict | None:
    """The `start` line of a run: its task and settings."""
    return next(
        (
            line
            for line in read_trace(trace_dir)
            if line.get("event") == "start"
            and line.get("thread") == thread
            and isinstance(line.get("task"), dict)
            and isinstance(line.get("settings"), dict)
        ),
        None,
    )


class LLMCallRecorder(BaseCallbackHandler):
    """A LangChain callback handler that sees every chat-model call made inside the graph's
    nodes (the config's callbacks reach them) and reports each one, prompt, reply and tokens,
    to `sink(event: dict)`: the trace file and the progress line both listen."""

    def __init__(self, sink):
        self.sink = sink
        self._open: dict[Any, tuple[float, list[dict], str]] = {}

    def on_chat_model_start(self, serialized, messages, *, run_id, **kwargs) -> None:
        prompt = [
            {"role": m.type, "content": m.content if isinstance(m.content, str) else str(m.content)}
            for m in (messages[0] if messages else [])
        ]
        name = str(kwargs.get("name") or "")  # the call's role and model: "deps planner · local:deps-reader"
        self._open[run_id] = (time.monotonic(), prompt, name)
        self.sink({"phase": "start", "name": name, "prompt_chars": sum(len(m["content"]) for m in prompt)})

    def on_llm_end(self, response, *, run_id, **kwargs) -> None:
        t0, prompt, name = self._open.pop(run_id, (time.monotonic(), [], ""))
        gen = response.generations[0][0] if response.generations and response.generations[0] else None
        message = getattr(gen, "message", None)
        tokens_in, tokens_out = usage_of(message) if message is not None else (0, 0)
        self.sink(
            {
                "phase": "end",
                "name": name,
                "prompt": prompt,
                "reply": getattr(gen, "text", "") if gen else "",
                "tokens_in": tokens_in,
                "tokens_out": tokens_out,
                "seconds": round(time.monotonic() - t0, 3),
            }
        )

    def on_llm_error(self, error, *, run_id, **kwargs) -> None:
        self._open.pop(run_id, None)
        self.sink({"phase": "error", "error": " ".join(str(error).split())[:300]})
