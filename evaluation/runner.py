"""The episode runner of `deps eval`: many episodes, concurrently, resumably.

    summary = run_eval(tasks, settings, episodes=30, out_dir="runs/deps", workers=4)

- Every (task, episode) has a fixed seed: `episode_seed(settings.seed, task.id, episode)`
  (a stable hash, the same in every process and on every machine).
- Episodes run concurrently on one asyncio loop, at most `workers` at a time, all sharing
  one LLM handle (one local LLM server kept busy), or as Ray tasks (`backend="ray"`).
- Each episode's result is committed to `DIR/results.sqlite` the moment it ends (see
  evaluation/store.py); `--resume` skips what is stored, so a run killed at any moment
  (SIGKILL included) loses and repeats no episode.
- `DIR/run.json` records the run's settings; resuming with other settings is refused.
- At the end: `DIR/episodes.jsonl` (rebuilt from the store), `DIR/summary.json`,
  `DIR/report.md` (+ PNG). `run_sweep` runs one eval per value of a setting, each in
  `DIR/<param>=<value>/`, plus a combined table and plot.
"""
from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import inspect
import json
import math
import os
import statistics
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable, Sequence

from agent.config import RunSettings, SettingsError
from agent.types import Task
from evaluation.store import JSONL_NAME, STORE_NAME, ResultStore, append_jsonl, write_jsonl

RUN_JSON = "run.json"
SUMMARY_JSON = "summary.json"
BACKENDS = ("local", "ray")

# settings that do not change results and may differ on --resume
_NOT_IDENTITY = ("trace_dir",)

EpisodeFn = Callable[..., "Awaitable[dict[str, Any]] | dict[str, Any]"]


class EvalError(ValueError):
    """A bad evaluation request or out dir; the message is one line: what was wrong, what to do."""


# ---------------------------------------------------------------------------------------------
# seeds and run identity
# ---------------------------------------------------------------------------------------------
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


def _write_json_atomic(path: Path, obj: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, default=str)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _check_out_dir(out: Path, identity: dict[str, Any], run_key: str, resume: bool) -> dict | None:
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
        raise EvalError(
            f"{out} already holds results of a different run ({'; '.join(diffs)}); choose another --out"
        )
    if other_keys:
        raise EvalError(f"{out} holds results of a different run; choose another --out")
    if n_here and not resume:
        raise EvalError(
            f"{out} already holds {n_here} episode result(s) of this run; "
            "pass --resume to continue it, or choose another --out"
        )
    return stored


# ---------------------------------------------------------------------------------------------
# metrics
# ---------------------------------------------------------------------------------------------
def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(float(x), nd)


def _tokens(row: dict[str, Any]) -> int:
    return int(row.get("tokens_in") or 0) + int(row.get("tokens_out") or 0)


def _stats(rows: list[dict[str, Any]], task_ids: list[str]) -> dict[str, Any]:
    """Metrics of a set of episodes. `std` is the sample std (n-1) over tasks of the
    per-task success rates: the convention of DEPS Table 2 (its ±, recomputed from the
    per-task Table 21, match the sample std, e.g. DEPS MT1 79.77 ± 8.5)."""
    n = len(rows)
    succ = [r for r in rows if r.get("success")]
    by_task: dict[str, list[dict]] = {}
    for r in rows:
        by_task.setdefault(r["task_id"], []).append(r)
    task_rates = [
        sum(1 for r in by_task[t] if r.get("success")) / len(by_task[t]) for t in task_ids if by_task.get(t)
    ]
    std = statistics.stdev(task_rates) if len(task_rates) > 1 else (0.0 if task_rates else None)
    return {
        "success_rate": _r(len(succ) / n) if n else None,
        "n": n,
        "std": _r(std),
        "tasks": len(task_ids),
        "successes": len(succ),
        "tokens_in": sum(int(r.get("tokens_in") or 0) for r in rows),
        "tokens_out": sum(int(r.get("tokens_out") or 0) for r in rows),
        "tokens_per_success": _r(_mean([_tokens(r) for r in succ]), 1),
        "mean_env_steps": _r(_mean([float(r.get("env_steps") or 0) for r in rows]), 2),
        "mean_rounds": _r(_mean([float(r.get("rounds") or 0) for r in rows]), 3),
        "llm_calls": sum(int(r.get("llm_calls") or 0) for r in rows),
        "wall_s": _r(sum(float(r.get("wall_s") or 0.0) for r in rows), 3),
    }


