"""Looking at an episode: `deps trace show DIR` (a timeline in the terminal) and
`deps trace html DIR -o FILE` (one self-contained page: the plans side by side with their
diffs, each description and explanation, the inventory over time, every LLM call with its
prompt and tokens). Both read the trace a run wrote with --trace-dir (agent/trace.py)."""

from __future__ import annotations

import difflib
import html
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.trace import read_trace, threads
from nodes.enough import outcome_state


class TraceError(ValueError):
    """No such trace or run; one line."""


@dataclass
class Run:
    thread: str
    start: dict
    end: dict | None = None
    steps: list[dict] = field(default_factory=list)  # {t, node, update}
    llm: list[dict] = field(default_factory=list)  # {t, prompt, reply, tokens_in, tokens_out, seconds}

    def plans(self) -> list[str]:
        return self.texts("plan", "plans")

    def texts(self, node: str, key: str) -> list[str]:
        return [
            str(x)
            for s in self.steps
            if s["node"] == node
            for x in (s["update"].get(key) if isinstance(s["update"].get(key), list) else [])
        ]

    def inventories(self) -> list[tuple[int, dict[str, int]]]:
        """(env steps, inventory) after every executed goal."""
        out = []
        for s in self.steps:
            if s["node"] == "execute":
                inv = s["update"].get("inventory")
                out.append(
                    (
                        int(_num(s["update"].get("env_steps"))),
                        {str(k): int(_num(n)) for k, n in inv.items()} if isinstance(inv, dict) else {},
                    )
                )
        return out

    def replans(self) -> list[int]:
        """The env step at which each re-plan (every plan after the first) was written."""
        at, plans, marks = 0, 0, []
        for s in self.steps:
            if s["node"] == "execute":
                at = int(_num(s["update"].get("env_steps", at)))
            elif s["node"] == "plan":
                plans += 1
                if plans > 1:
                    marks.append(at)
        return marks


def load_run(trace_dir: str | Path, thread: str | None = None) -> Run:
    known = threads(trace_dir)
    if not known:
        raise TraceError(f"no trace in {trace_dir}; accepted: a folder written by deps run --trace-dir")
    thread = thread or known[-1]
    if thread not in known:
        raise TraceError(f"no run {thread!r} in {trace_dir}; accepted: {', '.join(known)}")
    run: Run | None = None
    for line in read_trace(trace_dir):
        if line.get("thread") != thread:
            continue
        event = line.get("event")
        if event == "start" and run is None:
            run = Run(
                thread, {k: v if isinstance(v, dict) or k not in ("task", "settings") else {} for k, v in line.items()}
            )
        elif (
            run is not None
            and event == "update"
            and isinstance(line.get("node"), str)
            and isinstance(line.get("update"), dict)
        ):
            run.steps.append({**line, "t": _num(line.get("t"))})
        elif run is not None and event == "llm":
            prompt = line.get("prompt") if isinstance(line.get("prompt"), list) else []
            run.llm.append(
                {
                    **line,
                    "prompt": [m for m in prompt if isinstance(m, dict)],
                    **{k: _num(line.get(k)) for k in ("tokens_in", "tokens_out", "seconds")},
                }
            )
        elif run is not None and event == "end" and isinstance(line.get("result"), dict):
            run.end = line["result"]
    if run is None:
        raise TraceError(
            f"no start of run {thread!r} in {trace_dir}; accepted: a folder written by deps run --trace-dir"
        )
    return run


def _num(value: Any) -> float | int:
    """A number read from a trace, as a finite int or float (anything else, a string included, is 0)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    return value


# --------------------------------------------------------------------------- terminal
def _one(update: dict, node: str) -> str:
    """One node's update in a line or a few (a trace written by another program: its JSON)."""
    try:
        return _one_line(update, node)
    except (KeyError, IndexError, TypeError, AttributeError, ValueError):
        return json.dumps(update, default=str)[:2000]


