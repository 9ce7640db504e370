"""Formatting for reports: percentages, `mean ± std` cells, Markdown tables, run labels."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any


def pct(x: float | None) -> float | None:
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


# control characters (NUL and the rest, but not a line break or tab) and the bidirectional
# overrides, embeddings, isolates and marks that make text read other than it is stored
_UNSEEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def md_cell(value: Any) -> str:
    """Text from the data (a group name, a task id) made safe inside a Markdown table row or
    list item: control and bidi-override characters dropped, `|` and backticks escaped, `<` as an entity, line breaks as `<br>`, so the
    row stays one row and nothing in the name opens a code span or a tag."""
    s = _UNSEEN.sub("", str(value).replace("\r\n", "\n").replace("\r", "\n"))
    s = s.replace("|", "\\|").replace("`", "\\`").replace("<", "&lt;")
    return s.replace("\n", "<br>")


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]], align_first_left: bool = True) -> str:
    lines = [
        "| " + " | ".join(md_cell(h) for h in header) + " |",
        "| " + " | ".join([":---" if (i == 0 and align_first_left) else "---:" for i in range(len(header))]) + " |",
    ]
    for r in rows:
        lines.append("| " + " | ".join(md_cell(c) for c in r) + " |")
    return "\n".join(lines)


def run_label(summary: dict[str, Any]) -> str:
    bits = [summary.get("world"), summary.get("llm")]
    sel = summary.get("selector")
    if sel:
        bits.append(f"selector {sel}")
    return f"{summary.get('planner')} ({', '.join(str(b) for b in bits if b)})"