def summarize(
    tasks: Sequence[Task],
    rows: Sequence[dict[str, Any]],
    settings: RunSettings,
    *,
    episodes: int,
    suite: str | None = None,
) -> dict[str, Any]:
    """The summary object of CONTRACT `deps eval --json` from stored episode rows.

    Rates are fractions in [0, 1]. Per group: success_rate (mean over its episodes), n
    (episodes), std (sample std over the group's tasks of per-task success rates), tasks,
    successes, tokens_per_success (mean tokens in+out of a successful episode), ...
    Overall: success_rate (mean over episodes), tokens_in, tokens_out, wall_s (sums over
    episodes). `per_task` holds each task's figures (the rows of the report's per-task table).
    """
    wanted = {t.id for t in tasks}
    rows = [r for r in rows if r["task_id"] in wanted]
    groups: dict[str, list[Task]] = {}
    for t in tasks:
        groups.setdefault(t.group, []).append(t)
    by_group_rows: dict[str, list[dict]] = {g: [] for g in groups}
    task_group = {t.id: t.group for t in tasks}
    for r in rows:
        by_group_rows[task_group[r["task_id"]]].append(r)
    overall = _stats(rows, [t.id for t in tasks])
    per_task = {}
    for t in tasks:
        trows = [r for r in rows if r["task_id"] == t.id]
        st = _stats(trows, [t.id])
        per_task[t.id] = {
            "group": t.group,
            "target": dict(t.target),
            "success_rate": st["success_rate"],
            "n": st["n"],
            "successes": st["successes"],
            "tokens_per_success": st["tokens_per_success"],
            "mean_env_steps": st["mean_env_steps"],
            "mean_rounds": st["mean_rounds"],
        }
    s = settings
    return {
        "suite": suite,
        "planner": s.planner,
        "world": s.world,
        "episodes": int(episodes),
        "groups": {g: _stats(by_group_rows[g], [t.id for t in ts]) for g, ts in groups.items()},
        "success_rate": overall["success_rate"],
        "tokens_in": overall["tokens_in"],
        "tokens_out": overall["tokens_out"],
        "wall_s": overall["wall_s"],
        "n": overall["n"],
        "expected": len(tasks) * int(episodes),
        "missing": len(tasks) * int(episodes) - overall["n"],
        "tasks": len(tasks),
        "std": overall["std"],
        "successes": overall["successes"],
        "tokens_per_success": overall["tokens_per_success"],
        "llm_calls": overall["llm_calls"],
        "llm": s.llm,
        "selector": s.selector,
        "controller": s.controller,
        "mc_version": s.mc_version,
        "max_rounds": s.max_rounds,
        "seed": s.seed,
        "per_task": per_task,
    }


# ---------------------------------------------------------------------------------------------
# progress
# ---------------------------------------------------------------------------------------------
class _Progress:
    """done/total, success so far, ETA on stderr (tqdm when installed, plain lines otherwise)."""

    def __init__(self, total: int, done: int, successes: int, enabled: bool, desc: str):
        self.total, self.done, self.successes, self.enabled = total, done, successes, enabled
        self._bar = None
        self._t0 = time.monotonic()
        self._start_done = done
        if not enabled:
            return
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is a dependency
            return
        self._bar = tqdm(total=total, initial=done, file=sys.stderr, desc=desc, unit="ep",
                         dynamic_ncols=True, mininterval=0.5, smoothing=0.1)
        self._bar.set_postfix_str(self._postfix(), refresh=False)

    def _postfix(self) -> str:
        rate = f"{100.0 * self.successes / self.done:.1f}%" if self.done else "-"
        return f"success {self.successes}/{self.done} ({rate})"

    def update(self, success: bool) -> None:
        self.done += 1
        self.successes += int(bool(success))
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(self._postfix(), refresh=False)
            self._bar.update(1)
        else:  # pragma: no cover
            ran = self.done - self._start_done
            el = time.monotonic() - self._t0
            eta = el / ran * (self.total - self.done) if ran else float("nan")
            print(f"[eval] {self.done}/{self.total} {self._postfix()} eta {eta:.0f}s", file=sys.stderr)

    def write(self, msg: str) -> None:
        if self._bar is not None:
            self._bar.write(msg, file=sys.stderr)
        else:
            print(msg, file=sys.stderr)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