def _one_line(update: dict, node: str) -> str:
    if node == "plan":
        plan = update["plans"][0]
        return f"{sum(1 for x in plan.splitlines() if x.strip())} goal line(s)\n" + plan
    if node == "parse":
        notes = update.get("parse_notes") or []
        return f"{len(update.get('goals', []))} goal(s)" + ("; " + "; ".join(notes) if notes else "")
    if node == "select":
        sel = update.get("selection") or {}
        cur = update.get("current")
        return f"goal {cur + 1 if cur is not None else '-'} ({sel.get('rule', '')}; candidates {sel.get('candidates')})"
    if node == "execute":
        o = update["outcomes"][0]
        what = "the plan" if o["goal"] is None else f"step {o['step'] + 1}"
        return f"{what}: {outcome_state(o)} (+{o['steps']} steps, {update.get('env_steps')} total)"
    if node == "describe":
        return update["descriptions"][0]
    if node == "explain":
        return update["explanations"][0]
    return json.dumps(update, default=str)[:200]


def show(run: Run, console: Any = None) -> None:
    """The run as a timeline on the terminal (rich)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    def m(value: Any) -> str:  # a trace's text is data: never markup
        return escape(str(value))

    console = console or Console()
    task = run.start.get("task", {})
    settings = run.start.get("settings", {})
    console.print(
        f"[bold]{m(task.get('id'))}[/bold]: {m(task.get('instruction'))}  "
        f"planner {m(settings.get('planner'))}, world {m(settings.get('world'))}, "
        f"llm {m(settings.get('llm'))}, thread {m(run.thread)}"
    )
    table = Table(show_lines=False, header_style="bold")
    for col in ("step", "t (s)", "node", "what happened"):
        table.add_column(col, overflow="fold")
    colours = {"plan": "cyan", "execute": "green", "describe": "yellow", "explain": "magenta"}
    for i, s in enumerate(run.steps):
        text = _one(s["update"], s["node"])
        if s["node"] == "execute" and "FAILED" in text:
            colours_node = "red"
        else:
            colours_node = colours.get(s["node"], "white")
        table.add_row(str(i), f"{s['t']:.2f}", f"[{colours_node}]{m(s['node'])}[/]", m(text))
    console.print(table)
    if run.llm:
        tin = sum(c.get("tokens_in", 0) for c in run.llm)
        tout = sum(c.get("tokens_out", 0) for c in run.llm)
        console.print(
            f"{len(run.llm)} LLM call(s), {tin}+{tout} tokens, "
            f"{sum(c.get('seconds', 0) for c in run.llm):.1f} s waiting"
        )
    if run.end:
        verdict = (
            "[green]SUCCESS[/]" if run.end.get("success") else f"[red]FAILED[/] ({m(run.end.get('failure_reason'))})"
        )
        console.print(
            f"{verdict}: {m(run.end.get('env_steps'))} env steps, {m(run.end.get('rounds'))} re-plan round(s)"
        )
    else:
        console.print(
            "[yellow]no end recorded: the run was stopped or is still going "
            f"(deps run --resume {m(run.thread)} --trace-dir ... continues it)[/]"
        )


# --------------------------------------------------------------------------- html
_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:20px} h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ddd}
pre{background:#f6f6f8;padding:8px;overflow-x:auto;white-space:pre-wrap;margin:4px 0}
.plans{display:flex;gap:12px;overflow-x:auto} .plan{flex:0 0 420px;border:1px solid #ddd;padding:8px;border-radius:6px}
.ok{color:#176f2c} .bad{color:#b00020} .muted{color:#777}
table{border-collapse:collapse} td,th{border:1px solid #ddd;padding:4px 8px;vertical-align:top;text-align:left}
ins{background:#dfd;text-decoration:none} del{background:#fdd}
details{margin:4px 0} summary{cursor:pointer}
"""


def _e(text: Any) -> str:
    return html.escape(str(text))


