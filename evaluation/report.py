"""Reports of `deps eval`: DIR/report.md shaped like DEPS Table 2 (main table) and Table 21
(per-task rows), a PNG of success per group, the papers' published figures beside ours
where the suite and groups match (evaluation/published.yaml), comparisons of several run
dirs (`deps compare`), and sweep tables (success vs. max rounds, LLM, selector...).

Summaries hold fractions in [0, 1]; everything shown here is in percent.
"""
from __future__ import annotations

import functools
import json
import math
import os
import re
from pathlib import Path
from typing import Any, Iterable, Sequence

PUBLISHED_PATH = Path(__file__).with_name("published.yaml")
REPORT_MD = "report.md"
GROUP_PNG = "success_by_group.png"
COMPARE_PNG = "compare.png"
SWEEP_PNG = "sweep.png"


class ReportError(ValueError):
    """A report could not be built; the message is one line."""


# ---------------------------------------------------------------------------------------------
# published figures
# ---------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4)
def _load_published_cached(path: str) -> tuple[dict[str, Any], ...]:
    import yaml

    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    return tuple(data.get("tables") or ())


def load_published(path: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """The tables of evaluation/published.yaml (percent)."""
    return list(_load_published_cached(str(path or PUBLISHED_PATH)))


def _norm(name: Any) -> str:
    s = re.sub(r"[^a-z0-9]", "", str(name or "").lower())
    return s[:-5] if s.endswith("based") and len(s) > 5 else s


def suite_name(suite: str | None) -> str:
    """A suite's short name: 'deps71' for 'deps71' or '.../suites/deps71.yaml'."""
    if not suite:
        return ""
    base = os.path.basename(str(suite))
    for ext in (".yaml", ".yml", ".json"):
        if base.lower().endswith(ext):
            base = base[: -len(ext)]
    return base


def suite_matches(table: dict[str, Any], suite: str | None) -> bool:
    return bool(suite) and _norm(suite_name(suite)) == _norm(table.get("suite"))


def _their_groups(table: dict[str, Any]) -> list[str]:
    g = table.get("groups") or []
    return list(g.keys()) if isinstance(g, dict) else list(g)


def _group_map(table: dict[str, Any], our_groups: Iterable[str]) -> dict[str, str]:
    """our group -> the table's group, for the groups both have."""
    theirs = _their_groups(table)
    aliases = table.get("group_aliases") or {}
    lookup: dict[str, str] = {}
    for g in theirs:
        lookup[_norm(g)] = g
        for a in aliases.get(g, []) or []:
            lookup[_norm(a)] = g
    return {g: lookup[_norm(g)] for g in our_groups if _norm(g) in lookup}


def _cell(v: Any) -> tuple[float | None, float | None]:
    if v is None:
        return None, None
    if isinstance(v, (list, tuple)):
        return float(v[0]), (float(v[1]) if len(v) > 1 and v[1] is not None else None)
    return float(v), None


def published_rows(suite: str | None, groups: Sequence[str], use: str = "main",
                   tables: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Published rows for our suite: [{label, method, planner, values: {our group: (mean, std)}, avg}],
    only from tables of the same suite and only the groups both have."""
    out = []
    for t in tables if tables is not None else load_published():
        if t.get("use") != use or not suite_matches(t, suite) or "rows" not in t:
            continue
        gmap = _group_map(t, groups)
        if not gmap:
            continue
        for r in t["rows"]:
            vals = {g: _cell((r.get("values") or {}).get(pg)) for g, pg in gmap.items()}
            out.append({
                "label": t.get("label") or f"published ({t.get('source')})",
                "source": t.get("source"),
                "method": r.get("method"),
                "planner": r.get("planner", t.get("planner")),
                "llm": r.get("llm"),
                "world": r.get("world"),
                "values": vals,
                "avg": r.get("avg"),
                # the table's AVG only stands beside ours when both cover the same groups
                "all_groups": (len(set(gmap.values())) == len(_their_groups(t))
                               and len(gmap) == len(set(groups))),
            })
    return out


# ---------------------------------------------------------------------------------------------
# formatting
# ---------------------------------------------------------------------------------------------
def _pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * float(x)


def fmt(mean: float | None, std: float | None = None, nd: int = 1) -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "–"
    s = f"{mean:.{nd}f}"
    if std is not None:
        s += f" ± {std:.{nd}f}"
    return s


def _num(x: float) -> str:
    return f"{x:.1f}" if abs(round(x, 1) - x) < 1e-9 else f"{x:.2f}"


def fmt_pub(mean: float | None, std: float | None = None) -> str:
    """Published numbers as printed (1 or 2 decimals)."""
    if mean is None:
        return "–"
    s = _num(float(mean))
    if std is not None:
        s += f" ± {_num(float(std))}"
    return s


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]], align_first_left: bool = True) -> str:
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join([":---" if (i == 0 and align_first_left) else "---:" for i in range(len(header))]) + " |"]
    for r in rows:
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    return "\n".join(lines)


def run_label(summary: dict[str, Any]) -> str:
    bits = [summary.get("world"), summary.get("llm")]
    sel = summary.get("selector")
    if sel:
        bits.append(f"selector {sel}")
    return f"{summary.get('planner')} ({', '.join(str(b) for b in bits if b)})"


# ---------------------------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------------------------
def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:  # noqa: BLE001 - no plot, the markdown still stands
        return None
    return plt


def plot_groups(path: str | os.PathLike[str], groups: Sequence[str],
                series: Sequence[tuple[str, dict[str, float | None], dict[str, float | None] | None]],
                title: str) -> bool:
    """Grouped bars: success % per group, one bar per series (label, {group: pct}, {group: std})."""
    plt = _pyplot()
    if plt is None or not groups or not series:
        return False
    import numpy as np

    x = np.arange(len(groups))
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(groups) * max(1, len(series)) ** 0.5 + 2), 4.2))
    for i, (label, vals, stds) in enumerate(series):
        ys = [vals.get(g) if vals.get(g) is not None else np.nan for g in groups]
        errs = None
        if stds:
            errs = [stds.get(g) if stds.get(g) is not None else 0.0 for g in groups]
        ax.bar(x - 0.4 + width * (i + 0.5), ys, width, label=label, yerr=errs, capsize=2 if errs else 0)
    ax.set_xticks(x)
    ax.set_xticklabels(groups, rotation=30 if len(groups) > 8 else 0, ha="right" if len(groups) > 8 else "center")
    ax.set_ylabel("success rate (%)")
    ax.set_ylim(0, 105)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_lines(path: str | os.PathLike[str], xlabels: Sequence[str],
               panels: Sequence[tuple[str, dict[str, Sequence[float | None]]]], xname: str) -> bool:
    """Success % vs. a swept value; one panel per (title, {series: [y per x]})."""
    plt = _pyplot()
    if plt is None or not xlabels or not panels:
        return False
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), squeeze=False, sharey=True)
    for ax, (title, series) in zip(axes[0], panels):
        for name, ys in series.items():
            pts = [(i, y) for i, y in enumerate(ys) if y is not None]
            if not pts:
                continue
            style = dict(lw=2.5, color="black") if name == "AVG" else dict(lw=1.2)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name, **style)
        ax.set_xticks(range(len(xlabels)))
        ax.set_xticklabels(["∞" if str(v) == "inf" else str(v) for v in xlabels])
        ax.set_xlabel(xname)
        ax.set_ylim(0, 105)
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("success rate (%)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


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
    ours += [fmt(_pct(g[k].get("success_rate")), _pct(g[k].get("std"))) for k in groups]
    ours.append(fmt(_pct(summary.get("success_rate"))))
    rows = [ours]
    if published:
        for p in published_rows(summary.get("suite"), groups, "main"):
            mark = " ◀" if _same_method(p, summary) else ""
            rows.append([f"{p['label']}: {p['method']}{mark}"]
                        + [fmt_pub(*p["values"].get(k, (None, None))) for k in groups]
                        + [fmt_pub(p["avg"]) if p["avg"] is not None and p["all_groups"] else "–"])
    return _md_table(header, rows)


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
        row = [t.get("group"), tid, ", ".join(f"{k} ×{v}" for k, v in target.items()) or "–", t.get("n"),
               fmt(_pct(t.get("success_rate"))),
               "–" if t.get("tokens_per_success") is None else f"{t['tokens_per_success']:.0f}",
               "–" if t.get("mean_rounds") is None else f"{t['mean_rounds']:.2f}"]
        if pub_name:
            p = pub.get(item) if item else None
            ok = p is not None and _norm(p.get("group")) == _norm(t.get("group"))
            row.append(fmt_pub(p["value"]) if ok and p.get("value") is not None else "–")
        rows.append(row)
    return _md_table(header, rows), pub_name


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
        th = next((v for k, v in theirs.items() if _norm(k) == _norm(g)), set())
        if th and items != th:
            notes.append(f"{g}: {len(items)} task(s) here, {len(th)} in the paper's Table 21, {len(items & th)} shared")
    return "; ".join(notes) if notes else None


def _series_for_plot(summary: dict[str, Any]) -> list[tuple[str, dict, dict | None]]:
    groups = list((summary.get("groups") or {}).keys())
    g = summary["groups"]
    series = [(f"ours: {summary.get('planner')}",
               {k: _pct(g[k].get("success_rate")) for k in groups},
               {k: _pct(g[k].get("std")) for k in groups})]
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
    lines = [f"# deps eval: {s.get('suite') or 'tasks'}, planner {s.get('planner')}", ""]
    lines.append(
        f"world `{s.get('world')}` (Minecraft {s.get('mc_version')}), llm `{s.get('llm')}`, selector "
        f"`{s.get('selector') or 'default'}`, controller `{s.get('controller') or 'default'}`, max rounds "
        f"{s.get('max_rounds')}, seed {s.get('seed')}; {s.get('episodes')} episode(s) per task, "
        f"{s.get('tasks')} task(s), {s.get('n')} episode(s) stored"
        + (f", **{s.get('missing')} missing** (rerun with `--resume`)" if s.get("missing") else "") + "."
    )
    lines.append("")
    tin, tout = s.get("tokens_in") or 0, s.get("tokens_out") or 0
    sr = s.get("success_rate")
    lines.append(f"Overall success {'–' if sr is None else fmt(_pct(sr)) + '%'} over {s.get('n')} episodes; "
                 f"tokens in {tin:,}, out {tout:,}; "
                 f"tokens per success {fmt(s.get('tokens_per_success'), nd=0)}; episodes' wall time "
                 f"{s.get('wall_s') or 0:.1f} s.")
    lines += ["", "## Success rate per group (%, like DEPS Table 2)", "",
              "Cells are `success % ± std`, the std taken over the group's tasks (per-task success rates, "
              "sample std, as in DEPS Table 2). AVG is the mean over all episodes.", ""]
    lines.append(main_table(s))
    pubs = published_rows(s.get("suite"), list((s.get("groups") or {}).keys()), "main")
    if pubs:
        lines += ["", "Published rows are the papers' own numbers (evaluation/published.yaml), on their setups "
                  "(MineDojo or MineRL with learned controllers, OpenAI LLMs, 30 episodes per task); "
                  "they are shown for the shape of the results, not as a like-for-like baseline."
                  + (" ◀ marks the method of this run." if any(_same_method(p, s) for p in pubs) else "")]
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
        lines += [f"- {e['task_id']} episode {e['episode']}: {e['error']}" for e in errs[:50]]
    lines.append("")
    return "\n".join(lines)


def write_report(out_dir: str | os.PathLike[str], summary: dict[str, Any]) -> Path:
    """Write DIR/report.md and DIR/success_by_group.png; returns the report's path."""
    out = Path(out_dir)
    groups = list((summary.get("groups") or {}).keys())
    png_ok = plot_groups(out / GROUP_PNG, groups, _series_for_plot(summary),
                         f"{summary.get('suite') or ''}: success per group")
    path = out / REPORT_MD
    path.write_text(render_report(summary, png_name=GROUP_PNG if png_ok else None), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# several runs: deps compare
# ---------------------------------------------------------------------------------------------
def _read_run(d: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    p = Path(d)
    sp = p / "summary.json"
    if not sp.is_file():
        raise ReportError(f"{p} has no summary.json; give directories written by `deps eval --out DIR`")
    try:
        summary = json.loads(sp.read_text(encoding="utf-8"))
        run = json.loads((p / "run.json").read_text(encoding="utf-8")) if (p / "run.json").is_file() else {}
    except ValueError as exc:
        raise ReportError(f"{sp} is not valid JSON ({exc})") from None
    if "groups" not in summary:
        raise ReportError(f"{sp} is not a `deps eval` summary (a sweep? compare its sub-directories)")
    return summary, run


def run_labels(summaries: Sequence[dict[str, Any]], runs: Sequence[dict[str, Any]],
               dirs: Sequence[str]) -> list[str]:
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
        labels = [f"{l} [{Path(d).name}]" for l, d in zip(labels, dirs)]
    return labels


def compare(dirs: Sequence[str | os.PathLike[str]], png_path: str | os.PathLike[str] | None = None,
            *, png_link: str | None = None) -> str:
    """One markdown table of several run dirs side by side (all planners), plus published rows
    of the same suite for the planners shown; writes a grouped-bar PNG when png_path is given."""
    if not dirs:
        raise ReportError("give at least one run directory")
    loaded = [_read_run(d) for d in dirs]
    summaries = [s for s, _ in loaded]
    labels = run_labels(summaries, [r for _, r in loaded], [str(d) for d in dirs])
    groups: list[str] = []
    for s in summaries:
        for g in s["groups"]:
            if g not in groups:
                groups.append(g)
    header = ["Run"] + groups + ["AVG", "n", "tokens/success"]
    rows = []
    for lab, s in zip(labels, summaries):
        g = s["groups"]
        rows.append([f"**{lab}**"]
                    + [fmt(_pct(g[k]["success_rate"]), _pct(g[k].get("std"))) if k in g else "–" for k in groups]
                    + [fmt(_pct(s.get("success_rate"))), str(s.get("n")),
                       fmt(s.get("tokens_per_success"), nd=0)])
    suites = {suite_name(s.get("suite")) for s in summaries}
    planners = {s.get("planner") for s in summaries}
    pub_rows = []
    if len(suites) == 1:
        for p in published_rows(summaries[0].get("suite"), groups, "main"):
            if p["planner"] in planners:
                pub_rows.append(p)
                rows.append([f"{p['label']}: {p['method']}"]
                            + [fmt_pub(*p["values"].get(k, (None, None))) for k in groups]
                            + [fmt_pub(p["avg"]) if p["avg"] is not None and p["all_groups"] else "–", "–", "–"])
    md = ["## Comparison" + (f": {next(iter(suites))}" if len(suites) == 1 else ""), "",
          "Cells are `success % ± std over tasks`; AVG is the mean over all episodes.", "",
          _md_table(header, rows)]
    if len(suites) > 1:
        md += ["", f"Note: these runs are of different suites ({', '.join(sorted(suites))}); "
                   "groups are compared by name."]
    if png_path is not None:
        series = [(lab, {k: _pct(s["groups"][k]["success_rate"]) if k in s["groups"] else None for k in groups},
                   None) for lab, s in zip(labels, summaries)]
        if plot_groups(png_path, groups, series, "success per group"):
            md += ["", f"![comparison]({png_link or Path(png_path).name})"]
    md.append("")
    return "\n".join(md)


def compare_data(dirs: Sequence[str | os.PathLike[str]]) -> dict[str, Any]:
    """The comparison as JSON-friendly data: {runs: [{dir, label, suite, planner, success_rate, groups}]}."""
    loaded = [_read_run(d) for d in dirs]
    summaries = [s for s, _ in loaded]
    labels = run_labels(summaries, [r for _, r in loaded], [str(d) for d in dirs])
    return {"runs": [{"dir": str(d), "label": lab, "suite": s.get("suite"), "planner": s.get("planner"),
                      "world": s.get("world"), "llm": s.get("llm"), "success_rate": s.get("success_rate"),
                      "n": s.get("n"),
                      "groups": {g: {"success_rate": v.get("success_rate"), "std": v.get("std"), "n": v.get("n")}
                                 for g, v in s["groups"].items()}}
                     for d, lab, s in zip(dirs, labels, summaries)]}


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
        rows.append([f"**{v}**"]
                    + [fmt(_pct(g[k]["success_rate"]), _pct(g[k].get("std"))) if k in g else "–" for k in groups]
                    + [fmt(_pct(s.get("success_rate"))), str(s.get("n")), fmt(s.get("tokens_per_success"), nd=0)])
    return _md_table(header, rows)


def _rounds_table(suite: str | None, groups: Sequence[str]) -> tuple[dict | None, str | None]:
    for t in load_published():
        if t.get("use") == "rounds" and suite_matches(t, suite):
            gmap = _group_map(t, groups)
            if not gmap:
                continue
            vals = [str(v) for v in t["values"]]
            header = ["max rounds"] + list(gmap.keys())
            rows = []
            for i, v in enumerate(vals):
                rows.append([v] + [fmt_pub(t["groups"][pg][i]) for pg in gmap.values()])
            return t, f"{t.get('label')}\n\n" + _md_table(header, rows)
    return None, None


def render_sweep(param: str, runs: Sequence[tuple[str, dict[str, Any]]], png_name: str | None) -> str:
    first = runs[0][1] if runs else {}
    suite = first.get("suite")
    groups = list(first.get("groups") or {})
    lines = [f"# deps eval sweep over {param.replace('_', '-')}: {suite or ''}", "",
             f"planner `{first.get('planner')}`, world `{first.get('world')}`, llm `{first.get('llm')}`; "
             f"{first.get('episodes')} episode(s) per task; each value's run is in `"
             f"{param.replace('_', '-')}=VALUE/` (its own report.md, summary.json, episodes.jsonl).", "",
             "## Success rate (%) per value", "", sweep_table(param, runs)]
    if param == "max_rounds":
        _, pub = _rounds_table(suite, groups)
        if pub:
            lines += ["", "### Published: success vs. re-planning rounds", "", pub, "",
                      "(Round 0 is the vanilla planner; ∞ re-plans until success or the horizon, bounded by "
                      "the LLM's token limit, about 7-8 rounds for Codex. Ours: `inf` = no round limit, "
                      "the token budget still applies.)"]
    if param == "llm":
        pubs = published_rows(suite, groups, "llm")
        if pubs:
            header = ["Method"] + groups
            rows = [[f"{p['label']}: {p['method']}"] + [fmt_pub(*p["values"].get(k, (None, None))) for k in groups]
                    for p in pubs]
            lines += ["", "### Published: per LLM", "", _md_table(header, rows)]
    if png_name:
        lines += ["", f"![success vs {param}]({png_name})"]
    lines.append("")
    return "\n".join(lines)


def write_sweep_report(out_dir: str | os.PathLike[str], param: str,
                       runs: Sequence[tuple[str, dict[str, Any]]]) -> Path:
    """DIR/report.md (combined table: success vs. value) and DIR/sweep.png."""
    out = Path(out_dir)
    first = runs[0][1] if runs else {}
    groups = list(first.get("groups") or {})
    xlabels = [v for v, _ in runs]
    ours: dict[str, list[float | None]] = {}
    for g in groups:
        ours[g] = [_pct(((s.get("groups") or {}).get(g) or {}).get("success_rate")) for _, s in runs]
    ours["AVG"] = [_pct(s.get("success_rate")) for _, s in runs]
    panels = [("ours", ours)]
    if param == "max_rounds":
        t, _ = _rounds_table(first.get("suite"), groups)
        if t is not None:
            gmap = _group_map(t, groups)
            pv = [str(v) for v in t["values"]]
            pub_series = {}
            for g, pg in gmap.items():
                by_v = dict(zip(pv, t["groups"][pg]))
                pub_series[g] = [by_v.get(x) for x in xlabels]
            if any(y is not None for ys in pub_series.values() for y in ys):
                panels.append((t.get("label") or "published", pub_series))
    png_ok = plot_lines(out / SWEEP_PNG, xlabels, panels, param.replace("_", "-"))
    path = out / REPORT_MD
    path.write_text(render_sweep(param, runs, SWEEP_PNG if png_ok else None), encoding="utf-8")
    return path
