"""Study 2, refresh (tracks/refresh): the single/bulk × refresh table beside the published one, its ratios, whether
the ordering of the four configurations matches, and the time to searchable. Every ``fresh-index-load`` task is one
(docs, method, refresh) cell, every ``time-to-searchable`` task one row.
"""

from __future__ import annotations

from dataclasses import dataclass

from ingestlab.rally.results import RaceResult, TaskResult
from ingestlab.report.common import fmt, invalid_lines, ratio, this_machine
from ingestlab.studies.base import TEST_MODE_DOCS, Headline, Study, documents_written, fitted_headlines, iterations
from ingestlab.studies.refresh_searchable import ms as _ms
from ingestlab.studies.refresh_searchable import searchable
from ingestlab.studies.refresh_searchable import section as searchable_section

COLUMNS = [("single", "none"), ("bulk", "none"), ("single", "true"), ("bulk", "true"), ("single", "wait_for"), ("bulk", "wait_for")]
STUDY_COLUMNS = COLUMNS[:4]


def column_label(method: str, refresh: str) -> str:
    return method if refresh == "none" else f"{method} + refresh={refresh}"


def typical_ms(result: TaskResult, written: int) -> float | None:
    """The median run's elapsed time, from the runner's own throughput of each run (docs ÷ its timed part, what the
    study's client timed), as the fastest run's is; Rally's service time (first request's start to last request's
    end) only where a race has no throughput."""
    if result.throughput_median:
        return written / result.throughput_median * 1000.0
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
    task: str | None = None


def table_tasks(result: RaceResult) -> dict[tuple[int, str, str], str]:
    """(docs, single|bulk, refresh) → the task of that cell, from the track's schedule."""
    out = {}
    for t in result.schedule:
        if t.operation_type == "fresh-index-load":
            method = "single" if t.param("method") == "index" else "bulk"
            out[(int(t.param("doc-count")), method, str(t.param("refresh", "none")))] = t.name
    return out


def doc_counts(result: RaceResult) -> list[int]:
    return sorted({docs for docs, _, _ in table_tasks(result)})


def cells(result: RaceResult, published: dict) -> dict[tuple[int, str, str], Cell]:
    tasks = table_tasks(result)
    figures = {(f["docs"], f["method"], f["refresh"]): f["elapsed_ms"] for f in published["figures"]}
    out = {}
    for docs in doc_counts(result):
        for method, refresh in COLUMNS:
            key = (docs, method, refresh)
            task, pub = tasks.get(key), figures.get(key)
            r = result.tasks.get(task) if task else None
            if r is None and pub is None:
                continue
            recorded = documents_written(result, task) if task else None  # else the cell's count, as Rally's test mode cuts it
            written = recorded if recorded is not None else (min(docs, TEST_MODE_DOCS) if result.test_mode else docs)
            median_ms = typical_ms(r, written) if r else None
            fastest_ms = (written / r.throughput_max * 1000.0) if r and r.throughput_max else None
            out[key] = Cell(docs, written, method, refresh, median_ms, fastest_ms, r.error_rate if r else 0.0, pub, task)
    return out


def ordering(table: dict, docs: int, key: str) -> list[str]:
    """The four configurations of the study, fastest first, by ``median_ms`` or ``published_ms``."""
    present = [(getattr(table[(docs, m, r)], key), column_label(m, r)) for m, r in STUDY_COLUMNS if (docs, m, r) in table]
    if any(v is None for v, _ in present) or len(present) < 4:
        return []
    return [label for _, label in sorted(present)]


def _table_section(result: RaceResult, table: dict, published: dict) -> list[str]:
    tasks = table_tasks(result)
    runs = iterations(result, next(iter(tasks.values()))) if tasks else None
    columns = [c for c in COLUMNS if any((d, *c) in table for d in doc_counts(result))]
    lines = [
        f"### This machine: median of {fmt(runs, 'd')} run{'s' if runs != 1 else ''}, ms (fastest run in brackets)",
        "",
        "| docs | " + " | ".join(column_label(*c) for c in columns) + " |",
        "|---:|" + "---:|" * len(columns),
    ]
    for docs in doc_counts(result):
        written = next((c.written for c in table.values() if c.docs == docs and c.median_ms is not None), docs)
        label = f"{docs:,}" if written == docs else f"{docs:,} (wrote {written:,})"
        row = [table.get((docs, *c)) for c in columns]
        shown = ["not run" if c is None or c.median_ms is None else f"{_ms(c.median_ms)} ({_ms(c.fastest_ms)})" for c in row]
        lines.append(f"| {label} | " + " | ".join(shown) + " |")
    lines += [
        "",
        f"### Published: Elasticsearch {published['elasticsearch']}, {published['client']}, ms",
        "",
        "| docs | " + " | ".join(column_label(*c) for c in STUDY_COLUMNS) + " |",
        "|---:|" + "---:|" * 4,
    ]
    figures = {(f["docs"], f["method"], f["refresh"]): f["elapsed_ms"] for f in published["figures"]}
    for docs in published["doc_counts"]:
        lines.append(f"| {docs:,} | " + " | ".join(_ms(figures.get((docs, *c))) for c in STUDY_COLUMNS) + " |")
    return lines


