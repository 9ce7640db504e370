"""The results store of `deps eval`: one SQLite file (WAL) in the run's out dir.

Each episode's row is written and committed the moment the episode ends, keyed by
(run_key, task_id, episode) UNIQUE, so a run killed at any moment (SIGKILL included)
leaves a consistent store: an episode is either fully stored or not at all, and a
resumed run repeats only what is missing. The store is the truth; `episodes.jsonl`
is a convenience copy appended as results arrive and rebuilt from the store at the
end of every run (atomically), so a crash between the two writes cannot duplicate
or lose a line.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evaluation.safe_files import append_line, write_lines

STORE_NAME = "results.sqlite"
JSONL_NAME = "episodes.jsonl"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS episodes (
    run_key     TEXT    NOT NULL,
    task_id     TEXT    NOT NULL,
    episode     INTEGER NOT NULL,
    seed        INTEGER,
    grp         TEXT,
    success     INTEGER NOT NULL,
    result      TEXT    NOT NULL,
    finished_at REAL    NOT NULL,
    task_hash   TEXT,
    UNIQUE (run_key, task_id, episode)
)
"""


def _to_json(obj: Any) -> str:
    return json.dumps(obj, default=str, sort_keys=False)


class ResultStore:
    """SQLite store of episode results. Safe to share between threads (one lock) and
    between processes (WAL + busy timeout); `put` is idempotent per key."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), timeout=60.0, isolation_level=None, check_same_thread=False)
        self._conn.execute("PRAGMA busy_timeout=60000")
        self._use_wal(deadline=time.monotonic() + 60.0)
        # FULL: a committed row survives even an OS crash; cheap at one row per episode.
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute(_SCHEMA)
        # each episode keeps the hash of its task's definition (evaluation/task_hashes.py);
        # stores written before it gain the column, their old rows hold NULL
        cols = {r[1] for r in self._conn.execute("PRAGMA table_info(episodes)")}
        if "task_hash" not in cols:
            try:
                self._conn.execute("ALTER TABLE episodes ADD COLUMN task_hash TEXT")
            except sqlite3.OperationalError as exc:  # another process added it first
                if "duplicate column" not in str(exc):
                    raise

    def _use_wal(self, deadline: float) -> None:
        """Switch the file to WAL once. The switch needs the file to itself, and SQLite answers
        "database is locked" at once (the busy timeout does not cover it) when another
        connection opens the same new store at that moment: wait and try again."""
        while True:
            try:
                mode = self._conn.execute("PRAGMA journal_mode").fetchone()[0]
                if str(mode).lower() != "wal":
                    self._conn.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    # -- writing -------------------------------------------------------------------------
    def put(
        self,
        run_key: str,
        task_id: str,
        episode: int,
        result: dict[str, Any],
        *,
        seed: int | None = None,
        group: str | None = None,
        task_hash: str | None = None,
    ) -> bool:
        """Store one episode's result and commit. Returns False if that
        (run_key, task_id, episode) was already stored (the stored row is kept)."""
        payload = _to_json(result)
        with self._lock:
            cur = self._conn.execute(
                "INSERT OR IGNORE INTO episodes"
                " (run_key, task_id, episode, seed, grp, success, result, finished_at, task_hash)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_key,
                    task_id,
                    int(episode),
                    seed,
                    group,
                    int(bool(result.get("success"))),
                    payload,
                    time.time(),
                    task_hash,
                ),
            )
            return cur.rowcount == 1

    def task_hashes(self, run_key: str) -> dict[str, set[str]]:
        """The task-definition hashes stored with one run's episodes, per task (NULLs left out)."""
        with self._lock:
            cur = self._conn.execute(
                "SELECT DISTINCT task_id, task_hash FROM episodes WHERE run_key = ? AND task_hash IS NOT NULL",
                (run_key,),
            )
            out: dict[str, set[str]] = {}
            for tid, h in cur.fetchall():
                out.setdefault(tid, set()).add(h)
            return out

    # -- reading -------------------------------------------------------------------------
    def done_keys(self, run_key: str | None = None) -> set[tuple[str, int]]:
        """The (task_id, episode) pairs stored (for one run_key, or for all)."""
        with self._lock:
            if run_key is None:
                cur = self._conn.execute("SELECT task_id, episode FROM episodes")
            else:
                cur = self._conn.execute("SELECT task_id, episode FROM episodes WHERE run_key = ?", (run_key,))
            return {(t, int(e)) for t, e in cur.fetchall()}

    def rows(self, run_key: str | None = None) -> list[dict[str, Any]]:
        """Stored results, in the order they were stored: each the episode's result dict
        plus `task_id`, `episode` (and `seed`, `group` when known)."""
        with self._lock:
            sql = "SELECT task_id, episode, seed, grp, result FROM episodes"
            args: tuple[Any, ...] = ()
            if run_key is not None:
                sql += " WHERE run_key = ?"
                args = (run_key,)
            cur = self._conn.execute(sql + " ORDER BY rowid", args)
            fetched = cur.fetchall()
        out = []
        for task_id, episode, seed, grp, payload in fetched:
            row = json.loads(payload)
            row["task_id"] = task_id
            row["episode"] = int(episode)
            if seed is not None:
                row.setdefault("seed", seed)
            if grp is not None:
                row.setdefault("group", grp)
            out.append(row)
        return out

    def run_keys(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._conn.execute("SELECT DISTINCT run_key FROM episodes")]

    def count(self, run_key: str | None = None) -> int:
        with self._lock:
            if run_key is None:
                return self._conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
            return self._conn.execute("SELECT COUNT(*) FROM episodes WHERE run_key = ?", (run_key,)).fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# -- episodes.jsonl -------------------------------------------------------------------------
def append_jsonl(path: str | os.PathLike[str], row: dict[str, Any]) -> None:
    """Append one line, whole or not at all (one os.write on an O_APPEND fd, fsync; a short
    write is cut back; a link is refused: evaluation/safe_files.py). The store is the truth,
    the file is rebuilt from it at the end."""
    append_line(path, _to_json(row))


def write_jsonl(path: str | os.PathLike[str], rows: Iterable[dict[str, Any]]) -> int:
    """Rewrite the file from `rows` atomically (a new temp file, never a link's target, then
    rename). Returns the line count."""
    return write_lines(path, (_to_json(row) for row in rows))
