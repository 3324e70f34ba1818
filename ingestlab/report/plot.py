"""Chart helpers: matplotlib without a display, PNG bytes out, and the caption every chart carries (this machine and
the published study). A missing value is never drawn as 0: its bar is left out and a dash marks the gap.
"""

from __future__ import annotations

import functools
import io
import math
import re
import textwrap

import matplotlib

from ingestlab.report.common import engine_name, load_generator, machine_line

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.ft2font import FT2Font  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

HERE, PUBLISHED = "#1f77b4", "#ff7f0e"
MISSING = "—"


def new_figure(width: float = 8.0, height: float = 4.8):
    return plt.subplots(figsize=(width, height), layout="constrained")


@functools.cache
def _font_chars() -> frozenset[int]:
    return frozenset(FT2Font(font_manager.findfont(font_manager.FontProperties())).get_charmap())


def drawable(text: str) -> str:
    """``text`` as the chart's font can draw it: a parenthesis holding characters the font lacks (e.g. an article's
    Japanese words where no CJK font is installed) is left out, and any other such run becomes "…", where matplotlib
    would draw empty boxes. The reports' tables keep the words whole."""
    chars = _font_chars()

    def missing(c: str) -> bool:
        return ord(c) not in chars and not c.isspace()

    def lacks(s: str) -> bool:
        return any(map(missing, s))

    if not lacks(text):
        return text
    text = re.sub(r" ?\([^()]*\)", lambda m: "" if lacks(m.group()) else m.group(), text)
    return re.sub("\0+", "…", "".join("\0" if missing(c) else c for c in text))


def caption(fig, here: str, published: str | None) -> None:
    width = max(60, int(fig.get_figwidth() * 14))  # characters of 7-point text across the figure
    lines = textwrap.wrap(f"This machine: {drawable(here)}", width)
    if published:
        lines += textwrap.wrap(f"Published: {drawable(published)}", width)
    fig.get_layout_engine().set(h_pad=0.1)
    fig.supxlabel("\n".join(lines), fontsize=7, color="#444444", x=0.01, ha="left")


def png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def here_line(result) -> str:
    cluster = result.cluster
    return f"{machine_line(result)}; {engine_name(result.race)} {cluster.get('distribution-version')}, {load_generator(result.race)}"


def published_line(published: dict | None) -> str | None:
    if not published:
        return None
    return ", ".join(x for x in (f"Elasticsearch {published['elasticsearch']}", published.get("client"), published.get("hardware")) if x)


def bars(ax, positions, values, width, horizontal: bool, **style) -> None:
    """Bars where there is a value; a dash at the base where there is none."""
    for pos, value in zip(positions, values):
        if value is None:
            where = {"xy": (0, pos), "ha": "left", "va": "center"} if horizontal else {"xy": (pos, 0), "ha": "center", "va": "bottom"}
            ax.annotate(MISSING, color=style.get("color", "#444444"), fontsize=9, **where)
            continue
        (ax.barh if horizontal else ax.bar)(pos, value, width, **style)
        style.pop("label", None)  # one legend entry per series, on its first drawn bar


