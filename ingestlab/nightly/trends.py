"""Trend charts of the nightly history: each task's figure over the nights with the noise band of the nights before
the last, headline ratios beside the published ones, and the annotations as marked nights."""

from __future__ import annotations

import math
import statistics

from ingestlab.nightly.history import DROP_LEVEL, HEADLINE, NIGHTS_COMPARED
from ingestlab.verdicts import stats

MARK = {"xycoords": ("data", "axes fraction"), "fontsize": 6, "rotation": 90, "ha": "right"}  # a night's mark on a chart


def _band(values: list[float]) -> tuple[float, float] | None:
    """The prediction band of the nights before the last (its lower edge is what tonight was judged against, before
    Holm's correction); None with fewer than 3 of them."""
    return stats.history_band(values[:-1][-NIGHTS_COMPARED:], DROP_LEVEL)


def chart(
    study: str,
    setup: str,
    series: dict[str, list[tuple[str, float]]],
    notes: list[tuple[str, str]],
    published_headlines: dict[str, float],
    missing: list[str],
    caption: str,
    change_points: dict | None = None,
    shown: frozenset[str] = frozenset(),
) -> bytes:
    """Small multiples, one per task (headlines first), nights on the x axis; ``change_points``: task → [(night, change)],
    drawn where the new level starts; ``shown``: series shown and never judged (the costs), drawn without a band."""
    from ingestlab.report import plot  # heavy: matplotlib, only when drawing charts

    tasks = sorted(series, key=lambda t: (not t.startswith(HEADLINE), t)) + [t for t in missing if t not in series]
    nights = sorted({n for points in series.values() for n, _ in points})
    cols = min(3, max(1, len(tasks)))
    rows = math.ceil(len(tasks) / cols)
    fig, axes = plot.new_figure(4.2 * cols, 2.6 * rows + 1)
    axes.axis("off")
    grid = fig.subplots(rows, cols, squeeze=False)
    for i, task in enumerate(tasks):
        ax = grid[i // cols][i % cols]
        points = series.get(task, [])
        xs = [nights.index(n) for n, _ in points]
        ys = [v for _, v in points]
        ax.plot(xs, ys, marker="o", color=plot.HERE)
        band = _band(ys) if ys and task not in shown else None
        if band:
            ax.axhspan(*band, color=plot.HERE, alpha=0.12, label="noise band")
        key = task.removeprefix(HEADLINE)
        if task.startswith(HEADLINE) and published_headlines.get(key) is not None:
            ax.axhline(published_headlines[key], color=plot.PUBLISHED, linestyle="--", label="published")
        for night, change in (change_points or {}).get(task, []):
            if night in nights:
                ax.axvline(nights.index(night) - 0.5, color="#d62728", linewidth=1.2, linestyle="--")
                ax.annotate(f"change point {change:+.0%}", (nights.index(night) - 0.5, 0.05), **MARK, color="#d62728", va="bottom")
        for night, text in notes:
            if night in nights:
                ax.axvline(nights.index(night), color="#888888", linewidth=0.8, linestyle=":")
                ax.annotate(text[:40], (nights.index(night), 1.0), **MARK, va="top", color="#555555")
        title = f"{key} (ratio)" if task.startswith(HEADLINE) else task + (" (shown, not judged)" if task in shown else "")
        if task in missing:
            title += " — MISSING TONIGHT"
            ax.annotate("no figure tonight", (len(nights) - 1, 0.5), xycoords=("data", "axes fraction"), color="#d62728", fontsize=8)
        ax.set_title(title, fontsize=8, color="#d62728" if task in missing else "black")
        ax.set_xticks(
            range(len(nights)), [n[5:10] + " " + n[11:13] + ":" + n[13:15] if len(n) >= 15 else n for n in nights], fontsize=6, rotation=30
        )
        ax.tick_params(axis="y", labelsize=7)
        ax.set_ylim(bottom=0, top=max([*ys, *(band or []), published_headlines.get(key) or 0, 1]) * 1.15)
    for j in range(len(tasks), rows * cols):
        grid[j // cols][j % cols].axis("off")
    fig.suptitle(f"nightly {study} on {setup}: figures over the nights (band: where the nights before predict a night, 90 %)")
    plot.caption(fig, caption, None)
    return plot.png(fig)


def median_or_none(values: list[float | None]) -> float | None:
    """The median of the values there are (a missing one is left out, never counted as 0); None when there is none."""
    kept = [v for v in values if v is not None]
    return statistics.median(kept) if kept else None
