"""Chart helpers: matplotlib without a display, PNG bytes out, and the caption every chart carries
(this machine and the published study, hardware and versions), since absolute figures differ by hardware."""
from __future__ import annotations

import io
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE, PUBLISHED = "#1f77b4", "#ff7f0e"


def new_figure(width: float = 8.0, height: float = 4.8):
    return plt.subplots(figsize=(width, height), layout="constrained")


def caption(fig, here: str, published: str) -> None:
    text = "\n".join(textwrap.wrap(f"This machine: {here}", 130) + textwrap.wrap(f"Published: {published}", 130))
    fig.get_layout_engine().set(h_pad=0.1)
    fig.supxlabel(text, fontsize=7, color="#444444", x=0.01, ha="left")


def png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def here_line(race: dict, machine_line: str) -> str:
    cluster = race.get("cluster", {})
    return f"{machine_line}; Elasticsearch {cluster.get('distribution-version')}, esrally {race.get('rally-version')}"


def published_line(published: dict) -> str:
    return f"Elasticsearch {published['elasticsearch']}, {published.get('client', '')}, {published['hardware']}"


def ratio_bars(labels: list[str], here: list[float], published_values: list[float], *, xlabel: str, title: str,
               race: dict, machine_line: str, published: dict, height: float = 5.2) -> bytes:
    """Horizontal bars of ratios, this machine beside the published study, one pair per label (0: no figure);
    a line at 1.0 marks each side's own reference."""
    fig, ax = new_figure(10, height)
    y = list(range(len(labels)))
    ax.barh([i - 0.2 for i in y], here, 0.4, label="this machine", color=HERE)
    ax.barh([i + 0.2 for i in y], published_values, 0.4, label="published", color=PUBLISHED)
    ax.set_yticks(y, labels, fontsize=7)
    ax.invert_yaxis()
    ax.axvline(1.0, color="#888888", linewidth=0.8)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend()
    caption(fig, here_line(race, machine_line), published_line(published))
    return png(fig)