def paired_bars(
    labels: list[str],
    here: list,
    published_values: list,
    *,
    ylabel: str,
    title: str,
    result,
    published: dict | None,
    horizontal: bool = False,
    height: float = 4.8,
    reference: float | None = None,
) -> bytes:
    """This machine beside the published study, one pair per label; ``reference`` draws a line (e.g. 1.0)."""
    fig, ax = new_figure(10 if horizontal else 8, height)
    positions = list(range(len(labels)))
    bars(ax, [p - 0.2 for p in positions], here, 0.4, horizontal, label="this machine", color=HERE)
    if published is not None:
        bars(ax, [p + 0.2 for p in positions], published_values, 0.4, horizontal, label="published", color=PUBLISHED)
    if horizontal:
        ax.set_yticks(positions, labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel(ylabel)
    else:
        ax.set_xticks(positions, labels, rotation=15, fontsize=8)
        ax.set_ylabel(ylabel)
    if reference is not None:
        (ax.axvline if horizontal else ax.axhline)(reference, color="#888888", linewidth=0.8)
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:  # none when every value is missing (a chart of ratios to a row not raced)
        ax.legend()
    caption(fig, here_line(result) if result is not None else "", published_line(published))
    return png(fig)


def line_panels(
    panels: list,
    *,
    xlabel: str,
    ylabel: str,
    title: str,
    caption_here: str,
    caption_published: str | None,
    logx: bool = False,
    logy: bool = False,
    width: float = 10,
    height: float = 4.8,
    xticks: list | None = None,
) -> bytes:
    """One or more panels side by side, sharing the y axis; ``panels`` is ``[(title, {series: [(x, y), …]}), …]``.
    Points without a value are left out of their line."""
    fig, axes = new_figure(width, height)
    axes.axis("off")
    grid = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, (panel_title, series) in zip(grid, panels):
        for label, points in series.items():
            kept = [(x, y) for x, y in points if y is not None]
            ax.plot([x for x, _ in kept], [y for _, y in kept], marker="o", label=label)
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_title(panel_title)
        if xticks:
            ax.set_xticks(range(len(xticks)), xticks)
    grid[0].set_ylabel(ylabel)
    grid[-1].legend(fontsize=8)
    fig.suptitle(title)
    caption(fig, caption_here, caption_published)
    return png(fig)


def grouped_bars(
    labels: list[str],
    series: dict,
    *,
    ylabel: str,
    title: str,
    caption_here: str,
    caption_published: str | None,
    logy: bool = False,
    colors: list | None = None,
) -> bytes:
    """Several bars per label, one per series (missing values left out, with a dash)."""
    fig, ax = new_figure()
    width = 0.8 / max(len(series), 1)
    colors = colors or [None] * len(series)
    for i, ((name, values), color) in enumerate(zip(series.items(), colors)):
        offset = (i - (len(series) - 1) / 2) * width
        bars(ax, [p + offset for p in range(len(labels))], values, width, False, label=name, **({"color": color} if color else {}))
    ax.set_xticks(range(len(labels)), labels, fontsize=8)
    if logy:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:  # none when every series is missing (e.g. one cluster of several raced)
        ax.legend()
    caption(fig, caption_here, caption_published)
    return png(fig)


def heat_maps(
    panels: list,
    xticks: list[str],
    yticks: list[str],
    *,
    xlabel: str,
    ylabel: str,
    title: str,
    cell_format: str,
    caption_here: str,
    caption_published: str | None,
    notes: list | None = None,
    framed: list | None = None,
) -> bytes:
    """Heat maps side by side, ``panels`` = ``[(title, rows of values), …]``; a missing cell stays blank with a dash.
    ``notes``: per panel, rows of a second line for each cell (e.g. its spread); ``framed``: per panel, the (row, column)
    cells to outline (e.g. the best cell and those within noise of it)."""
    fig, axes = new_figure(5.4 * len(panels), 4.8)
    axes.axis("off")
    grid = fig.subplots(1, len(panels), squeeze=False)[0]
    for k, (ax, (panel_title, rows)) in enumerate(zip(grid, panels)):
        values = [[math.nan if v is None else v for v in row] for row in rows]
        image = ax.imshow(values, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(xticks)), xticks)
        ax.set_yticks(range(len(yticks)), yticks)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(panel_title, fontsize=10)
        for i, row in enumerate(rows):
            for j, v in enumerate(row):
                text = MISSING if v is None else cell_format.format(v)
                if notes and notes[k] and notes[k][i][j]:
                    text += "\n" + notes[k][i][j]
                light = v is not None and image.norm(v) > 0.6  # viridis turns yellow: dark text there
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color="#444444" if v is None else ("black" if light else "white"))
        for i, j in framed[k] if framed and framed[k] else []:
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#d62728", linewidth=2.5))
        fig.colorbar(image, ax=ax, shrink=0.8)
    fig.suptitle(title)
    caption(fig, caption_here, caption_published)
    return png(fig)


def version_lines(
    panels: list, versions: list[str], *, ylabel: str, title: str, caption_here: str, caption_published: str | None, columns: int = 4
) -> bytes:
    """One panel per headline, with the Elasticsearch version on a categorical x axis. ``panels`` =
    ``[(title, [(version, value or None, why missing or None), …], published value or None, published label), …]``:
    each value is drawn and written beside its point; a version without one gets a dash and the reason, never a 0;
    the published figure is a dashed line, labelled with the version the study ran."""
    columns = min(columns, len(panels))
    rows = -(-len(panels) // columns)
    fig, axes = new_figure(4.2 * columns, 3.6 * rows + 0.8)
    axes.axis("off")
    grid = fig.subplots(rows, columns, squeeze=False)
    for i, (panel_title, points, published_value, published_label) in enumerate(panels):
        ax = grid[i // columns][i % columns]
        kept = [(versions.index(v), y) for v, y, _ in points if y is not None]
        ax.plot([x for x, _ in kept], [y for _, y in kept], marker="o", color=HERE, label="this machine")
        for x, y in kept:
            text = f"{y:,.2f}×" if y < 10 else f"{y:,.0f}×"
            ax.annotate(text, (x, y), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=7, color=HERE)
        for x, why in [(versions.index(v), why) for v, y, why in points if y is None]:
            text = MISSING + "\n" + "\n".join(textwrap.wrap(why or "not measured", 14))
            ax.annotate(text, (x, 0.03), xycoords=("data", "axes fraction"), ha="center", va="bottom", fontsize=6, color="#444444")
        if published_value is not None:
            ax.axhline(published_value, color=PUBLISHED, linestyle="--", label=published_label or "published")
        ax.set_xticks(range(len(versions)), versions, fontsize=7)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.set_title(panel_title, fontsize=8)
        top = max([y for _, y in kept] + [published_value or 0, 1])
        ax.set_ylim(bottom=0, top=top * 1.2)
        ax.legend(fontsize=6, loc="upper left")
    for j in range(len(panels), rows * columns):
        grid[j // columns][j % columns].axis("off")
    fig.suptitle(title)
    caption(fig, caption_here, caption_published)
    return png(fig)