# ---------------------------------------------------------------------------------------------
# running episodes
# ---------------------------------------------------------------------------------------------
def _episode_settings(settings: RunSettings, task: Task, episode: int, seed: int) -> RunSettings:
    changes: dict[str, Any] = {"seed": seed}
    if settings.trace_dir:
        changes["trace_dir"] = os.path.join(settings.trace_dir, f"{task.id}-e{episode}")
    return dataclasses.replace(settings, **changes)


def _one_line(exc: BaseException) -> str:
    msg = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


async def _call_episode(fn: EpisodeFn, task: Task, settings: RunSettings, llm: Any) -> dict[str, Any]:
    if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None)):
        res = await fn(task, settings, llm=llm)
    else:  # a plain function: keep the loop free, run it in a thread
        res = await asyncio.to_thread(fn, task, settings, llm=llm)
        if inspect.isawaitable(res):
            res = await res
    if not isinstance(res, dict):
        raise TypeError(f"the episode function returned {type(res).__name__}, not a dict")
    return res


async def _run_local(pending, settings, episode_fn, llm, workers, on_result, on_error, stop) -> None:
    queue = deque(pending)

    async def worker() -> None:
        while queue and not stop():
            task, ep, seed = queue.popleft()
            s = _episode_settings(settings, task, ep, seed)
            try:
                res = await _call_episode(episode_fn, task, s, llm)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - reported, not stored, retried on --resume
                on_error(task, ep, exc)
                continue
            on_result(task, ep, seed, res)

    await asyncio.gather(*(worker() for _ in range(max(1, min(workers, len(queue))))))


def _ray_episode(fn: EpisodeFn, task: Task, settings: RunSettings) -> dict[str, Any]:
    """Body of one Ray task: run the episode function in the worker process."""
    res = fn(task, settings, llm=None)
    if inspect.isawaitable(res):
        async def _await() -> Any:
            return await res
        res = asyncio.run(_await())
    return res


def _import_ray():
    try:
        import ray  # noqa: F401
    except ImportError:
        raise EvalError(
            "--backend ray needs Ray, which is not installed: pip install ray "
            "(or pip install 'deps-agent[ray]'), or use --backend local"
        ) from None
    return ray


def _run_ray(pending, settings, episode_fn, workers, ray_address, on_result, on_error, stop) -> None:
    ray = _import_ray()
    address = ray_address or os.environ.get("RAY_ADDRESS") or None
    started = False
    if not ray.is_initialized():
        import logging

        try:
            ray.init(address=address, ignore_reinit_error=True, include_dashboard=False,
                     logging_level=logging.WARNING, log_to_driver=True)
        except Exception as exc:  # noqa: BLE001
            raise EvalError(f"could not start or reach Ray ({'address ' + address if address else 'local'}): "
                            f"{_one_line(exc)}") from None
        started = True
    try:
        remote = ray.remote(max_retries=0)(_ray_episode)
        fn_ref = ray.put(episode_fn)
        queue = deque(pending)
        in_flight: dict[Any, tuple] = {}

        def submit() -> None:
            if queue and not stop():
                task, ep, seed = queue.popleft()
                s = _episode_settings(settings, task, ep, seed)
                in_flight[remote.remote(fn_ref, task, s)] = (task, ep, seed)

        for _ in range(max(1, workers)):
            submit()
        while in_flight:
            done, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in done:
                task, ep, seed = in_flight.pop(ref)
                try:
                    res = ray.get(ref)
                    if not isinstance(res, dict):
                        raise TypeError(f"the episode function returned {type(res).__name__}, not a dict")
                except Exception as exc:  # noqa: BLE001
                    cause = getattr(exc, "cause", None) or exc
                    on_error(task, ep, cause)
                else:
                    on_result(task, ep, seed, res)
                submit()
    finally:
        if started:
            ray.shutdown()


def _default_episode_fn() -> EpisodeFn:
    try:
        from agent.runner import arun_episode
    except ImportError as exc:
        raise EvalError(f"the episode runner (agent.runner.arun_episode) is not available: {_one_line(exc)}") from None
    return arun_episode


