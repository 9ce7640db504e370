"""Reports of `deps eval`: DIR/report.md shaped like DEPS Table 2 (main table) and Table 21
(per-task rows), a PNG of success per group, the papers' published figures beside ours
where the suite and groups match (evaluation/report/published.yaml), comparisons of several run
dirs (`deps compare`), and sweep tables (success vs. max rounds, LLM, selector...).

Summaries hold fractions in [0, 1]; everything shown here is in percent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evaluation.report.plots import plot_groups, plot_lines
from evaluation.report.published import group_map, load_published, norm_name, published_rows, suite_matches, suite_name
from evaluation.report.tables import fmt, fmt_pub, md_cell, md_table, pct, run_label
from evaluation.safe_files import write_atomic

REPORT_MD = "report.md"
GROUP_PNG = "success_by_group.png"
COMPARE_PNG = "compare.png"
SWEEP_PNG = "sweep.png"


class ReportError(ValueError):
    """A report could not be built; the message is one line."""


# ---------------------------------------------------------------------------------------------
# one run
# ---------------------------------------------------------------------------------------------
def _same_method(row: dict[str, Any], summary: dict[str, Any]) -> bool:
    """A published row of this run's planner (and, for rows per environment, of its world)."""
    if not row.get("planner") or row["planner"] != summary.get("planner"):
        return False
    return row.get("world") is None or row["world"] == summary.get("world")


def main_table(summary: dict[str, Any], *, published: bool = True) -> str:
    """Table 2's shape: rows = planners, columns = groups and AVG, cells `success% ± std`."""
    groups = list((summary.get("groups") or {}).keys())
    header = ["Method"] + groups + ["AVG"]
    g = summary.get("groups") or {}
    ours = [f"**ours: {run_label(summary)}**"]
    ours += [fmt(pct(g[k].get("success_rate")), pct(g[k].get("std"))) for k in groups]
    ours.append(fmt(pct(summary.get("success_rate"))))
    rows = [ours]
    if published:
        for p in published_rows(summary.get("suite"), groups, "main"):
            mark = " ◀" if _same_method(p, summary) else ""
            rows.append(
                [f"{p['label']}: {p['method']}{mark}"]
                + [fmt_pub(*p["values"].get(k, (None, None))) for k in groups]
                + [fmt_pub(p["avg"]) if p["avg"] is not None and p["all_groups"] else "–"]
            )
    return md_table(header, rows)


def _per_task_published(suite: str | None, planner: str | None) -> tuple[str | None, dict[str, dict]]:
    for t in load_published():
        if t.get("use") == "per_task" and suite_matches(t, suite):
            methods = t.get("methods") or {}
            method = next((m for m, p in methods.items() if p == planner), None)
            if method is None:
                method = next((m for m, p in methods.items() if p == "deps"), None)
            return (f"{t.get('source')}, {method}" if method else None), {
                item: {"group": v.get("group"), "value": v.get(method)} for item, v in (t.get("tasks") or {}).items()
            }
    return None, {}


def per_task_table(summary: dict[str, Any]) -> tuple[str, str | None]:
    """Table 21's shape: one row per task. Returns (markdown, name of the published column)."""
    per = summary.get("per_task") or {}
    pub_name, pub = _per_task_published(summary.get("suite"), summary.get("planner"))
    header = ["Group", "Task", "Target", "n", "success %", "tokens/success", "mean rounds"]
    if pub_name:
        header.append(f"published ({pub_name})")
    rows = []
    for tid, t in per.items():
        target = t.get("target") or {}
        item = next(iter(target), None)
        row = [
            t.get("group"),
            tid,
            ", ".join(f"{k} ×{v}" for k, v in target.items()) or "–",
            t.get("n"),
            fmt(pct(t.get("success_rate"))),
            "–" if t.get("tokens_per_success") is None else f"{t['tokens_per_success']:.0f}",
            "–" if t.get("mean_rounds") is None else f"{t['mean_rounds']:.2f}",
        ]
        if pub_name:
            p = pub.get(item) if item else None
            ok = p is not None and norm_name(p.get("group")) == norm_name(t.get("group"))
            row.append(fmt_pub(p["value"]) if ok and p.get("value") is not None else "–")
        rows.append(row)
    return md_table(header, rows), pub_name


