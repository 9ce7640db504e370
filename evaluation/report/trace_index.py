"""The eval's trace index: with `--trace-dir`, every episode's trace page (the same page as
`deps trace html`) and one index page in the eval's folder linking them all, with each
episode's outcome, so a failure is one click from the summary.

Pages are written with `write_atomic` (a link planted at a page is replaced, not followed), and
an episode folder that is a link is skipped: a page is never written outside --trace-dir.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from agent.trace_view import TraceError, load_run, to_html
from evaluation.backends import episode_trace_dir
from evaluation.safe_files import write_atomic

INDEX = "traces.html"
PAGE = "trace.html"


def _page(folder: Path) -> Path | None:
    """Write `folder`'s trace page; None when there is no trace (the episode never started) or
    the folder is a link."""
    if folder.is_symlink() or not folder.is_dir():
        return None
    try:
        run = load_run(folder)
    except TraceError:
        return None
    page = folder / PAGE
    write_atomic(page, to_html(run))
    return page


def write_trace_index(out: Path, trace_dir: str, rows: list[dict[str, Any]]) -> Path:
    """Each stored episode's trace page, and OUT/traces.html linking them."""
    items = []
    for row in sorted(rows, key=lambda r: (str(r.get("task_id")), int(r.get("episode") or 0))):
        folder = Path(episode_trace_dir(trace_dir, str(row.get("task_id")), int(row.get("episode") or 0)))
        page = _page(folder)
        verdict = "success" if row.get("success") else f"failed: {row.get('failure_reason') or ''}"
        label = f"{row.get('task_id')} episode {row.get('episode')}"
        link = (
            f'<a href="{html.escape(os.path.relpath(page, out))}">{html.escape(label)}</a>'
            if page
            else html.escape(label) + " (no trace)"
        )
        cls = "ok" if row.get("success") else "bad"
        items.append(
            f"<tr><td>{link}</td><td class={cls}>{html.escape(verdict)}</td>"
            f"<td>{int(row.get('env_steps') or 0)}</td><td>{int(row.get('rounds') or 0)}</td></tr>"
        )
    page = f"""<!doctype html><html lang=en><head><meta charset=utf-8><title>deps eval: traces</title>
<style>body{{font:14px system-ui,sans-serif;margin:2em}}td,th{{padding:2px 10px;text-align:left}}
.ok{{color:#176a17}}.bad{{color:#a01818}}</style></head><body>
<h1>Episode traces</h1><p>{len(rows)} episode(s); each links its trace page (plans, descriptions,
explanations, inventory, LLM calls).</p>
<table id=episodes><tr><th>episode</th><th>outcome</th><th>env steps</th><th>re-plans</th></tr>{"".join(items)}</table>
</body></html>
"""
    index = out / INDEX
    write_atomic(index, page)
    return index
