"""`deps eval` and `deps compare` as plain functions the CLI calls.

Errors are one line on stderr and a non-zero return, never a traceback; with json_out the
summary JSON is the LAST line of stdout; progress goes to stderr.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from evaluation.identity import EvalError
from evaluation.runner import check_request, run_eval
from evaluation.sweep import run_sweep, sweep_param, sweep_value
from nodes.settings import RunSettings, bounded
from training.data import DatasetError
from worlds.context_tasks import split_judgeable
from worlds.types import Task

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _fail(msg: str, stderr: TextIO, code: int = EXIT_USAGE) -> int:
    print(f"deps eval: error: {' '.join(str(msg).split())}", file=stderr)
    return code


def _load_tasks(suite: str, loader: Callable[[str], list[Task]] | None) -> list[Task]:
    if loader is None:
        from worlds.tasks import load_suite as loader  # noqa: N813
    return list(loader(suite))


def select_tasks(all_tasks: Sequence[Task], spec: str | Sequence[str] | None, suite: str = "") -> list[Task]:
    """`--tasks`: comma-separated task ids or group names (MT1), in any mix; case-insensitive.
    Keeps the suite's order; raises EvalError naming what is unknown and what is accepted."""
    if spec is None:
        return list(all_tasks)
    items = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec) if str(s).strip()]
    if not items:
        raise EvalError("--tasks is empty; give comma-separated task ids or group names")
    by_id = {t.id.lower(): t.id for t in all_tasks}
    groups: dict[str, str] = {}
    for t in all_tasks:
        groups.setdefault(t.group.lower(), t.group)
    want_ids, want_groups, unknown = set(), set(), []
    for it in items:
        k = it.lower()
        if k in by_id:
            want_ids.add(by_id[k])
        elif k in groups:
            want_groups.add(groups[k])
        else:
            unknown.append(it)
    if unknown:
        gl = ", ".join(dict.fromkeys(t.group for t in all_tasks))
        raise EvalError(
            f"unknown task or group {', '.join(repr(u) for u in unknown)} in --tasks; accepted: the groups "
            f"{gl}, or task ids of the suite (list them with `deps tasks --suite {suite or 'NAME'}`)"
        )
    return [t for t in all_tasks if t.id in want_ids or t.group in want_groups]


def parse_sweep(spec: str | tuple[str, Sequence[Any]] | None) -> tuple[str, list[Any]] | None:
    """`--sweep max-rounds=0,1,3,5` (also llm=local,openai:gpt-4o-mini; selector=fixed,random,horizon)."""
    if spec is None or spec == "":
        return None
    if isinstance(spec, (tuple, list)):
        param, values = spec
        values = list(values.split(",") if isinstance(values, str) else values)
    else:
        if "=" not in spec:
            raise EvalError(f"bad --sweep {spec!r}; accepted: PARAM=V1,V2,... e.g. max-rounds=0,1,3,5")
        param, _, rest = spec.partition("=")
        values = [v for v in (x.strip() for x in rest.split(",")) if v]
    p = sweep_param(str(param))
    if not values:
        raise EvalError(f"--sweep {p.replace('_', '-')} has no values; e.g. max-rounds=0,1,3,5")
    return p, [sweep_value(p, v) for v in values]


def _human_summary(summary: dict[str, Any]) -> str:
    from evaluation.report.report import main_table

    sr = summary.get("success_rate")
    head = (
        f"{summary.get('suite')}: planner {summary.get('planner')}, {summary.get('n')} episodes, success "
        f"{'–' if sr is None else f'{100 * sr:.1f}%'}; report: {Path(summary.get('out', '.')) / 'report.md'}"
    )
    return head + "\n\n" + main_table(summary, published=False)


def held_in(tasks: list[Task], holdout: str | None) -> list[Task]:
    """`--holdout SUITE:GROUP[,GROUP|ID]`: the tasks left when every task whose item is an item of
    those tasks is left out, the rule of `deps train llm-data --holdout` (so an exploration or a
    teacher run can keep exactly the held-out tasks unseen)."""
    if not holdout or holdout == "none":
        return tasks
    from training.teacher import holdout_targets

    try:
        items = holdout_targets(holdout)
    except ValueError as exc:  # an unknown suite
        raise EvalError(f"--holdout {holdout!r}: {exc}") from None
    if not items:
        raise EvalError(
            f"--holdout {holdout!r} names no task; accepted: SUITE:GROUP[,GROUP or task id], e.g. plan4mc:iron"
        )
    kept = [t for t in tasks if not set(t.target) & items]
    if not kept:
        raise EvalError(f"--holdout {holdout!r} leaves none of the {len(tasks)} chosen task(s)")
    return kept


