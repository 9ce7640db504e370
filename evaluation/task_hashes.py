"""What a stored result was a result of: each task's definition, hashed, stored with its
episodes; and the suite named the same way however its file was given.

- `task_hash(task)`: sha256 (16 hex digits) of the task's definition: id, group, instruction,
  target, max_steps, inventory, biome and find conditions, not the suite's label (a path).
- On `--resume`, `check_unchanged` compares the hashes stored with each task's episodes with
  the suite as it is now, and refuses (one line naming the changed tasks) rather than mix two
  definitions of a task in one result. Nothing stored is deleted: restore the file, resume
  into another --out, or leave the changed tasks out with --tasks. Episodes stored before
  hashes were kept (no hash) cannot be checked and are accepted.
- `canonical_suite`: a suite file by relative or absolute path (or through a link) is the same
  suite; `same_run` lets an out dir written before this (its identity holds the path as
  given) be resumed by either spelling.
- `ContaminatedResult`: what the eval reports instead of storing a result whose checkpoint
  thread already made a stored result (each run has its own thread: agent/fresh.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evaluation.identity import RUN_JSON, EvalError
from evaluation.store import STORE_NAME, ResultStore
from worlds.types import Task

_DEFINITION = ("id", "group", "instruction", "target", "max_steps", "inventory", "biome", "context")
BUILTIN_SUITES = ("deps71", "plan4mc", "mp5", "mp5-context")


class ContaminatedResult(RuntimeError):
    """A result that cannot be one episode's own (made on a thread another stored result was
    made on): reported as the episode's error, never stored; --resume runs it again."""


def task_hash(task: Task) -> str:
    d = {k: getattr(task, k, None) for k in _DEFINITION}
    blob = json.dumps(d, sort_keys=True, default=str, ensure_ascii=True)
    return hashlib.sha256(blob.encode("ascii")).hexdigest()[:16]


def task_hashes(tasks: Iterable[Task]) -> dict[str, str]:
    return {t.id: task_hash(t) for t in tasks}


def canonical_suite(suite: str | None) -> str | None:
    """A built-in suite's name as it is; a suite file as its resolved absolute path."""
    if suite is None or suite in BUILTIN_SUITES:
        return suite
    try:
        path = Path(suite).expanduser()
        return str(path.resolve()) if path.is_file() else suite
    except (OSError, ValueError):
        return suite


def same_run(stored_identity: dict[str, Any], identity: dict[str, Any]) -> bool:
    """Two identities of one run: the same settings and the same suite file, however spelled."""
    if stored_identity.get("settings") != identity.get("settings"):
        return False
    a, b = stored_identity.get("suite"), identity.get("suite")
    return a == b or canonical_suite(a) == canonical_suite(b)


def changed_tasks(stored: dict[str, set[str]], current: dict[str, str]) -> list[str]:
    """The tasks (of `current`) whose stored episodes were made under another definition."""
    return [tid for tid, h in current.items() if any(s != h for s in stored.get(tid, set()) if s)]


def check_unchanged(stored: dict[str, set[str]], current: dict[str, str], suite: str | None) -> None:
    """Refuse (EvalError, one line) to resume tasks whose definition changed since their
    episodes were stored."""
    changed = changed_tasks(stored, current)
    if changed:
        shown = ", ".join(repr(t) for t in changed[:10]) + (
            f" and {len(changed) - 10} more" if len(changed) > 10 else ""
        )
        raise EvalError(
            f"the definition of {len(changed)} task(s) changed since their episodes were stored "
            f"({shown}) in suite {suite}; to resume, restore the suite file, leave them out with --tasks, "
            "or choose another --out"
        )


def check_store_unchanged(out: Path, run_key: str, current: dict[str, str], suite: str | None) -> None:
    """check_unchanged against the store in `out` (if there is one), before anything is written."""
    path = out / STORE_NAME
    if path.is_file():
        with ResultStore(path) as st:
            check_unchanged(st.task_hashes(run_key), current, suite)


def adopt_stored_identity(out: Path, identity: dict[str, Any], run_key: str) -> tuple[dict[str, Any], str]:
    """The identity and key to use in `out`: the stored ones when they name the same run by
    another spelling of the suite file (an out dir written before suites were resolved, or a
    relative path then, an absolute one now), else the given ones."""
    try:
        stored = json.loads((out / RUN_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return identity, run_key
    if not isinstance(stored, dict) or stored.get("run_key") in (None, run_key):
        return identity, run_key
    if isinstance(stored.get("identity"), dict) and same_run(stored["identity"], identity):
        return stored["identity"], str(stored["run_key"])
    return identity, run_key