def _coverage_note(summary: dict[str, Any]) -> str | None:
    """Where a published group covers other tasks than ours (e.g. DEPS MT4: 6 tasks in Table 21)."""
    _, pub = _per_task_published(summary.get("suite"), summary.get("planner"))
    if not pub:
        return None
    ours: dict[str, set[str]] = {}
    for t in (summary.get("per_task") or {}).values():
        item = next(iter(t.get("target") or {}), None)
        if item:
            ours.setdefault(t.get("group"), set()).add(item)
    theirs: dict[str, set[str]] = {}
    for item, v in pub.items():
        theirs.setdefault(v.get("group"), set()).add(item)
    notes = []
    for g, items in ours.items():
        th = next((v for k, v in theirs.items() if norm_name(k) == norm_name(g)), set())
        if th and items != th:
            notes.append(
                f"{md_cell(g)}: {len(items)} task(s) here, {len(th)} in the paper's Table 21, {len(items & th)} shared"
            )
    return "; ".join(notes) if notes else None


def _series_for_plot(summary: dict[str, Any]) -> list[tuple[str, dict, dict | None]]:
    groups = list((summary.get("groups") or {}).keys())
    g = summary["groups"]
    series = [
        (
            f"ours: {summary.get('planner')}",
            {k: pct(g[k].get("success_rate")) for k in groups},
            {k: pct(g[k].get("std")) for k in groups},
        )
    ]
    seen = set()
    for p in published_rows(summary.get("suite"), groups, "main"):
        if not _same_method(p, summary):
            continue
        vals = {k: v[0] for k, v in p["values"].items()}
        key = tuple(sorted((k, v) for k, v in vals.items() if v is not None))
        if key in seen:
            continue
        seen.add(key)
        series.append((f"{p['source']}: {p['method']}", vals, None))
    return series


def render_report(summary: dict[str, Any], *, png_name: str | None = GROUP_PNG) -> str:
    s = summary
    lines = [f"# deps eval: {md_cell(s.get('suite') or 'tasks')}, planner {s.get('planner')}", ""]
    lines.append(
        f"world `{s.get('world')}` (Minecraft {s.get('mc_version')}), llm `{s.get('llm')}`, selector "
        f"`{s.get('selector') or 'default'}`, controller `{s.get('controller') or 'default'}`, max rounds "
        f"{s.get('max_rounds')}, seed {s.get('seed')}; {s.get('episodes')} episode(s) per task, "
        f"{s.get('tasks')} task(s), {s.get('n')} episode(s) stored"
        + (f", **{s.get('missing')} missing** (rerun with `--resume`)" if s.get("missing") else "")
        + "."
    )
    lines.append("")
    tin, tout = s.get("tokens_in") or 0, s.get("tokens_out") or 0
    sr = s.get("success_rate")
    lines.append(
        f"Overall success {'–' if sr is None else fmt(pct(sr)) + '%'} over {s.get('n')} episodes; "
        f"tokens in {tin:,}, out {tout:,}; "
        f"tokens per success {fmt(s.get('tokens_per_success'), nd=0)}; episodes' wall time "
        f"{s.get('wall_s') or 0:.1f} s."
    )
    drivers = s.get("drivers") or {}
    if drivers:  # the learned controller says who drove each goal
        parts = [
            f"{who}: {len(goals)} (crafts, smelts, equips)"
            if who == "functional"
            else f"{who}: {', '.join(f'`{g}`' for g in goals)}"
            for who, goals in drivers.items()
        ]
        lines += ["", "Goals driven, over all episodes: " + "; ".join(parts) + "."]
    lines += [
        "",
        "## Success rate per group (%, like DEPS Table 2)",
        "",
        "Cells are `success % ± std`, the std taken over the group's tasks (per-task success rates, "
        "sample std, as in DEPS Table 2). AVG is the mean over all episodes.",
        "",
    ]
    lines.append(main_table(s))
    pubs = published_rows(s.get("suite"), list((s.get("groups") or {}).keys()), "main")
    if pubs:
        lines += [
            "",
            "Published rows are the papers' own numbers (evaluation/report/published.yaml), on their setups "
            "(MineDojo or MineRL with learned controllers, OpenAI LLMs, 30 episodes per task); "
            "they are shown for the shape of the results, not as a like-for-like baseline."
            + (" ◀ marks the method of this run." if any(_same_method(p, s) for p in pubs) else ""),
        ]
        note = _coverage_note(s)
        if note:
            lines += ["", f"Group composition differs from the paper's: {note}."]
    if png_name:
        lines += ["", f"![success per group]({png_name})"]
    table, _ = per_task_table(s)
    lines += ["", "## Per task (like DEPS Table 21)", "", table]
    errs = s.get("errors") or []
    if errs:
        lines += ["", f"## Episodes that raised ({len(errs)}; not stored, `--resume` retries them)", ""]
        lines += [f"- {md_cell(e['task_id'])} episode {e['episode']}: {md_cell(e['error'])}" for e in errs[:50]]
    lines.append("")
    return "\n".join(lines)


