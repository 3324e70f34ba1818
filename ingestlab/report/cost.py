"""Cost models in a report: the fitted parameters of this machine and of the article side by side with their 95 %
intervals, each cell's prediction against its measurement, and charts of the measured points with both fitted
curves (:mod:`ingestlab.models`). A side whose cells cannot carry a fit says why instead of showing numbers."""

from __future__ import annotations

import numpy as np

from ingestlab.models import linear, usl
from ingestlab.report.common import fmt

UNITS = {"request": ("per request", 1e6, "µs"), "document": ("per document", 1e6, "µs"), "refresh": ("per refresh", 1e3, "ms")}


def try_linear(cells: list[linear.Cell], terms=("request", "document")) -> tuple[linear.Fit | None, str | None]:
    try:
        return linear.fit(cells, terms), None
    except linear.CannotFit as e:
        return None, str(e)


def linear_table(
    here: linear.Fit | None, there: linear.Fit | None, why_here: str | None, why_there: str | None, terms=("request", "document")
) -> list[str]:
    lines = ["| cost | this machine (95 % interval) | published (95 % interval) | here ÷ published |", "|---|---:|---:|---:|"]
    for term in terms:
        name, scale, unit = UNITS[term]
        a, b = (here.per(term) if here else None), (there.per(term) if there else None)
        lines.append(
            f"| {name} | {a.interval(scale, 1, ' ' + unit) if a else '—'} | {b.interval(scale, 1, ' ' + unit) if b else '—'} "
            f"| {fmt(a.value / b.value if a and b and b.value > 0 else None, ',.2f', '×')} |"
        )
    notes = []
    for side, fit, why in (("this machine", here, why_here), ("published", there, why_there)):
        if fit is None:
            notes.append(f"{side}: cannot fit ({why})")
        elif fit.r_squared is not None:
            notes.append(f"{side}: R² {fit.r_squared:.3f} over {len(fit.cells)} cells")
    return lines + (["", "- Fit: " + "; ".join(notes) + "."] if notes else [])


def predictions(here: linear.Fit | None, there: linear.Fit | None, scale: float = 1e3, unit: str = "ms") -> list[str]:
    """Each cell's measured time against the model's, on both sides."""
    rows: dict[str, dict] = {}
    for side, fit in (("here", here), ("there", there)):
        if fit is None:
            continue
        for cell, predicted in zip(fit.cells, fit.predicted):
            rows.setdefault(cell.label, {})[side] = (cell.seconds, predicted)
    if not rows:
        return []
    lines = [f"| cell | this machine: measured / model ({unit}) | published: measured / model ({unit}) |", "|---|---:|---:|"]
    for label, sides in rows.items():
        cells = [f"{m[0] * scale:,.1f} / {m[1] * scale:,.1f}" if m else "—" for m in (sides.get("here"), sides.get("there"))]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def usl_lines(
    label: str, here: usl.Usl | None, there: usl.Usl | None, why_here: str | None, why_there: str | None, unit: str = "docs/s"
) -> list[str]:
    return [
        f"- {label}, Universal Scalability Law: this machine: "
        + (here.describe(unit) if here else f"cannot fit ({why_here})")
        + "; published: "
        + (there.describe(unit) if there else f"cannot fit ({why_there})")
        + "."
    ]


def curve_chart(panels: list[dict], title: str, caption_here: str, caption_published: str | None) -> bytes:
    """``panels``: dicts with ``xlabel``, ``ylabel``, ``points`` {side: [(x, y)]}, ``curves`` {side: callable x → y or None},
    ``xs`` (where to draw the curves), ``logx``, ``logy``; this machine and the article in their two colours."""
    from ingestlab.report import plot  # heavy: matplotlib, only when drawing charts

    fig, outer = plot.new_figure(6.0 * len(panels), 4.8)
    outer.axis("off")
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    colors = {"this machine": plot.HERE, "published": plot.PUBLISHED}
    for ax, panel in zip(axes, panels):
        for side, points in panel["points"].items():
            kept = [(x, y) for x, y in points if y is not None]
            if kept:
                ax.scatter([x for x, _ in kept], [y for _, y in kept], color=colors[side], label=f"{side}: measured", zorder=3)
        xs = np.array(panel["xs"], dtype=float)
        for side, curve in panel["curves"].items():
            if curve is not None:
                ax.plot(xs, [curve(x) for x in xs], color=colors[side], linestyle="--", label=f"{side}: fitted")
        if panel.get("logx"):
            ax.set_xscale("log")
        if panel.get("logy"):
            ax.set_yscale("log")
        ax.set_xlabel(panel["xlabel"])
        ax.set_ylabel(panel["ylabel"])
        ax.set_title(panel.get("title", ""), fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle(title)
    plot.caption(fig, caption_here, caption_published)
    return plot.png(fig)
