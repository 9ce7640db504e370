"""The reports' PNG plots (matplotlib, Agg): success per group, success against a swept value.
A missing matplotlib means no plot; the Markdown report still stands."""

from __future__ import annotations

import io
import os
from collections.abc import Sequence

from evaluation.safe_files import write_atomic


def _save(fig, path: str | os.PathLike[str]) -> None:
    """The figure as PNG at `path`, written at once (safe_files.write_atomic): a link planted at
    the name is replaced, never written through."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    write_atomic(path, buf.getvalue())


def pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:  # noqa: BLE001 - no plot, the markdown still stands
        return None
    return plt


def plot_groups(
    path: str | os.PathLike[str],
    groups: Sequence[str],
    series: Sequence[tuple[str, dict[str, float | None], dict[str, float | None] | None]],
    title: str,
    counts: Sequence[dict[str, int] | None] | None = None,
) -> bool:
    """Grouped bars: success % per group, one bar per series (label, {group: pct}, {group: std});
    `counts[i]` ({group: episodes}) writes n over series i's bars. The legend sits outside the axes."""
    plt = pyplot()
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
        xs = x - 0.4 + width * (i + 0.5)
        ax.bar(xs, ys, width, label=label, yerr=errs, capsize=2 if errs else 0)
        ns = (counts[i] if counts and i < len(counts) else None) or {}
        for xi, g, y in zip(xs, groups, ys):
            if g in ns and not np.isnan(y):
                ax.text(xi, min(y, 100) + 1.5, f"n={ns[g]}", ha="center", va="bottom", fontsize=6)
    ax.set_xticks(x)
    ax.set_xticklabels(groups, rotation=30 if len(groups) > 8 else 0, ha="right" if len(groups) > 8 else "center")
    ax.set_ylabel("success rate (%)")
    ax.set_ylim(0, 112)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(
        fontsize=7,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.14 if len(groups) <= 8 else -0.3),
        ncol=min(3, len(series)),
        frameon=False,
    )  # below the axes, never over a bar
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
    return True


def plot_lines(
    path: str | os.PathLike[str],
    xlabels: Sequence[str],
    panels: Sequence[tuple[str, dict[str, Sequence[float | None]]]],
    xname: str,
) -> bool:
    """Success % vs. a swept value; one panel per (title, {series: [y per x]})."""
    plt = pyplot()
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
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)  # beside the lines
    axes[0][0].set_ylabel("success rate (%)")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
    return True
