"""The refresh study's report: the single/bulk x refresh table beside the published one, the ratios the
study highlighted, whether the ordering of the four configurations matches, and the time to searchable."""
from __future__ import annotations

from dataclasses import dataclass

from ingestlab.rally.results import TaskResult, task_results
from ingestlab.report.common import fmt, invalid_lines, is_test_mode, this_machine

TEST_MODE_DOCS = 1000
COLUMNS = [("single", "none"), ("bulk", "none"), ("single", "true"), ("bulk", "true"), ("single", "wait_for"), ("bulk", "wait_for")]
STUDY_COLUMNS = COLUMNS[:4]
DEFAULTS = {
    "doc_counts": [10, 100, 1000, 10000],
    "repetitions": 3,
    "searchable_intervals_ms": [100, 1000, 5000],
    "searchable_modes": ["none", "true", "wait_for"],
    "searchable_clients": 4,
    "searchable_samples": 100,
    "poll_interval_ms": 5,
}


def column_label(method: str, refresh: str) -> str:
    return method if refresh == "none" else f"{method} + refresh={refresh}"


def task_name(method: str, docs: int, refresh: str) -> str:
    return f"{method}-{docs}-refresh-{refresh}"


def param(race: dict, name: str):
    return race.get("track-params", {}).get(name, DEFAULTS[name])


def written_docs(race: dict, docs: int) -> int:
    """Test mode reads the -1k corpus: a cell never writes more than 1,000 documents there."""
    return min(docs, TEST_MODE_DOCS) if is_test_mode(race) else docs


def typical_ms(result: TaskResult) -> float | None:
    """The median run; with a single run (test mode) Rally stores only its p100 and mean."""
    return result.service_time("p50") or result.service_time("mean")


@dataclass(frozen=True)
class Cell:
    docs: int  # as the track names the cell
    written: int  # what it wrote in this race
    method: str
    refresh: str
    median_ms: float | None
    fastest_ms: float | None
    error_rate: float
    published_ms: float | None


def cells(race: dict, published: dict) -> dict[tuple[int, str, str], Cell]:
    measured = task_results(race)
    figures = {(f["docs"], f["method"], f["refresh"]): f["elapsed_ms"] for f in published["figures"]}
    out = {}
    for docs in param(race, "doc_counts"):
        for method, refresh in COLUMNS:
            result = measured.get(task_name(method, docs, refresh))
            pub = figures.get((docs, method, refresh))
            if result is None and pub is None:
                continue
            written = written_docs(race, docs)
            out[(docs, method, refresh)] = Cell(
                docs=docs,
                written=written,
                method=method,
                refresh=refresh,
                median_ms=typical_ms(result) if result else None,
                fastest_ms=(written / result.throughput_max * 1000.0) if result and result.throughput_max else None,
                error_rate=result.error_rate if result else 0.0,
                published_ms=pub,
            )
    return out


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    return numerator / denominator if numerator and denominator else None


def ordering(table: dict, docs: int, key: str) -> list[str]:
    """The four configurations of the study, fastest first, by ``median_ms`` or ``published_ms``."""
    present = [(getattr(table[(docs, m, r)], key), column_label(m, r)) for m, r in STUDY_COLUMNS if (docs, m, r) in table]
    if any(v is None for v, _ in present) or len(present) < 4:
        return []
    return [label for _, label in sorted(present)]


@dataclass(frozen=True)
class Searchable:
    interval_ms: int
    refresh: str
    samples: int
    percentiles: dict
    error_rate: float


