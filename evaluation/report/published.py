"""The papers' published figures (evaluation/report/published.yaml, in percent), matched to our
suites and groups so reports can show them beside ours, labelled as published."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

PUBLISHED_PATH = Path(__file__).with_name("published.yaml")


@functools.lru_cache(maxsize=4)
def _load_published_cached(path: str) -> tuple[dict[str, Any], ...]:
    import yaml

    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    return tuple(data.get("tables") or ())


def load_published(path: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """The tables of evaluation/report/published.yaml (percent)."""
    return list(_load_published_cached(str(path or PUBLISHED_PATH)))


def norm_name(name: Any) -> str:
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
    return bool(suite) and norm_name(suite_name(suite)) == norm_name(table.get("suite"))


def _their_groups(table: dict[str, Any]) -> list[str]:
    g = table.get("groups") or []
    return list(g.keys()) if isinstance(g, dict) else list(g)


def group_map(table: dict[str, Any], our_groups: Iterable[str]) -> dict[str, str]:
    """our group -> the table's group, for the groups both have."""
    theirs = _their_groups(table)
    aliases = table.get("group_aliases") or {}
    lookup: dict[str, str] = {}
    for g in theirs:
        lookup[norm_name(g)] = g
        for a in aliases.get(g, []) or []:
            lookup[norm_name(a)] = g
    return {g: lookup[norm_name(g)] for g in our_groups if norm_name(g) in lookup}


def _cell(v: Any) -> tuple[float | None, float | None]:
    if v is None:
        return None, None
    if isinstance(v, (list, tuple)):
        return float(v[0]), (float(v[1]) if len(v) > 1 and v[1] is not None else None)
    return float(v), None


def published_rows(
    suite: str | None, groups: Sequence[str], use: str = "main", tables: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Published rows for our suite: [{label, method, planner, values: {our group: (mean, std)}, avg}],
    only from tables of the same suite and only the groups both have."""
    out = []
    for t in tables if tables is not None else load_published():
        if t.get("use") != use or not suite_matches(t, suite) or "rows" not in t:
            continue
        gmap = group_map(t, groups)
        if not gmap:
            continue
        for r in t["rows"]:
            vals = {g: _cell((r.get("values") or {}).get(pg)) for g, pg in gmap.items()}
            out.append(
                {
                    "label": t.get("label") or f"published ({t.get('source')})",
                    "source": t.get("source"),
                    "method": r.get("method"),
                    "planner": r.get("planner", t.get("planner")),
                    "llm": r.get("llm"),
                    "world": r.get("world"),
                    "values": vals,
                    "avg": r.get("avg"),
                    # the table's AVG only stands beside ours when both cover the same groups
                    "all_groups": (len(set(gmap.values())) == len(_their_groups(t)) and len(gmap) == len(set(groups))),
                }
            )
    return out