def eval_command(
    suite: str,
    out: str | None,
    settings: RunSettings,
    episodes: int = 1,
    tasks: str | Sequence[str] | None = None,
    workers: int = 1,
    backend: str = "local",
    resume: bool = False,
    json_out: bool = False,
    sweep: str | tuple[str, Sequence[Any]] | None = None,
    *,
    ray_address: str | None = None,
    episode_fn: Callable[..., Any] | None = None,
    loader: Callable[[str], list[Task]] | None = None,
    progress: bool = True,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    collect: str | None = None,
    holdout: str | None = None,
) -> int:
    """The whole `deps eval` behaviour; returns the exit code.

    suite: a suite name or file; tasks: "--tasks" (ids or groups, comma-separated);
    sweep: "max-rounds=0,1,3,5" (or (param, values)) runs one eval per value in
    OUT/<param>=<value>/ with a combined report in OUT. `loader` replaces
    worlds.tasks.load_suite, `episode_fn` agent.runner.arun_episode (tests).
    """
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        if not out:
            raise EvalError("--out DIR is required: the folder for summary.json, report.md, episodes.jsonl")
        check_request(settings, episodes=episodes, workers=workers, backend=backend)
        sw = parse_sweep(sweep)
        try:
            all_tasks = _load_tasks(suite, loader)
        except ValueError as exc:  # SuiteError is a ValueError
            raise EvalError(str(exc)) from None
        if not all_tasks:
            raise EvalError(f"suite {suite!r} has no tasks")
        chosen = held_in(select_tasks(all_tasks, tasks, suite), holdout)
        chosen, refused = split_judgeable(chosen, settings.world)  # find tasks the world cannot judge
        if refused and not chosen:
            raise EvalError(f"none of the {len(refused)} task(s) can be judged here; first: {refused[0]}")
        for line in refused:
            print(f"deps eval: skipped {line}", file=stderr)
        kwargs = dict(
            workers=workers,
            resume=resume,
            backend=backend,
            episode_fn=episode_fn,
            progress=progress,
            ray_address=ray_address,
            suite=next((t.suite for t in all_tasks if t.suite), None) or str(suite),
        )
        if sw is not None and collect:
            raise EvalError("--collect works with one eval, not with --sweep; run one eval per setting")
        if sw is not None:
            result = run_sweep(sw[0], sw[1], chosen, settings, episodes=episodes, out_dir=out, **kwargs)
            errors = [e for r in result["runs"].values() for e in (r.get("errors") or [])]
            missing = sum(r.get("missing") or 0 for r in result["runs"].values())
            human = (
                f"sweep over {sw[0].replace('_', '-')}: "
                + ", ".join(
                    f"{v}: {'–' if sr is None else f'{100 * sr:.1f}%'}" for v, sr in result["success_rate"].items()
                )
                + f"; report: {Path(out) / 'report.md'}"
            )
        else:
            if collect:  # the explored episodes as a fine-tuning dataset (training/collect.py)
                from training.collect import Collector

                kwargs["collect"] = Collector(
                    collect,
                    settings,
                    resume=resume,
                    command="deps " + " ".join(sys.argv[1:])
                    if sys.argv[1:2] == ["eval"]
                    else f"deps eval --suite {suite} --collect {collect}",
                )
            result = run_eval(chosen, settings, episodes=episodes, out_dir=out, **kwargs)
            errors, missing = result.get("errors") or [], result.get("missing") or 0
            human = _human_summary(result)
    except (EvalError, DatasetError) as exc:
        return _fail(str(exc), stderr)
    except KeyboardInterrupt:
        return _fail(
            f"interrupted; finished episodes are stored in {out}; rerun with --resume to continue",
            stderr,
            EXIT_INTERRUPTED,
        )
    except Exception as exc:  # noqa: BLE001 - never a traceback (DEPS_DEBUG=1 shows it)
        if os.environ.get("DEPS_DEBUG"):
            raise
        return _fail(f"{type(exc).__name__}: {exc}", stderr, EXIT_ERROR)
    if json_out:
        print(json.dumps(result, default=str), file=stdout)
    else:
        print(human, file=stdout)
    if errors:
        e = errors[0]
        return _fail(
            f"{len(errors)} episode(s) raised and were not stored (first: {e['task_id']} episode "
            f"{e['episode']}: {e['error']}); rerun with --resume to retry them",
            stderr,
            EXIT_ERROR,
        )
    if missing:
        return _fail(f"{missing} episode(s) have no result; rerun with --resume", stderr, EXIT_ERROR)
    return EXIT_OK