def _diff(old: str, new: str) -> str:
    """A line diff of two plans: removed lines struck, added lines marked."""
    out = []
    for line in difflib.ndiff(old.splitlines(), new.splitlines()):
        tag, body = line[:2], _e(line[2:])
        if tag == "- ":
            out.append(f"<del>- {body}</del>")
        elif tag == "+ ":
            out.append(f"<ins>+ {body}</ins>")
        elif tag == "  ":
            out.append(f"  {body}")
    return "\n".join(out)


def _inventory_svg(
    points: list[tuple[int, dict[str, int]]],
    replans: tuple[int, ...] | list[int] = (),
    start: dict[str, int] | None = None,
    top: int = 8,
) -> str:
    """Item counts against env steps as a step chart (a count holds until a goal changes it), one
    line per item (the `top` most held), with each re-plan marked by a dashed line; inline SVG."""
    if not points:
        return "<p class=muted>no goal was executed</p>"
    start = start or {}
    peak: dict[str, int] = dict(start)
    for _, inv in points:
        for k, n in inv.items():
            peak[k] = max(peak.get(k, 0), n)
    items = sorted(peak, key=lambda k: -peak[k])[:top]
    w, h, pad, legend = 760, 260, 40, 150
    right = w - legend
    xmax = max(1, max(x for x, _ in points), *replans)
    ymax = max(1, max(peak[k] for k in items)) if items else 1

    def x_of(x: float) -> float:
        return pad + (right - pad) * x / xmax

    def y_of(n: float) -> float:
        return h - pad - (h - pad - 10) * n / ymax

    palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
    parts = [
        f'<svg id="inventory-chart" role="img" aria-label="inventory over time" width="{w}" height="{h}" '
        f'xmlns="http://www.w3.org/2000/svg"><rect width="{w}" height="{h}" fill="white"/>',
        f'<line x1="{pad}" y1="{h - pad}" x2="{right}" y2="{h - pad}" stroke="#999"/>',
        f'<line x1="{pad}" y1="10" x2="{pad}" y2="{h - pad}" stroke="#999"/>',
        f'<text x="{(pad + right) // 2}" y="{h - 8}" font-size="11" text-anchor="middle">env steps (0..{xmax})</text>',
        f'<text x="4" y="16" font-size="11">{ymax}</text>',
    ]
    for k, x in enumerate(replans, 1):
        parts.append(
            f'<line class="replan" x1="{x_of(x):.1f}" y1="10" x2="{x_of(x):.1f}" y2="{h - pad}" '
            f'stroke="#888" stroke-dasharray="4 3"/><text x="{x_of(x) + 3:.1f}" y="{20 + 12 * (k % 2)}" '
            f'font-size="10" fill="#555">re-plan {k}</text>'
        )
    for i, item in enumerate(items):
        last = start.get(item, 0)
        coords = [f"{x_of(0):.1f},{y_of(last):.1f}"]
        for x, inv in points:  # a step: across at the old count, then up or down to the new one
            coords.append(f"{x_of(x):.1f},{y_of(last):.1f}")
            last = inv.get(item, 0)
            coords.append(f"{x_of(x):.1f},{y_of(last):.1f}")
        colour = palette[i % len(palette)]
        parts.append(
            f'<polyline class="series" data-item="{_e(item)}" fill="none" stroke="{colour}" '
            f'stroke-width="2" points="{" ".join(coords)}"/>'
        )
        parts.append(f'<text x="{right + 10}" y="{20 + 14 * i}" font-size="11" fill="{colour}">{_e(item)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def to_html(run: Run) -> str:
    task = run.start.get("task", {})
    settings = run.start.get("settings", {})
    plans = run.plans()
    start_inventory = {
        str(k): int(_num(n))
        for given in (task.get("inventory"), settings.get("inventory"))
        if isinstance(given, dict)
        for k, n in given.items()
    }
    descriptions = run.texts("describe", "descriptions")
    explanations = run.texts("explain", "explanations")
    cards = []
    for i, plan in enumerate(plans):
        body = f"<pre>{_e(plan)}</pre>" if i == 0 else f"<pre class=diff>{_diff(plans[i - 1], plan)}</pre>"
        after = ""
        if i < len(descriptions):
            after += f"<p><b>Description.</b> <span class=description>{_e(descriptions[i])}</span></p>"
        if i < len(explanations):
            after += f"<p><b>Explanation.</b> <span class=explanation>{_e(explanations[i])}</span></p>"
        label = "initial plan" if i == 0 else f"re-plan {i} (diff against plan {i - 1})"
        cards.append(f'<div class="plan" data-round="{i}"><h3>{label}</h3>{body}{after}</div>')
    calls = []
    for i, c in enumerate(run.llm):
        prompt = "\n\n".join(f"[{m.get('role')}]\n{m.get('content')}" for m in c.get("prompt", []))
        calls.append(
            f"<tr><td>{i + 1}</td><td>{_e(c['tokens_in'])}</td><td>{_e(c['tokens_out'])}</td>"
            f"<td>{c['seconds']:.2f}</td><td><details><summary>prompt ({len(prompt)} chars)</summary>"
            f"<pre>{_e(prompt)}</pre></details><pre>{_e(c.get('reply', ''))}</pre></td></tr>"
        )
    end = run.end or {}
    verdict = (
        "<span class=ok>SUCCESS</span>"
        if end.get("success")
        else f"<span class=bad>FAILED</span> ({_e(end.get('failure_reason'))})"
        if end
        else "<span class=muted>no end recorded (stopped or still running)</span>"
    )
    steps = "".join(
        f"<tr><td>{i}</td><td>{s['t']:.2f}</td><td>{_e(s['node'])}</td>"
        f"<td><pre>{_e(_one(s['update'], s['node']))}</pre></td></tr>"
        for i, s in enumerate(run.steps)
    )
    return f"""<!doctype html><html lang=en><head><meta charset=utf-8>
<title>deps trace: {_e(task.get("id"))} ({_e(run.thread)})</title><style>{_CSS}</style></head><body>
<h1>{_e(task.get("id"))}: {_e(task.get("instruction"))}</h1>
<p>planner <b>{_e(settings.get("planner"))}</b>, world {_e(settings.get("world"))}, llm {_e(settings.get("llm"))},
seed {_e(settings.get("seed"))}, thread <code>{_e(run.thread)}</code></p>
<p id=verdict>{verdict}: {_e(end.get("env_steps", "-"))} env steps, {_e(end.get("rounds", "-"))} re-plan round(s),
{_e(end.get("llm_calls", len(run.llm)))} LLM call(s), {_e(end.get("tokens_in", 0))}+{
        _e(end.get("tokens_out", 0))
    } tokens</p>
<h2>Plans, descriptions and explanations</h2><div class=plans id=plans>{"".join(cards)}</div>
<h2>Inventory over time</h2>{_inventory_svg(run.inventories(), run.replans(), start_inventory)}
<h2>LLM calls</h2>{
        "<table id=llm-calls><tr><th>#</th><th>in</th><th>out</th><th>s</th><th>prompt and reply</th></tr>"
        + "".join(calls)
        + "</table>"
        if calls
        else "<p class=muted>no LLM call</p>"
    }
<h2>Every node</h2><table id=timeline><tr><th>step</th><th>t (s)</th><th>node</th><th>update</th></tr>{steps}</table>
</body></html>
"""


def write_html(run: Run, out: str | Path) -> Path:
    """Write the page at `out` at once (a temp file, then a rename). The temp file is created new
    with O_EXCL | O_NOFOLLOW after removing whatever had its name, so a planted link is replaced,
    never written through; a link at `out` itself is replaced by the rename. A path that cannot
    hold a page (a folder, a path under a file, /proc) is a TraceError: one line."""
    path = Path(out)
    if path.is_dir():
        raise TraceError(f"-o {out} is a folder; accepted: the path of the page to write, e.g. {path / 'trace.html'}")
    data = to_html(run).encode("utf-8")
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        fd = os.open(
            tmp,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
            0o644,
        )
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as e:
        raise TraceError(
            f"cannot write the page {out} ({e.strerror or e}); accepted: a file path in a folder you can write"
        ) from None
    return path
