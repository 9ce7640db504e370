"""Finished chunks of a long table run, written as they come, so a stopped run resumes.

The skill table's worlds run in chunks of 32 (experiments/skill_table.py), and a whole table
(63 goals, 50 worlds each, two drivers) takes over an hour on two cores. Until 2026-12-04 its
rows were written only at the end, so a run stopped at minute 80 kept nothing. Now each chunk's
results are appended to `<out>.parts.jsonl` the moment it finishes: one JSON line with the
chunk's key and its worlds' results, flushed and fsynced, so a line is whole or absent.

A chunk's key is everything its results depend on: the driver, the worlds (seed, worlds per
skill, the skills asked for, the slice), the budgets, sampling, `--why`, the chunk's generator
seed, and the checkpoint files' contents (a SHA-256 of each, so a network retrained at the same
path is not mistaken for the old one). `--resume` takes a logged chunk only where every part of
its key matches; anything else is run again. What the key cannot see is the code: resume a run
on the commit that started it (the log's first line records the commit where git can tell).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

from agent.checksums import file_sha256
from skills.learned.paths import checkpoint_files

KEY_FIELDS = (
    "driver", "episodes", "seed", "skills", "lo", "hi", "budget", "find_budget",
    "mine_budget", "kill_budget", "greedy", "why", "chunk_seed",
)  # fmt: skip


def _digest(path: str | Path) -> str:
    return file_sha256(path)[:16]


def checkpoint_digest(path: str | None) -> str | None:
    """The contents of every file a checkpoint argument names (parts joined by ':' or '+')."""
    if not path:
        return None
    return ",".join(_digest(p) for p in checkpoint_files("controller", path))


def chunk_key(job: dict) -> str:
    """One string for everything a chunk's results depend on (module docstring)."""
    key = {k: job[k] for k in KEY_FIELDS}
    if job.get("count", 1) != 1:  # only where set: the logs written before --count keep their keys
        key["count"] = job["count"]
    key["checkpoint"] = checkpoint_digest(job["path"])
    return json.dumps(key, sort_keys=True)


def _plain(x: Any) -> Any:
    """numpy scalars and arrays as JSON's own types (a rollout's results hold some)."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON: {type(x).__name__}")


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, cwd=Path(__file__).parent
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


class ChunkLog:
    """`<out>.parts.jsonl`: the finished chunks of one table run. Opened fresh, it is emptied;
    opened with `resume=True`, its chunks are kept and `done(job)` hands back a matching one."""

    def __init__(self, out: str | Path, resume: bool = False):
        self.path = Path(str(out) + ".parts.jsonl")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.kept: dict[str, list[dict]] = {}
        if resume and self.path.exists():
            for line in self.path.read_text().splitlines():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by a crash before its fsync: that chunk runs again
                if "key" in rec:
                    self.kept[rec["key"]] = rec["results"]
        else:
            self.path.write_text(json.dumps({"commit": _commit()}) + "\n")

    def done(self, job: dict) -> list[dict] | None:
        """The logged results of this chunk, or None where it must run."""
        return self.kept.get(chunk_key(job))

    def add(self, job: dict, results: list[dict]) -> list[dict]:
        """Append one finished chunk, whole (flushed and fsynced before returning); its results as
        read back from the log, so that a fresh run and a resumed one aggregate the same values."""
        line = json.dumps({"key": chunk_key(job), "results": results}, default=_plain)
        with open(self.path, "a") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())
        kept = json.loads(line)["results"]
        self.kept[chunk_key(job)] = kept
        return kept