def _ratio_section(result: RaceResult, table: dict) -> list[str]:
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

    pairs = [
        (("single", "none"), ("bulk", "none")),
        (("single", "true"), ("bulk", "true")),
        (("single", "true"), ("single", "none")),
        (("bulk", "true"), ("bulk", "none")),
    ]
    for docs in doc_counts(result):
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


TERMS = ("request", "document", "refresh")


def model_cells(result: RaceResult, table: dict) -> tuple[list, list]:
    """(this machine's, the article's) cells for time = requests × r + documents × c + refreshes × f: single writes one
    request per document, a bulk cell one request (its bulk holds the cell's documents); refresh=true refreshes once
    per request. The wait_for cells wait for a scheduled refresh, which no cost per request describes: left out."""
    from ingestlab.models.linear import Cell  # the cost models (scipy loads where one is fitted)

    bulk_size = next(
        (int(t.param("bulk-size")) for t in result.schedule if t.operation_type == "fresh-index-load" and t.param("method") == "bulk"), None
    )
    here, there = [], []
    for (docs, method, refresh), c in sorted(table.items()):
        if refresh not in ("none", "true"):
            continue
        label = f"{docs:,} {column_label(method, refresh)}"

        def cell(n, seconds):
            requests = n if method == "single" else -(-n // (bulk_size or n))
            return Cell(label, requests, n, seconds, requests if refresh == "true" else 0)

        if c.median_ms:
            here.append(cell(c.written, c.median_ms / 1000))
        if c.published_ms:
            there.append(cell(docs, c.published_ms / 1000))
    return here, there


def fits(result: RaceResult, table: dict):
    from ingestlab.report import cost  # the cost models (scipy loads where one is fitted)

    here_cells, there_cells = model_cells(result, table)
    return (*cost.try_linear(here_cells, TERMS), *cost.try_linear(there_cells, TERMS))


def _highlight(result: RaceResult, table: dict, h: dict) -> str:
    docs = h["docs"]
    num, den = table.get((docs, *h["numerator"])), table.get((docs, *h["denominator"]))
    here = ratio(num.median_ms if num else None, den.median_ms if den else None)
    there = ratio(num.published_ms if num else None, den.published_ms if den else None)
    return (
        f"- {h['what']}: published {fmt(there, ',.0f', '×')} (the study says about {h['about']}×), "
        f"this machine {fmt(here, ',.0f', '×')}" + (" (test mode: fewer docs)" if result.test_mode else "") + "."
    )


class Refresh(Study):
    name = "refresh"
    title = "Refresh: single vs. bulk x refresh none/true/wait_for, and the time until a write is searchable"
    published = "refresh"
    small_params = {"doc_counts": [10, 100, 1000], "searchable_intervals_ms": [100, 1000], "searchable_clients": 2}
    # single and bulk with refresh=true at the article's 10,000 documents: its headline (433x) is made there
    headline_params = {"doc_counts": [10000], "refresh_modes": ["true"], "repetitions": 1}
    headline_challenge = "refresh-table"
    default_version = "8.19.7"  # the study ran 8.14: the nearest line the pack provisions

    def markdown(self, result: RaceResult, published: dict, load_side: dict | None = None) -> str:
        from ingestlab.models.linear import compare_sentence  # the cost models (scipy loads where one is fitted)
        from ingestlab.report import cost  # the cost models (scipy loads where one is fitted)

        table = cells(result, published)
        here, why_here, there, why_there = fits(result, table)
        sentence = compare_sentence(here, there, "the bulk-over-single ratios") if here and there else ""
        lines = ["## refresh: single vs. bulk writes x refresh, into a fresh index per run", "", *([sentence, ""] if sentence else [])]
        lines += _table_section(result, table, published)
        lines += _ratio_section(result, table)
        lines.append("")
        lines += [_highlight(result, table, h) for h in published.get("highlights", [])]
        lines += [
            "",
            "### Cost model: time = requests × r + documents × c + refreshes × f (medians; refresh=true refreshes per request)",
            "",
        ]
        lines += cost.linear_table(here, there, why_here, why_there, TERMS)
        lines += ["", *cost.predictions(here, there)]
        lines += searchable_section(result)
        tasks = table_tasks(result)
        skipped = [d for d in doc_counts(result) if (d, "bulk", "wait_for") in tasks and (d, "single", "wait_for") not in tasks]
        lines += [
            "",
            f"- {this_machine(result)}.",
            f"- Published: Elasticsearch {published['elasticsearch']}, {published['client']}, "
            f"{published['hardware']}; {published['method']}.",
            "- single + refresh=wait_for waits for a scheduled refresh per document (about one refresh_interval each); "
            + (
                f"it runs only up to `single_wait_for_max_docs` documents (not run here for {', '.join(f'{d:,}' for d in skipped)})."
                if skipped
                else "every doc count ran."
            ),
        ]
        lines += invalid_lines(result)
        return "\n".join(lines) + "\n"

    def charts(self, result: RaceResult, published: dict) -> list:
        """Time of each configuration relative to bulk at the same doc count (log scale), both sides; and the
        time-to-searchable percentiles."""
        from ingestlab.report import plot  # heavy: matplotlib, only when drawing charts

        table = cells(result, published)

        def relative(key: str) -> dict:
            def value(d, m, r):
                return getattr(table[(d, m, r)], key) if (d, m, r) in table else None

            return {
                column_label(m, r): [(d, ratio(value(d, m, r), value(d, "bulk", "none"))) for d in doc_counts(result)]
                for m, r in STUDY_COLUMNS
            }

        image = plot.line_panels(
            [("this machine", relative("median_ms")), ("published", relative("published_ms"))],
            xlabel="documents",
            ylabel="time ÷ bulk's time at the same doc count",
            title="refresh: each configuration's time relative to bulk",
            caption_here=plot.here_line(result),
            caption_published=plot.published_line(published),
            logx=True,
            logy=True,
        )
        out = [("Time relative to bulk, per doc count", image)]
        rows = searchable(result)
        if rows:
            image = plot.grouped_bars(
                [f"{r.interval_ms} ms\n{r.refresh}" for r in rows],
                {p: [r.percentiles.get(p) for r in rows] for p in ("p50", "p90", "p99")},
                ylabel="ms from write to searchable",
                logy=True,
                colors=["#2ca02c", plot.HERE, "#d62728"],
                title="Time to searchable by refresh_interval and refresh mode "
                "(the pack's addition; the article's is its refresh=true columns)",
                caption_here=plot.here_line(result),
                caption_published="the article left refresh=wait_for and refresh_interval out on purpose",
            )
            out.append(("Time to searchable", image))
        out += self.model_chart(result, published)
        return out

    def model_chart(self, result: RaceResult, published: dict) -> list:
        """Each configuration's time against its document count, with both sides' fitted costs."""
        from ingestlab.report import cost, plot  # heavy: scipy and matplotlib, only when drawing charts

        table = cells(result, published)
        here, _, there, _ = fits(result, table)
        if here is None and there is None:
            return []
        panels = []
        for method, refresh in STUDY_COLUMNS:
            keys = sorted(k for k in table if k[1:] == (method, refresh))
            points = {
                "this machine": [(d, table[(d, m, r)].median_ms) for d, m, r in keys],
                "published": [(d, table[(d, m, r)].published_ms) for d, m, r in keys],
            }

            def curve(fit, method=method, refresh=refresh):
                if fit is None:
                    return None
                return lambda n: (
                    fit.predict(n if method == "single" else 1, n, (n if method == "single" else 1) if refresh == "true" else 0) * 1000
                )

            panels.append(
                {
                    "title": column_label(method, refresh),
                    "xlabel": "documents",
                    "ylabel": "ms",
                    "logx": True,
                    "logy": True,
                    "xs": [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
                    "points": points,
                    "curves": {"this machine": curve(here), "published": curve(there)},
                }
            )
        image = cost.curve_chart(
            panels,
            title="refresh: times with the fitted cost per request, document and refresh",
            caption_here=plot.here_line(result),
            caption_published=plot.published_line(published),
        )
        return [("Cost model: measured times and fitted curves", image)]

    def headlines(self, result: RaceResult, published: dict) -> list[Headline]:
        """The article's own comparison: bulk+refresh=true against single+refresh=true at its headline's document count
        (10,000); a race without that cell has no headline figure (never one made at another count)."""
        table = cells(result, published)
        docs = published.get("headline", {}).get("docs", 10000)
        num, den = table.get((docs, "single", "true")), table.get((docs, "bulk", "true"))
        here = ratio(num.median_ms if num else None, den.median_ms if den else None)
        return [
            Headline(
                "bulk-refresh-over-single-refresh",
                f"bulk+refresh ÷ single+refresh (speed, {docs:,} docs)",
                here,
                ratio(num.published_ms if num else None, den.published_ms if den else None),
                None if here else f"this race wrote no {docs:,}-document cell with refresh=true",
            ),
            *fitted_headlines(
                *fits(result, table)[0::2], {"refresh": ("cost per refresh=true", 1e3, " ms"), "request": ("cost per request", 1e3, " ms")}
            ),
        ]


STUDY = Refresh()