def searchable_samples(race: dict) -> int:
    clients = int(param(race, "searchable_clients"))
    iterations = -(-int(param(race, "searchable_samples")) // clients)
    if is_test_mode(race):
        iterations = min(iterations, clients)  # Rally's test mode caps iterations at the client count
    return clients * iterations


def searchable(race: dict) -> list[Searchable]:
    measured = task_results(race)
    out = []
    for interval in param(race, "searchable_intervals_ms"):
        for mode in param(race, "searchable_modes"):
            result = measured.get(f"searchable-{interval}ms-refresh-{mode}")
            if result:
                out.append(Searchable(int(interval), mode, searchable_samples(race), result.service_time_ms, result.error_rate))
    return out


def _ms(value) -> str:
    if value is None:
        return "—"
    return format(value, ",.0f" if value >= 100 else ",.1f")


def _table_section(race: dict, table: dict, published: dict) -> list[str]:
    runs = 1 if is_test_mode(race) else int(param(race, "repetitions"))
    doc_counts = param(race, "doc_counts")
    columns = [c for c in COLUMNS if any((d, *c) in table for d in doc_counts)]
    header = "| docs | " + " | ".join(column_label(*c) for c in columns) + " |"
    rule = "|---:|" + "---:|" * len(columns)
    lines = [
        f"### This machine: median of {runs} run{'s' if runs != 1 else ''}, ms (fastest run in brackets)",
        "",
        header,
        rule,
    ]
    for docs in doc_counts:
        written = written_docs(race, docs)
        label = f"{docs:,}" if written == docs else f"{docs:,} (wrote {written:,})"
        row = []
        for c in columns:
            cell = table.get((docs, *c))
            if cell is None or cell.median_ms is None:
                row.append("not run")
            else:
                row.append(f"{_ms(cell.median_ms)} ({_ms(cell.fastest_ms)})")
        lines.append(f"| {label} | " + " | ".join(row) + " |")
    lines += ["", f"### Published: Elasticsearch {published['elasticsearch']}, {published['client']}, ms", "",
              "| docs | " + " | ".join(column_label(*c) for c in STUDY_COLUMNS) + " |", "|---:|" + "---:|" * 4]
    figures = {(f["docs"], f["method"], f["refresh"]): f["elapsed_ms"] for f in published["figures"]}
    for docs in published["doc_counts"]:
        lines.append(f"| {docs:,} | " + " | ".join(_ms(figures.get((docs, *c))) for c in STUDY_COLUMNS) + " |")
    return lines


def _ratio_section(race: dict, table: dict) -> list[str]:
    lines = [
        "",
        "### Ratios (each side against itself: hardware cancels out)",
        "",
        "| docs | single ÷ bulk: here | published | single+refresh ÷ bulk+refresh: here | published "
        "| refresh=true cost, single: here | published | refresh=true cost, bulk: here | published "
        "| single+refresh slowest, bulk fastest? | order of all four as published? |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]

    def get(docs, method, refresh, key):
        cell = table.get((docs, method, refresh))
        return getattr(cell, key) if cell else None

    for docs in param(race, "doc_counts"):
        pairs = [(("single", "none"), ("bulk", "none")), (("single", "true"), ("bulk", "true")),
                 (("single", "true"), ("single", "none")), (("bulk", "true"), ("bulk", "none"))]
        values = []
        for num, den in pairs:
            values.append(fmt(ratio(get(docs, *num, "median_ms"), get(docs, *den, "median_ms")), ",.1f", "×"))
            values.append(fmt(ratio(get(docs, *num, "published_ms"), get(docs, *den, "published_ms")), ",.1f", "×"))
        here, there = ordering(table, docs, "median_ms"), ordering(table, docs, "published_ms")
        if not here or not there:
            ends, order = "—", "—"
        else:
            ends = "yes" if (here[0], here[-1]) == (there[0], there[-1]) else "no"
            order = "yes" if here == there else "no: " + " < ".join(here)
        lines.append(f"| {docs:,} | " + " | ".join(values) + f" | {ends} | {order} |")
    return lines


def _searchable_section(race: dict) -> list[str]:
    rows = searchable(race)
    if not rows:
        return []
    poll = param(race, "poll_interval_ms")
    lines = [
        "",
        "### Time to searchable: from the write request's start until a search finds the document, ms",
        "",
        "| refresh_interval | refresh | samples | p50 | p90 | p99 | max |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        p = r.percentiles
        lines.append(
            f"| {r.interval_ms:,} ms | {r.refresh} | {r.samples} | {_ms(p.get('p50'))} | {_ms(p.get('p90'))} "
            f"| {_ms(p.get('p99'))} | {_ms(p.get('p100'))} |"
        )
    lines += [
        "",
        f"- Each sample writes one probe at a random point of the refresh cycle and then searches for it every {poll} ms, "
        "so every figure includes one search round trip and up to one poll interval.",
        "- Rally reports p90 from 10 samples and p99 from 100 samples on; a dash means too few samples for it.",
        "- No published study measured this.",
    ]
    return lines


def markdown(race: dict, published: dict, machine_line: str, load_side: dict | None = None) -> str:
    """``load_side`` is part of every study's report call; this study has no load-side bench."""
    table = cells(race, published)
    lines = ["## refresh: single vs. bulk writes x refresh, into a fresh index per run", ""]
    lines += _table_section(race, table, published)
    lines += _ratio_section(race, table)
    lines.append("")
    for h in published.get("highlights", []):
        docs = h["docs"]
        here_num, here_den = table.get((docs, *h["numerator"])), table.get((docs, *h["denominator"]))
        here = ratio(here_num.median_ms if here_num else None, here_den.median_ms if here_den else None)
        there = ratio(here_num.published_ms if here_num else None, here_den.published_ms if here_den else None)
        lines.append(f"- {h['what']}: published {fmt(there, ',.0f', '×')} (the study says about {h['about']}×), "
                     f"this machine {fmt(here, ',.0f', '×')}" + (" (test mode: fewer docs)" if is_test_mode(race) else "") + ".")
    lines += _searchable_section(race)
    modes = race.get("track-params", {}).get("refresh_modes", ["none", "true", "wait_for"])
    skipped = [d for d in param(race, "doc_counts") if "wait_for" in modes and (d, "single", "wait_for") not in table]
    lines += [
        "",
        f"- {this_machine(race, machine_line)}.",
        f"- Published: Elasticsearch {published['elasticsearch']}, {published['client']}, {published['hardware']}; {published['method']}.",
        "- single + refresh=wait_for waits for a scheduled refresh per document (about one refresh_interval each); "
        + (f"it runs only up to `single_wait_for_max_docs` documents (not run here for {', '.join(f'{d:,}' for d in skipped)})."
           if skipped else "every doc count ran."),
    ]
    lines += invalid_lines(race)
    return "\n".join(lines) + "\n"


def charts(race: dict, published: dict, machine_line: str, stats=None) -> list[tuple[str, bytes]]:
    """Time of each configuration relative to bulk at the same doc count (log scale), both sides; and
    the time-to-searchable percentiles."""
    from ingestlab.report import plot

    table = cells(race, published)
    out = []
    fig, axes = plot.new_figure(10, 4.8)
    axes.axis("off")
    panels = fig.subplots(1, 2, sharey=True)
    for ax, key, title in ((panels[0], "median_ms", "this machine"), (panels[1], "published_ms", "published")):
        for method, refresh in STUDY_COLUMNS:
            xs, ys = [], []
            for docs in param(race, "doc_counts"):
                cell, base = table.get((docs, method, refresh)), table.get((docs, "bulk", "none"))
                value, ref = (getattr(cell, key) if cell else None), (getattr(base, key) if base else None)
                if value and ref:
                    xs.append(docs)
                    ys.append(value / ref)
            ax.plot(xs, ys, marker="o", label=column_label(method, refresh))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("documents")
        ax.set_title(title)
    panels[0].set_ylabel("time ÷ bulk's time at the same doc count")
    panels[1].legend(fontsize=8)
    fig.suptitle("refresh: each configuration's time relative to bulk")
    plot.caption(fig, plot.here_line(race, machine_line), plot.published_line(published))
    out.append(("Time relative to bulk, per doc count", plot.png(fig)))

    rows = searchable(race)
    if rows:
        fig, ax = plot.new_figure()
        labels = [f"{r.interval_ms} ms\n{r.refresh}" for r in rows]
        for offset, pct, color in ((-0.25, "p50", "#2ca02c"), (0, "p90", plot.HERE), (0.25, "p99", "#d62728")):
            ax.bar([i + offset for i in range(len(rows))], [r.percentiles.get(pct) or 0 for r in rows], 0.25, label=pct, color=color)
        ax.set_xticks(range(len(rows)), labels, fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("ms from write to searchable")
        ax.set_title("Time to searchable by refresh_interval and refresh mode (this machine; no study measured it)")
        ax.legend()
        plot.caption(fig, plot.here_line(race, machine_line), "not measured by the study")
        out.append(("Time to searchable", plot.png(fig)))
    return out