def compare_command(
    dirs: Sequence[str],
    out: str | None = None,
    *,
    json_out: bool = False,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """`deps compare DIR... [--out FILE.md|DIR]`: one table of several runs side by side.

    Prints the markdown (or, with json_out, the comparison JSON as the last line); with --out
    writes FILE.md (or DIR/compare.md) and the PNG beside it."""
    from evaluation.report.report import COMPARE_PNG, ReportError, compare, compare_data

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        if not dirs:
            raise ReportError("give one or more run directories: deps compare DIR [DIR...]")
        png = None
        md_path = None
        if out:
            o = Path(out)
            if o.suffix.lower() == ".md":
                md_path = o
            else:
                o.mkdir(parents=True, exist_ok=True)
                md_path = o / "compare.md"
            md_path.parent.mkdir(parents=True, exist_ok=True)
            png = md_path.with_name(md_path.stem + ".png" if md_path.name != "compare.md" else COMPARE_PNG)
        md = compare(list(dirs), png)
        if md_path is not None:  # at once, and never through a link planted at the name
            from evaluation.safe_files import write_atomic

            write_atomic(md_path, md)
        data = compare_data(list(dirs))
    except (ReportError, OSError) as exc:
        print(f"deps compare: error: {' '.join(str(exc).split())}", file=stderr)
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001
        if os.environ.get("DEPS_DEBUG"):
            raise
        print(f"deps compare: error: {type(exc).__name__}: {' '.join(str(exc).split())}", file=stderr)
        return EXIT_ERROR
    if json_out:
        if md_path is not None:
            data["report"] = str(md_path)
        print(json.dumps(data, default=str), file=stdout)
    else:
        print(md, file=stdout)
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# the `deps` sub-commands this package adds (entry points `deps.commands` in pyproject.toml)
# ---------------------------------------------------------------------------------------------
def register(sub: Any, cli: Any) -> None:
    """Add `deps eval`, `deps compare` and `deps bench` to the CLI's sub-parsers; `cli` is the
    agent.cli module (its run flags and settings builder)."""
    e = sub.add_parser("eval", help="run a task suite, many episodes, resumable")
    e.add_argument("--suite", default="deps71", help="a suite name or the path of a suite file (JSON or YAML)")
    e.add_argument("--out", required=True, help="output folder (summary.json, report.md, episodes.jsonl)")
    e.add_argument("--episodes", type=int, default=1, help="episodes per task (default: 1)")
    e.add_argument("--tasks", default=None, help="comma-separated task ids or group names (MT1)")
    e.add_argument("--workers", type=int, default=1, help="episodes run at once (default: 1)")
    e.add_argument("--backend", default="local", choices=("local", "ray"), help="where episodes run (default: local)")
    e.add_argument("--resume", action="store_true", help="skip the episodes already stored in --out")
    e.add_argument(
        "--sweep",
        default=None,
        metavar="PARAM=V1,V2",
        help="ablation sweep, one run per value: max-rounds=0,1,3,5 (DEPS Table 4), "
        "llm=local,openai:gpt-4o-mini, selector=fixed,random,oracle, planner=...",
    )
    e.add_argument("--ray-address", default=None, help="Ray cluster address for --backend ray (default: local)")
    e.add_argument("--json", action="store_true", help="print the summary as JSON on the last line")
    e.add_argument(
        "--collect",
        default=None,
        metavar="DIR",
        help="write the successful (sub-)task decisions of a --planner rider run as a fine-tuning "
        "dataset (train.jsonl + card.json, deps-sft/1) into DIR, as episodes end",
    )
    e.add_argument(
        "--holdout",
        default=None,
        metavar="SUITE:GROUP",
        help="leave out every task whose item is an item of these tasks, as `deps train llm-data "
        "--holdout` does (e.g. plan4mc:iron,craft_torch_with_logs)",
    )
    cli._add_run_flags(e)
    e.set_defaults(
        fn=lambda a: eval_command(
            a.suite,
            a.out,
            cli._settings(a),
            episodes=a.episodes,
            tasks=a.tasks,
            workers=a.workers,
            backend=a.backend,
            resume=a.resume,
            json_out=a.json,
            sweep=a.sweep,
            ray_address=a.ray_address,
            collect=a.collect,
            holdout=a.holdout,
        )
    )

    c = sub.add_parser("compare", help="one comparison table of several eval output folders")
    c.add_argument("dirs", nargs="+", help="eval output folders (each with summary.json)")
    c.add_argument("--out", default=None, help="write the table to FILE.md (or DIR/compare.md) with a PNG plot")
    c.add_argument("--json", action="store_true", help="print the comparison as JSON on the last line")
    c.set_defaults(fn=lambda a: compare_command(a.dirs, a.out, json_out=a.json))

    b = sub.add_parser("bench", help="run the performance benchmarks side by side")
    b.add_argument("--repeat", type=int, default=3, help="repetitions per measurement (default: 3)")
    b.add_argument("--json", action="store_true", help="print {metrics: {...}} as JSON on the last line")
    b.add_argument(
        "--live-llm",
        action="store_true",
        help="measure loop_overhead_share against a live local-LLM episode (default: its recorded latency)",
    )
    b.set_defaults(fn=lambda a: bench_command(a, cli))


def bench_command(a: Any, cli: Any) -> int:
    from evaluation.bench import run_benchmarks

    bounded("--repeat", a.repeat, 1, 100)
    metrics = run_benchmarks(repeat=a.repeat, progress=cli._err, live_llm=a.live_llm)
    for k, v in metrics.items():
        cli._err(f"{k:<40} {v}")
    if a.json:
        cli._emit_json({"metrics": metrics})
    return 0
