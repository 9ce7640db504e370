"""The episode runner of `deps eval`: many episodes, concurrently, resumably.

    summary = run_eval(tasks, settings, episodes=30, out_dir="runs/deps", workers=4)

- Every (task, episode) has a fixed seed: `episode_seed(settings.seed, task.id, episode)`
  (evaluation/identity.py: a stable hash, the same in every process and on every machine).
- Episodes run concurrently on one asyncio loop, at most `workers` at a time, all sharing
  one LLM handle (one local LLM server kept busy), or as Ray tasks (evaluation/backends.py).
- Each episode's result is committed to `DIR/results.sqlite` the moment it ends (see
  evaluation/store.py); `--resume` skips what is stored, so a run killed at any moment
  (SIGKILL included) loses and repeats no episode.
- `DIR/run.json` records the run's settings; resuming with other settings is refused.
- At the end: `DIR/episodes.jsonl` (rebuilt from the store), `DIR/summary.json`,
  `DIR/report.md` (+ PNG). Sweeps (one eval per value of a setting) are evaluation/sweep.py.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evaluation.backends import (
    BACKENDS,
    EpisodeFn,
    OpenLLM,
    default_episode_fn,
    import_ray,
    needs_llm,
    one_line,
    run_local,
    run_loop,
    run_ray,
)
from evaluation.identity import (
    RUN_JSON,
    SUMMARY_JSON,
    EvalError,
    check_out_dir,
    episode_seed,
    run_identity,
    run_key_of,
    write_json_atomic,
)
from evaluation.metrics import summarize
from evaluation.out_guard import OutDirLock, refuse_links
from evaluation.progress import Progress
from evaluation.safe_files import repair_jsonl
from evaluation.schedule import longest_first
from evaluation.store import JSONL_NAME, STORE_NAME, ResultStore, append_jsonl, write_jsonl
from evaluation.task_hashes import (
    ContaminatedResult,
    adopt_stored_identity,
    canonical_suite,
    check_store_unchanged,
    task_hashes,
)
from nodes.settings import RunSettings, SettingsError, bounded
from worlds.types import Task

MAX_EPISODES = 100_000  # per task: past this an eval is a typo, not a plan
MAX_WORKERS = 256
MAX_BASE_SEED = 2**32 - 1  # so that every episode's seed (evaluation.identity.episode_seed) stays exact


def check_request(settings: RunSettings, *, episodes: int, workers: int, backend: str) -> None:
    """The checks of an eval request, in one place (the CLI and run_eval both call it):
    raises EvalError, one line saying what was wrong and what is accepted."""
    if backend not in BACKENDS:
        raise EvalError(f"unknown --backend {backend!r}; accepted: {', '.join(BACKENDS)}")
    try:
        bounded("--episodes", episodes, 1, MAX_EPISODES)
        bounded("--workers", workers, 1, MAX_WORKERS)
        bounded("--seed", settings.seed, 0, MAX_BASE_SEED)
        settings.validate()
    except SettingsError as exc:
        raise EvalError(str(exc)) from None
    if (
        settings.world == "gridworld" and settings.option("gridworld").biome is not None
    ):  # up front, not once per episode
        from worlds.gridworld.generation import check_biome
        from worlds.gridworld.spec import GridWorldError

        try:
            check_biome(settings.option("gridworld").biome)
        except GridWorldError as exc:
            raise EvalError(str(exc)) from None
    if backend == "ray":
        import_ray()


def run_eval(tasks: Sequence[Task], settings: RunSettings, **options: Any) -> dict[str, Any]:
    """Run an eval (the options and what it does: `_run_eval`) holding its out dir's lock from
    the first file it reads to the last it writes: a second eval on the same --out is refused
    with one line (evaluation/out_guard.py); the OS frees the lock however this process ends."""
    with contextlib.ExitStack() as guards:
        return _run_eval(tasks, settings, guards=guards, **options)


def _run_eval(
    tasks: Sequence[Task],
    settings: RunSettings,
    *,
    guards: contextlib.ExitStack,
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
    collect: Any = None,
) -> dict[str, Any]:
    """Run `episodes` episodes of every task; returns the summary (also in DIR/summary.json).

    episode_fn(task, settings, *, llm=None) -> dict with the `deps run` keys of docs/cli.md; async or
    plain (default: agent.runner.arun_episode, with one shared handle from
    agent.llm.open_chat_model(settings.llm) unless `llm` is given or the planner is `oracle`).
    Each episode gets `settings` with seed = episode_seed(settings.seed, task.id, episode).

    An episode that raises is reported on stderr and not stored (a later --resume retries it);
    after more than `max_errors` of them the run stops early. The summary's `errors` lists
    them and `missing` counts the (task, episode) pairs without a stored result.
    `collect` (training/collect.py's Collector, for --collect) sees the stored episodes
    (`begin(rows)`) and each newly stored one (`add(row)`).
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
    check_request(settings, episodes=episodes, workers=workers, backend=backend)
    if report:  # the report's plotting library loads while the episodes wait on their models
        from agent.preload import preload
        from evaluation.report.plots import pyplot

        preload("matplotlib.pyplot", pyplot)
    if suite is None:
        suite = next((t.suite for t in tasks if t.suite), None)

    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise EvalError(f"--out {out} exists and is not a directory; choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    guards.enter_context(OutDirLock(out))  # one eval per out dir at a time
    refuse_links(out)  # never write through a link planted in it
    identity = run_identity(settings, canonical_suite(suite))  # a suite file by any path is one suite
    run_key = run_key_of(identity)
    identity, run_key = adopt_stored_identity(out, identity, run_key)
    stored_run = check_out_dir(out, identity, run_key, resume)
    hashes = task_hashes(tasks)  # each task's definition, stored with its episodes
    if resume:
        check_store_unchanged(out, run_key, hashes, suite)
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
        "task_hashes": hashes,
        "created": (stored_run or {}).get("created", now),
        "updated": now,
    }
    write_json_atomic(out / RUN_JSON, run_info)

    store = ResultStore(out / STORE_NAME)
    jsonl = out / JSONL_NAME
    task_order = {t.id: i for i, t in enumerate(tasks)}
    wanted = {(t.id, e) for t in tasks for e in range(episodes)}

    def stored_rows() -> list[dict[str, Any]]:
        rows = [r for r in store.rows(run_key) if (r["task_id"], r["episode"]) in wanted]
        rows.sort(key=lambda r: (task_order[r["task_id"]], r["episode"]))
        return rows

    errors: list[dict[str, Any]] = []
    llm_stats: dict[str, Any] | None = None
    try:
        done = store.done_keys(run_key)
        pending = [
            (t, e, episode_seed(settings.seed, t.id, e))
            for t in tasks
            for e in range(episodes)
            if (t.id, e) not in done
        ]
        if workers > 1:  # the longest expected episodes first, so no worker waits on one alone at the end
            pending = longest_first(pending, settings.mc_version, settings.inventory)
        before = stored_rows()
        if collect is not None:  # --collect: training/collect.py turns stored episodes into a dataset
            collect.begin(before)
        repaired = repair_jsonl(jsonl)  # a truncated last line (a full disk, a crash): said, then rebuilt
        if repaired:
            print(f"deps eval: warning: {repaired}", file=sys.stderr)
        write_jsonl(jsonl, before)  # the file matches the store before anything is appended
        bar = Progress(
            len(wanted),
            len(before),
            sum(1 for r in before if r.get("success")),
            progress,
            desc=f"eval {suite or ''} {settings.planner}".strip(),
        )
        threads = {r.get("thread") for r in store.rows(run_key)} - {None}  # each run's own checkpoint thread

        def on_result(task: Task, ep: int, seed: int, res: dict[str, Any]) -> None:
            thread = res.get("thread")
            if thread and thread in threads:  # a result made on another run's thread is never stored
                on_error(task, ep, ContaminatedResult(f"thread {thread!r} already made a stored result"))
                return
            if store.put(run_key, task.id, ep, res, seed=seed, group=task.group, task_hash=hashes[task.id]):
                threads.add(thread)
                row = dict(res)
                row.update(task_id=task.id, episode=ep, seed=seed, group=task.group)
                try:
                    append_jsonl(jsonl, row)
                except OSError as exc:  # a full disk: the store has it, the file is rebuilt at the end
                    bar.write(f"[eval] {JSONL_NAME} not appended ({one_line(exc)}); the result is stored")
                bar.update(bool(res.get("success")))
                if collect is not None:
                    collect.add(row)

        def on_error(task: Task, ep: int, exc: BaseException) -> None:
            errors.append({"task_id": task.id, "episode": ep, "error": one_line(exc)})
            bar.write(f"[eval] {task.id} episode {ep} raised {one_line(exc)} (not stored; --resume retries it)")

        def stop() -> bool:
            return len(errors) > max_errors

        try:
            if pending:
                fn = episode_fn
                if backend == "ray":
                    run_ray(
                        pending, settings, fn or default_episode_fn(), workers, ray_address, on_result, on_error, stop
                    )
                elif fn is not None or llm is not None or not needs_llm(settings):
                    run_loop(
                        run_local(
                            pending, settings, fn or default_episode_fn(), llm, workers, on_result, on_error, stop
                        )
                    )
                else:
                    fn = default_episode_fn()
                    with OpenLLM(settings, workers) as handle:
                        try:
                            run_loop(run_local(pending, settings, fn, handle, workers, on_result, on_error, stop))
                        finally:  # calls, retries, calls failed for good; faults injected
                            llm_stats = handle.stats() if callable(getattr(handle, "stats", None)) else None
        finally:
            bar.close()
            rows = stored_rows()
            write_jsonl(jsonl, rows)  # the store is the truth: exactly one line per stored episode
    finally:
        store.close()

    summary = summarize(tasks, rows, settings, episodes=episodes, suite=suite)
    summary["elapsed_s"] = round(time.monotonic() - t_start, 3)
    summary["errors"] = errors
    if llm_stats:
        summary["llm_stats"] = llm_stats
    summary["out"] = str(out)
    write_json_atomic(out / SUMMARY_JSON, summary)
    if report:
        from evaluation.report.report import write_report

        write_report(out, summary)
        if settings.trace_dir:  # every episode's trace page, and OUT/traces.html linking them
            from evaluation.report.trace_index import write_trace_index

            summary["trace_index"] = str(write_trace_index(out, settings.trace_dir, rows))
    return summary
