"""The local trace of an episode: every node's update as a JSON line, written as it happens,
beside LangGraph's own SQLite checkpoints of the state (so a run can be inspected, resumed
or replayed). Several runs may share a folder: every line names its run's thread."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Iterator

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
            self._fh = self.path.open("a", encoding="utf-8")
        except OSError as e:
            raise SettingsError(f"cannot write --trace-dir {str(trace_dir)!r} ({e.strerror or e}); "
                                "accepted: a folder you can create and write") from None
        self._t0 = time.monotonic()

    def write(self, event: str, **data: Any) -> None:
        line = {"t": round(time.monotonic() - self._t0, 4), "thread": self.thread, "event": event, **data}
        self._fh.write(json.dumps(line, default=str) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()

    def checkpointer(self):
        return open_checkpointer(self.dir)


def open_checkpointer(trace_dir: str | Path):
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(Path(trace_dir) / CHECKPOINTS_NAME, check_same_thread=False)
    return SqliteSaver(conn)


def read_trace(trace_dir: str | Path) -> Iterator[dict]:
    """The trace's lines, oldest first (a line cut short by a crash is skipped)."""
    path = Path(trace_dir) / TRACE_NAME
    if not path.is_file():
        return
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                yield json.loads(line)
            except ValueError:
                continue


def threads(trace_dir: str | Path) -> list[str]:
    """The runs recorded in a trace folder, in the order they started."""
    return list(dict.fromkeys(line["thread"] for line in read_trace(trace_dir)
                              if line.get("event") == "start" and line.get("thread")))


def start_record(trace_dir: str | Path, thread: str) -> dict | None:
    """The `start` line of a run: its task and settings."""
    return next((line for line in read_trace(trace_dir)
                 if line.get("event") == "start" and line.get("thread") == thread), None)


class LLMCallRecorder(BaseCallbackHandler):
    """A LangChain callback handler that sees every chat-model call made inside the graph's
    nodes (the config's callbacks reach them) and reports each one, prompt, reply and tokens,
    to `sink(event: dict)`: the trace file and the progress line both listen."""

    def __init__(self, sink):
        self.sink = sink
        self._open: dict[Any, tuple[float, list[dict]]] = {}

    def on_chat_model_start(self, serialized, messages, *, run_id, **kwargs) -> None:
        prompt = [{"role": m.type, "content": m.content if isinstance(m.content, str) else str(m.content)}
                  for m in (messages[0] if messages else [])]
        self._open[run_id] = (time.monotonic(), prompt)
        self.sink({"phase": "start", "prompt_chars": sum(len(m["content"]) for m in prompt)})

    def on_llm_end(self, response, *, run_id, **kwargs) -> None:
        t0, prompt = self._open.pop(run_id, (time.monotonic(), []))
        gen = response.generations[0][0] if response.generations and response.generations[0] else None
        message = getattr(gen, "message", None)
        tokens_in, tokens_out = usage_of(message) if message is not None else (0, 0)
        self.sink({"phase": "end", "prompt": prompt, "reply": getattr(gen, "text", "") if gen else "",
                   "tokens_in": tokens_in, "tokens_out": tokens_out, "seconds": round(time.monotonic() - t0, 3)})

    def on_llm_error(self, error, *, run_id, **kwargs) -> None:
        self._open.pop(run_id, None)
        self.sink({"phase": "error", "error": " ".join(str(error).split())[:300]})