def _needs_llm(settings: RunSettings) -> bool:
    try:
        from agent.components import needs_llm
    except ImportError:
        return settings.planner != "oracle"
    return bool(needs_llm(settings))


class _OpenLLM:
    """Opens the shared LLM handle (agent.llm.open_chat_model) for the default episode runner."""

    def __init__(self, spec: str):
        self.spec, self._cm = spec, None

    def __enter__(self) -> Any:
        try:
            from agent.llm import open_chat_model
        except ImportError as exc:
            raise EvalError(f"the LLM back-ends (agent.llm) are not available: {_one_line(exc)}") from None
        try:
            self._cm = open_chat_model(self.spec)
            return self._cm.__enter__()
        except EvalError:
            raise
        except Exception as exc:  # noqa: BLE001 - LLMError and friends: one line
            self._cm = None
            raise EvalError(" ".join(str(exc).split()) or _one_line(exc)) from None

    def __exit__(self, *exc: Any) -> None:
        if self._cm is not None:
            self._cm.__exit__(*exc)


def run_eval(
    tasks: Sequence[Task],
    settings: RunSettings,
    *,
    episodes: int,
    out_dir: str | os.PathLike[str],
    workers: int = 1,
    resume: bool = False,
    backend: str = "local",
    episode_fn: EpisodeFn | None = None,
    progress: bool = True,
    suite: str | None = None,
    llm: Any = None,
    ray_address: str | None = None,
    max_errors: int = 10,
    report: bool = True,
) -> dict[str, Any]:
    """Run `episodes` episodes of every task; returns the summary (also in DIR/summary.json).

    episode_fn(task, settings, *, llm=None) -> dict with the CONTRACT `deps run` keys; async or
    plain (default: agent.runner.arun_episode, with one shared handle from
    agent.llm.open_chat_model(settings.llm) unless `llm` is given or the planner is `oracle`).
    Each episode gets `settings` with seed = episode_seed(settings.seed, task.id, episode).

    An episode that raises is reported on stderr and not stored (a later --resume retries it);
    after more than `max_errors` of them the run stops early. The summary's `errors` lists
    them and `missing` counts the (task, episode) pairs without a stored result.
    Raises EvalError (one line) for a bad request or out dir.
    """
    t_start = time.monotonic()
    tasks = list(tasks)
    if not tasks:
        raise EvalError("no tasks to run")
    ids = [t.id for t in tasks]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise EvalError(f"task ids repeat in the suite: {', '.join(dup)}")
    if not isinstance(episodes, int) or isinstance(episodes, bool) or episodes < 1:
        raise EvalError(f"--episodes must be a whole number of 1 or more, got {episodes!r}")
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise EvalError(f"--workers must be a whole number of 1 or more, got {workers!r}")
    if backend not in BACKENDS:
        raise EvalError(f"unknown --backend {backend!r}; accepted: {', '.join(BACKENDS)}")
    try:
        settings.validate()
    except SettingsError as exc:
        raise EvalError(str(exc)) from None
    if backend == "ray":
        _import_ray()
    if suite is None:
        suite = next((t.suite for t in tasks if t.suite), None)

    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise EvalError(f"--out {out} exists and is not a directory; choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    identity = run_identity(settings, suite)
    run_key = run_key_of(identity)
    stored_run = _check_out_dir(out, identity, run_key, resume)
    now = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    run_info = {
        "run_key": run_key,
        "identity": identity,
        "suite": suite,
        "settings": settings.to_dict(),
        "episodes": episodes,
        "tasks": ids,
        "workers": workers,
        "backend": backend,
        "created": (stored_run or {}).get("created", now),
        "updated": now,
    }
    _write_json_atomic(out / RUN_JSON, run_info)

    store = ResultStore(out / STORE_NAME)
    jsonl = out / JSONL_NAME
    task_order = {t.id: i for i, t in enumerate(tasks)}
    wanted = {(t.id, e) for t in tasks for e in range(episodes)}

    def stored_rows() -> list[dict[str, Any]]:
        rows = [r for r in store.rows(run_key) if (r["task_id"], r["episode"]) in wanted]
        rows.sort(key=lambda r: (task_order[r["task_id"]], r["episode"]))
        return rows

    errors: list[dict[str, Any]] = []
    try:
        done = store.done_keys(run_key)
        pending = [
            (t, e, episode_seed(settings.seed, t.id, e))
            for t in tasks for e in range(episodes) if (t.id, e) not in done
        ]
        before = stored_rows()
        write_jsonl(jsonl, before)  # the file matches the store before anything is appended
        bar = _Progress(len(wanted), len(before), sum(1 for r in before if r.get("success")),
                        progress, desc=f"eval {suite or ''} {settings.planner}".strip())

        def on_result(task: Task, ep: int, seed: int, res: dict[str, Any]) -> None:
            if store.put(run_key, task.id, ep, res, seed=seed, group=task.group):
                row = dict(res)
                row.update(task_id=task.id, episode=ep, seed=seed, group=task.group)
                append_jsonl(jsonl, row)
                bar.update(bool(res.get("success")))

        def on_error(task: Task, ep: int, exc: BaseException) -> None:
            errors.append({"task_id": task.id, "episode": ep, "error": _one_line(exc)})
            bar.write(f"[eval] {task.id} episode {ep} raised {_one_line(exc)} (not stored; --resume retries it)")

        def stop() -> bool:
            return len(errors) > max_errors

        try:
            if pending:
                fn = episode_fn
                if backend == "ray":
                    _run_ray(pending, settings, fn or _default_episode_fn(), workers, ray_address,
                             on_result, on_error, stop)
                elif fn is not None or llm is not None or not _needs_llm(settings):
                    asyncio.run(_run_local(pending, settings, fn or _default_episode_fn(), llm, workers,
                                           on_result, on_error, stop))
                else:
                    fn = _default_episode_fn()
                    with _OpenLLM(settings.llm) as handle:
                        asyncio.run(_run_local(pending, settings, fn, handle, workers,
                                               on_result, on_error, stop))
        finally:
            bar.close()
            rows = stored_rows()
            write_jsonl(jsonl, rows)  # the store is the truth: exactly one line per stored episode
    finally:
        store.close()

    summary = summarize(tasks, rows, settings, episodes=episodes, suite=suite)
    summary["elapsed_s"] = round(time.monotonic() - t_start, 3)
    summary["errors"] = errors
    summary["out"] = str(out)
    _write_json_atomic(out / SUMMARY_JSON, summary)
    if report:
        from evaluation.report import write_report

        write_report(out, summary)
    return summary


# ---------------------------------------------------------------------------------------------
# sweeps
# ---------------------------------------------------------------------------------------------
_SWEEP_ALIASES = {"rounds": "max_rounds", "max-rounds": "max_rounds", "mc-version": "mc_version",
                  "max-tokens": "max_tokens"}
SWEEPABLE = ("max_rounds", "llm", "selector", "planner", "controller", "world", "mc_version",
             "seed", "max_tokens", "stochastic")
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
            raise EvalError(f"bad {param.replace('_', '-')} value {raw!r} in the sweep; accepted: whole numbers"
                            + (" or inf" if param == "max_rounds" else "")) from None
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
    return str(value).lower() if isinstance(value, bool) else str(value)


def sweep_dir_name(param: str, value: Any) -> str:
    label = value_label(param, value)
    safe = "".join(c if c.isalnum() or c in "-_.+" else "_" for c in label)
    return f"{param.replace('_', '-')}={safe}"


def run_sweep(
    param: str,
    values: Iterable[Any],
    tasks: Sequence[Task],
    settings: RunSettings,
    *,
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
    runs: list[dict[str, Any]] = []
    for v, label, s in zip(vals, labels, variants):
        sub = out / sweep_dir_name(param, v)
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
        "runs": {r["value"]: {k: r["summary"].get(k) for k in
                              ("success_rate", "std", "n", "missing", "tokens_in", "tokens_out", "wall_s",
                               "tokens_per_success", "groups", "errors")} | {"dir": r["dir"]}
                 for r in runs},
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
    _write_json_atomic(out / SUMMARY_JSON, result)
    from evaluation.report import write_sweep_report

    write_sweep_report(out, param, [(r["value"], r["summary"]) for r in runs])
    return result