def write_report(out_dir: str | os.PathLike[str], summary: dict[str, Any]) -> Path:
    """Write DIR/report.md and DIR/success_by_group.png; returns the report's path."""
    out = Path(out_dir)
    groups = list((summary.get("groups") or {}).keys())
    png_ok = plot_groups(
        out / GROUP_PNG,
        groups,
        _series_for_plot(summary),
        f"{summary.get('suite') or ''}: success per group",
        counts=[{k: int(v.get("n") or 0) for k, v in (summary.get("groups") or {}).items()}],
    )
    path = out / REPORT_MD
    write_atomic(path, render_report(summary, png_name=GROUP_PNG if png_ok else None))
    return path


# ---------------------------------------------------------------------------------------------
# several runs: deps compare
# ---------------------------------------------------------------------------------------------
MAX_SUMMARY_BYTES = 64 * 2**20  # a summary.json or run.json that deps compare reads
MAX_GROUPS = 10_000  # groups in one summary (every suite has a handful)


def _read_run(d: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    p = Path(d)
    sp = p / "summary.json"
    if not sp.is_file():
        raise ReportError(f"{p} has no summary.json; give directories written by `deps eval --out DIR`")
    rp = p / "run.json"
    for f in (sp, rp):
        if f.is_file() and f.stat().st_size > MAX_SUMMARY_BYTES:
            raise ReportError(f"{f} is over {MAX_SUMMARY_BYTES // 2**20} MiB; accepted: one written by deps eval")
    try:
        summary = json.loads(sp.read_text(encoding="utf-8"))
        run = json.loads(rp.read_text(encoding="utf-8")) if rp.is_file() else {}
    except (ValueError, RecursionError) as exc:
        raise ReportError(f"{sp} is not valid JSON ({' '.join(str(exc).split())[:120]})") from None
    if not isinstance(summary, dict) or not isinstance(summary.get("groups"), dict):
        raise ReportError(f"{sp} is not a `deps eval` summary (a sweep? compare its sub-directories)")
    if not isinstance(run, dict):
        run = {}
    if len(summary["groups"]) > MAX_GROUPS:
        raise ReportError(f"{sp} has {len(summary['groups'])} groups; accepted: at most {MAX_GROUPS}")
    if any(not isinstance(g, dict) for g in summary["groups"].values()):
        raise ReportError(f"{sp}: its groups are not objects; accepted: a summary written by deps eval")
    return summary, run


def run_labels(summaries: Sequence[dict[str, Any]], runs: Sequence[dict[str, Any]], dirs: Sequence[str]) -> list[str]:
    """Label runs by what differs between them (planner=dep, max_rounds=3...), else by dir name."""
    settings = [dict((r.get("identity") or {}).get("settings") or r.get("settings") or {}) for r in runs]
    for s, sm in zip(settings, summaries):
        for k in ("planner", "world", "llm", "selector", "max_rounds", "seed"):
            s.setdefault(k, sm.get(k))
        s["suite"] = sm.get("suite")
    keys = sorted({k for s in settings for k in s})
    diff = [k for k in keys if len({json.dumps(s.get(k), sort_keys=True, default=str) for s in settings}) > 1]
    order = ["planner", "selector", "llm", "max_rounds", "world", "controller"]
    diff.sort(key=lambda k: (order.index(k) if k in order else len(order), k))
    labels = []
    for s, d in zip(settings, dirs):
        if diff:
            labels.append(", ".join(f"{k}={s.get(k)}" for k in diff if k != "trace_dir") or Path(d).name)
        else:
            labels.append(Path(d).name or str(d))
    if len(set(labels)) < len(labels):
        labels = [f"{label} [{Path(d).name}]" for label, d in zip(labels, dirs)]
    return labels


def compare(
    dirs: Sequence[str | os.PathLike[str]],
    png_path: str | os.PathLike[str] | None = None,
    *,
    png_link: str | None = None,
) -> str:
    """One markdown table of several run dirs side by side (all planners), plus published rows
    of the same suite for the planners shown; writes a grouped-bar PNG when png_path is given."""
    if not dirs:
        raise ReportError("give at least one run directory")
    loaded = [_read_run(d) for d in dirs]
    summaries = [s for s, _ in loaded]
    labels = run_labels(summaries, [r for _, r in loaded], [str(d) for d in dirs])
    groups = list(dict.fromkeys(g for s in summaries for g in s["groups"]))
    header = ["Run"] + groups + ["AVG", "n", "tokens/success"]
    rows = []
    for lab, s in zip(labels, summaries):
        g = s["groups"]
        rows.append(
            [f"**{lab}**"]
            + [fmt(pct(g[k]["success_rate"]), pct(g[k].get("std"))) if k in g else "–" for k in groups]
            + [fmt(pct(s.get("success_rate"))), str(s.get("n")), fmt(s.get("tokens_per_success"), nd=0)]
        )
    suites = {suite_name(s.get("suite")) for s in summaries}
    planners = {s.get("planner") for s in summaries}
    pub_rows = []
    if len(suites) == 1:
        for p in published_rows(summaries[0].get("suite"), groups, "main"):
            if p["planner"] in planners:
                pub_rows.append(p)
                rows.append(
                    [f"{p['label']}: {p['method']}"]
                    + [fmt_pub(*p["values"].get(k, (None, None))) for k in groups]
                    + [fmt_pub(p["avg"]) if p["avg"] is not None and p["all_groups"] else "–", "–", "–"]
                )
    md = [
        "## Comparison" + (f": {next(iter(suites))}" if len(suites) == 1 else ""),
        "",
        "Cells are `success % ± std over tasks`; AVG is the mean over all episodes.",
        "",
        md_table(header, rows),
    ]
    if len(suites) > 1:
        md += [
            "",
            f"Note: these runs are of different suites ({', '.join(sorted(suites))}); groups are compared by name.",
        ]
    if png_path is not None:
        series = [
            (lab, {k: pct(s["groups"][k]["success_rate"]) if k in s["groups"] else None for k in groups}, None)
            for lab, s in zip(labels, summaries)
        ]
        counts = [{k: int(s["groups"][k].get("n") or 0) for k in groups if k in s["groups"]} for s in summaries]
        if plot_groups(png_path, groups, series, "success per group", counts=counts):
            md += ["", f"![comparison]({png_link or Path(png_path).name})"]
    md.append("")
    return "\n".join(md)


def compare_data(dirs: Sequence[str | os.PathLike[str]]) -> dict[str, Any]:
    """The comparison as JSON-friendly data: {runs: [{dir, label, suite, planner, success_rate, groups}]}."""
    loaded = [_read_run(d) for d in dirs]
    summaries = [s for s, _ in loaded]
    labels = run_labels(summaries, [r for _, r in loaded], [str(d) for d in dirs])
    return {
        "runs": [
            {
                "dir": str(d),
                "label": lab,
                "suite": s.get("suite"),
                "planner": s.get("planner"),
                "world": s.get("world"),
                "llm": s.get("llm"),
                "success_rate": s.get("success_rate"),
                "n": s.get("n"),
                "groups": {
                    g: {"success_rate": v.get("success_rate"), "std": v.get("std"), "n": v.get("n")}
                    for g, v in s["groups"].items()
                },
            }
            for d, lab, s in zip(dirs, labels, summaries)
        ]
    }


# ---------------------------------------------------------------------------------------------
# sweeps
# ---------------------------------------------------------------------------------------------
def sweep_table(param: str, runs: Sequence[tuple[str, dict[str, Any]]]) -> str:
    groups: list[str] = []
    for _, s in runs:
        for g in s.get("groups") or {}:
            if g not in groups:
                groups.append(g)
    header = [param.replace("_", "-")] + groups + ["AVG", "n", "tokens/success"]
    rows = []
    for v, s in runs:
        g = s.get("groups") or {}
        rows.append(
            [f"**{v}**"]
            + [fmt(pct(g[k]["success_rate"]), pct(g[k].get("std"))) if k in g else "–" for k in groups]
            + [fmt(pct(s.get("success_rate"))), str(s.get("n")), fmt(s.get("tokens_per_success"), nd=0)]
        )
    return md_table(header, rows)


def _rounds_table(suite: str | None, groups: Sequence[str]) -> tuple[dict | None, str | None]:
    for t in load_published():
        if t.get("use") == "rounds" and suite_matches(t, suite):
            gmap = group_map(t, groups)
            if not gmap:
                continue
            vals = [str(v) for v in t["values"]]
            header = ["max rounds"] + list(gmap.keys())
            rows = []
            for i, v in enumerate(vals):
                rows.append([v] + [fmt_pub(t["groups"][pg][i]) for pg in gmap.values()])
            return t, f"{t.get('label')}\n\n" + md_table(header, rows)
    return None, None


def render_sweep(param: str, runs: Sequence[tuple[str, dict[str, Any]]], png_name: str | None) -> str:
    first = runs[0][1] if runs else {}
    suite = first.get("suite")
    groups = list(first.get("groups") or {})
    lines = [
        f"# deps eval sweep over {param.replace('_', '-')}: {suite or ''}",
        "",
        f"planner `{first.get('planner')}`, world `{first.get('world')}`, llm `{first.get('llm')}`; "
        f"{first.get('episodes')} episode(s) per task; each value's run is in `"
        f"{param.replace('_', '-')}=VALUE/` (its own report.md, summary.json, episodes.jsonl).",
        "",
        "## Success rate (%) per value",
        "",
        sweep_table(param, runs),
    ]
    if param == "max_rounds":
        _, pub = _rounds_table(suite, groups)
        if pub:
            lines += [
                "",
                "### Published: success vs. re-planning rounds",
                "",
                pub,
                "",
                "(Round 0 is the vanilla planner; ∞ re-plans until success or the horizon, bounded by "
                "the LLM's token limit, about 7-8 rounds for Codex. Ours: `inf` = no round limit, "
                "the token budget still applies.)",
            ]
    if param == "llm":
        pubs = published_rows(suite, groups, "llm")
        if pubs:
            header = ["Method"] + groups
            rows = [
                [f"{p['label']}: {p['method']}"] + [fmt_pub(*p["values"].get(k, (None, None))) for k in groups]
                for p in pubs
            ]
            lines += ["", "### Published: per LLM", "", md_table(header, rows)]
    if png_name:
        lines += ["", f"![success vs {param}]({png_name})"]
    lines.append("")
    return "\n".join(lines)


def write_sweep_report(out_dir: str | os.PathLike[str], param: str, runs: Sequence[tuple[str, dict[str, Any]]]) -> Path:
    """DIR/report.md (combined table: success vs. value) and DIR/sweep.png."""
    out = Path(out_dir)
    first = runs[0][1] if runs else {}
    groups = list(first.get("groups") or {})
    xlabels = [v for v, _ in runs]
    ours: dict[str, list[float | None]] = {}
    for g in groups:
        ours[g] = [pct(((s.get("groups") or {}).get(g) or {}).get("success_rate")) for _, s in runs]
    ours["AVG"] = [pct(s.get("success_rate")) for _, s in runs]
    panels = [("ours", ours)]
    if param == "max_rounds":
        t, _ = _rounds_table(first.get("suite"), groups)
        if t is not None:
            gmap = group_map(t, groups)
            pv = [str(v) for v in t["values"]]
            pub_series = {}
            for g, pg in gmap.items():
                by_v = dict(zip(pv, t["groups"][pg]))
                pub_series[g] = [by_v.get(x) for x in xlabels]
            if any(y is not None for ys in pub_series.values() for y in ys):
                panels.append((t.get("label") or "published", pub_series))
    png_ok = plot_lines(out / SWEEP_PNG, xlabels, panels, param.replace("_", "-"))
    path = out / REPORT_MD
    write_atomic(path, render_sweep(param, runs, SWEEP_PNG if png_ok else None))
    return path
