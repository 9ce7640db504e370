"""Ablations as commands: one eval per value of a setting (`--sweep max-rounds=0,1,3,5`, DEPS
Table 4; `llm=...`, Table 19; `selector=...`), each in DIR/<param>=<value>/, then a combined
table and plot."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from evaluation.identity import SUMMARY_JSON, EvalError, write_json_atomic
from evaluation.out_guard import OutDirLock, refuse_links
from evaluation.runner import run_eval
from evaluation.store import JSONL_NAME, write_jsonl
from nodes.settings import RunSettings, SettingsError, redact_llm
from worlds.types import Task

_SWEEP_ALIASES = {
    "rounds": "max_rounds",
    "max-rounds": "max_rounds",
    "mc-version": "mc_version",
    "max-tokens": "max_tokens",
}
SWEEPABLE = (
    "max_rounds",
    "llm",
    "selector",
    "planner",
    "controller",
    "world",
    "mc_version",
    "seed",
    "max_tokens",
    "stochastic",
)
INF_ROUNDS = 1_000_000  # `--max-rounds inf`: re-plan until success or a budget ends (DEPS Table 4 "∞")


def sweep_param(name: str) -> str:
    p = _SWEEP_ALIASES.get(name.strip(), name.strip().replace("-", "_"))
    if p not in SWEEPABLE:
        raise EvalError(f"cannot sweep {name!r}; accepted: {', '.join(s.replace('_', '-') for s in SWEEPABLE)}")
    return p


def sweep_value(param: str, raw: Any) -> Any:
    """Convert one sweep value (a string from the CLI, or already typed) to the setting's type."""
    if param in ("max_rounds", "seed", "max_tokens"):
        if isinstance(raw, str) and raw.strip().lower() in ("inf", "infinity", "∞") and param == "max_rounds":
            return INF_ROUNDS
        if isinstance(raw, float) and math.isinf(raw) and param == "max_rounds":
            return INF_ROUNDS
        try:
            return int(str(raw).strip())
        except ValueError:
            raise EvalError(
                f"bad {param.replace('_', '-')} value {raw!r} in the sweep; accepted: whole numbers"
                + (" or inf" if param == "max_rounds" else "")
            ) from None
    if param == "stochastic":
        v = str(raw).strip().lower()
        if v in ("1", "true", "yes", "on"):
            return True
        if v in ("0", "false", "no", "off"):
            return False
        raise EvalError(f"bad stochastic value {raw!r} in the sweep; accepted: true, false")
    return str(raw).strip()


def value_label(param: str, value: Any) -> str:
    if param == "max_rounds" and value == INF_ROUNDS:
        return "inf"
    if param == "llm":
        return redact_llm(str(value))  # a folder name or a table never shows credentials
    return str(value).lower() if isinstance(value, bool) else str(value)


def sweep_dir_name(param: str, value: Any) -> str:
    label = value_label(param, value)
    safe = "".join(c if c.isalnum() or c in "-_.+" else "_" for c in label)
    return f"{param.replace('_', '-')}={safe}"


def run_sweep(
    param: str, values: Iterable[Any], tasks: Sequence[Task], settings: RunSettings, **options: Any
) -> dict[str, Any]:
    """A sweep (what it does: `_run_sweep`) holding OUT/.lock for its combined files, as each of
    its runs holds its own sub-folder's (evaluation/out_guard.py)."""
    with contextlib.ExitStack() as guards:
        return _run_sweep(param, values, tasks, settings, guards=guards, **options)


def _run_sweep(
    param: str,
    values: Iterable[Any],
    tasks: Sequence[Task],
    settings: RunSettings,
    *,
    guards: contextlib.ExitStack,
    episodes: int,
    out_dir: str | os.PathLike[str],
    **eval_kwargs: Any,
) -> dict[str, Any]:
    """One run_eval per value of `param` (e.g. max_rounds over 0,1,3,5 as DEPS Table 4; llm;
    selector), each in DIR/<param>=<value>/ (e.g. DIR/max-rounds=3/), then a combined table
    and plot: DIR/report.md (success vs. value), DIR/sweep.png, DIR/summary.json (the sweep
    object), DIR/episodes.jsonl (all runs' lines, each with `sweep_value`).
    `eval_kwargs` go to run_eval (workers, resume, backend, episode_fn, progress, ...)."""
    param = sweep_param(param)
    vals = [sweep_value(param, v) for v in values]
    if not vals:
        raise EvalError("the sweep has no values")
    labels = [value_label(param, v) for v in vals]
    if len(set(labels)) != len(labels):
        raise EvalError(f"the sweep repeats a value: {', '.join(labels)}")
    variants = []
    for v in vals:
        s = dataclasses.replace(settings, **{param: v})
        try:
            s.validate()
        except SettingsError as exc:
            raise EvalError(str(exc)) from None
        variants.append(s)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    guards.enter_context(OutDirLock(out))  # one sweep per out dir at a time
    refuse_links(out)  # the combined report, plot and files: never written through a planted link
    runs: list[dict[str, Any]] = []
    for v, label, s in zip(vals, labels, variants):
        sub = out / sweep_dir_name(param, v)
        if sub.is_symlink():  # its files would land wherever the link points
            raise EvalError(
                f"{sub} is a symbolic link; deps eval never writes through links: remove it, or choose another --out"
            )
        summary = run_eval(tasks, s, episodes=episodes, out_dir=sub, **eval_kwargs)
        runs.append({"value": label, "dir": sub.name, "summary": summary})
    first = runs[0]["summary"]
    result = {
        "sweep": param,
        "values": labels,
        "suite": first.get("suite"),
        "planner": settings.planner if param != "planner" else None,
        "world": settings.world if param != "world" else None,
        "episodes": episodes,
        "runs": {
            r["value"]: {
                k: r["summary"].get(k)
                for k in (
                    "success_rate",
                    "std",
                    "n",
                    "missing",
                    "tokens_in",
                    "tokens_out",
                    "wall_s",
                    "tokens_per_success",
                    "groups",
                    "errors",
                )
            }
            | {"dir": r["dir"]}
            for r in runs
        },
        "success_rate": {r["value"]: r["summary"].get("success_rate") for r in runs},
        "tokens_in": sum(r["summary"].get("tokens_in") or 0 for r in runs),
        "tokens_out": sum(r["summary"].get("tokens_out") or 0 for r in runs),
        "wall_s": round(sum(r["summary"].get("wall_s") or 0 for r in runs), 3),
    }
    # one combined jsonl (each sub-dir's file is the truth for its run)
    lines = []
    for r in runs:
        p = out / r["dir"] / JSONL_NAME
        if p.exists():
            for line in p.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    row["sweep_value"] = r["value"]
                    lines.append(row)
    write_jsonl(out / JSONL_NAME, lines)
    write_json_atomic(out / SUMMARY_JSON, result)
    from evaluation.report.report import write_sweep_report

    write_sweep_report(out, param, [(r["value"], r["summary"]) for r in runs])
    return result
