"""Who a run is and where it lives: fixed seeds per (task, episode), the run's identity
(the suite and every setting that can change results), and the checks that keep one out
dir to one run (`--resume` with other settings is refused)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from evaluation.safe_files import write_atomic
from evaluation.store import STORE_NAME, ResultStore
from nodes.settings import RunSettings

RUN_JSON = "run.json"
SUMMARY_JSON = "summary.json"

# settings that do not change results and may differ on --resume (how patiently the LLM is
# asked changes whether a call fails, not what a successful episode means)
_NOT_IDENTITY = ("trace_dir", "llm_timeout", "llm_retries")


class EvalError(ValueError):
    """A bad evaluation request or out dir; the message is one line: what was wrong, what to do."""


def stable_hash(text: str) -> int:
    """A hash of `text` that is the same in every process (unlike hash()): 31 bits of sha256."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big") & 0x7FFFFFFF


def episode_seed(base_seed: int, task_id: str, episode: int) -> int:
    """The fixed seed of one (task, episode): seed * 1_000_003 + stable_hash(task id) + episode."""
    return int(base_seed) * 1_000_003 + stable_hash(task_id) + int(episode)


def run_identity(settings: RunSettings, suite: str | None) -> dict[str, Any]:
    """What makes two runs the same run: the suite and every setting that can change results."""
    s = settings.to_dict()
    for k in _NOT_IDENTITY:
        s.pop(k, None)
    return {"suite": suite, "settings": s}


def run_key_of(identity: dict[str, Any]) -> str:
    blob = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def _diff(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    out = []
    old_s, new_s = old.get("settings", {}), new.get("settings", {})
    if old.get("suite") != new.get("suite"):
        out.append(f"suite: stored {old.get('suite')!r}, now {new.get('suite')!r}")
    for k in sorted(set(old_s) | set(new_s)):
        if k in _NOT_IDENTITY:
            continue
        if old_s.get(k) != new_s.get(k):
            out.append(f"{k.replace('_', '-')}: stored {old_s.get(k)!r}, now {new_s.get(k)!r}")
    return out


def write_json_atomic(path: Path, obj: Any) -> None:
    """Replace `path` at once, through a new temp file (never a link's target; safe_files)."""
    write_atomic(path, json.dumps(obj, indent=2, default=str) + "\n")


def check_out_dir(out: Path, identity: dict[str, Any], run_key: str, resume: bool) -> dict | None:
    """Refuse an out dir holding another run, or this run's results without --resume.
    Returns the stored run.json (or None)."""
    run_json = out / RUN_JSON
    stored: dict | None = None
    if run_json.exists():
        try:
            stored = json.loads(run_json.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise EvalError(f"{run_json} is unreadable ({exc}); choose another --out") from None
    store_path = out / STORE_NAME
    n_here, other_keys = 0, []
    if store_path.exists():
        with ResultStore(store_path) as st:
            keys = st.run_keys()
            n_here = st.count(run_key)
        other_keys = [k for k in keys if k != run_key]
    if stored is not None and stored.get("run_key") != run_key:
        diffs = _diff(stored.get("identity", {}), identity) or ["settings differ"]
        if resume:
            raise EvalError(
                f"{out} holds a run with different settings ({'; '.join(diffs)}); "
                "resume with the same settings, or choose another --out"
            )
        raise EvalError(f"{out} already holds results of a different run ({'; '.join(diffs)}); choose another --out")
    if other_keys:
        raise EvalError(f"{out} holds results of a different run; choose another --out")
    if n_here and not resume:
        raise EvalError(
            f"{out} already holds {n_here} episode result(s) of this run; "
            "pass --resume to continue it, or choose another --out"
        )
    return stored
