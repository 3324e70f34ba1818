"""Study 1, bulk vs. single index API (tracks/posts): this machine's fastest runs beside the published figures."""

from __future__ import annotations

from math import ceil

from ingestlab.rally.costs import ms, where_the_time_went
from ingestlab.rally.results import RaceResult
from ingestlab.report.common import fmt, held_by, invalid_lines, one_node_tasks, task_limits, this_machine
from ingestlab.studies.base import Headline, Study, corpus_documents, documents_written, fitted_headlines, iterations


def documents_per_run(result: RaceResult) -> int | None:
    """What each run wrote, as the fresh-index-load runner recorded it; without its records, the corpus as declared."""
    return documents_written(result) or corpus_documents(result)


def task_of(result: RaceResult, method: str, bulk_size: int | None = None) -> str | None:
    """The task of the race's schedule that writes with ``method`` (index or bulk) and, for bulk, ``bulk_size``."""
    writes = (t for t in result.schedule if t.operation_type == "fresh-index-load" and t.param("method") == method)
    return next((t.name for t in writes if bulk_size is None or t.param("bulk-size") == bulk_size), None)


def rows(result: RaceResult, published: dict) -> list[dict]:
    measured = result.tasks
    docs = documents_per_run(result)
    figures = {f["task"]: f for f in published["figures"]}
    order = [f["task"] for f in published["figures"]] + sorted(t for t in measured if t not in figures)
    base = measured.get(task_of(result, "index"))  # the index API: what every speed-up is measured against, on both sides
    base_ms = docs / base.throughput_max * 1000 if base and base.throughput_max else None
    pub_base = next((f["elapsed_ms"] for f in published["figures"] if f.get("method") == "index"), None)
    out = []
    for task in order:
        m, p = measured.get(task), figures.get(task)
        row = {"task": task, "label": (p or {}).get("label", task)}
        if m and m.throughput_max:
            fastest_ms = docs / m.throughput_max * 1000
            row.update(
                measured_ms=fastest_ms,
                measured_docs_s=m.throughput_max,
                median_docs_s=m.throughput_median,
                speedup=(base_ms / fastest_ms) if base_ms else None,
                error_rate=m.error_rate,
            )
        if p:
            row.update(
                published_ms=p["elapsed_ms"],
                published_docs_s=published["documents"] / p["elapsed_ms"] * 1000,
                published_speedup=(pub_base / p["elapsed_ms"]) if pub_base else None,
            )
        out.append(row)
    return out


def bulk_sizes(result: RaceResult, published: dict) -> dict[str, int | None]:
    """task → its bulk size (None: the index API, one request per document), from the track as rendered or the data."""
    writes = [t for t in result.schedule if t.operation_type == "fresh-index-load"]
    sizes = {t.name: None if t.param("method") == "index" else t.param("bulk-size") for t in writes}
    for f in published["figures"]:
        sizes.setdefault(f["task"], f.get("bulk_size"))
    return sizes


def model_cells(result: RaceResult, published: dict) -> tuple[list, list]:
    """(this machine's cells, the article's cells) for time = requests × r + documents × c: each configuration's
    fastest run, with the requests its documents took."""
    from ingestlab.models.linear import Cell  # the cost models (scipy loads where one is fitted)

    sizes, docs, here, there = bulk_sizes(result, published), documents_per_run(result), [], []
    for r in rows(result, published):
        size = sizes.get(r["task"])
        label = r["label"].replace(", one doc per request", "")
        if r.get("measured_ms") and docs:
            here.append(Cell(label, docs if size is None else ceil(docs / size), docs, r["measured_ms"] / 1000))
        if r.get("published_ms"):
            n = published["documents"]
            there.append(Cell(label, n if size is None else ceil(n / size), n, r["published_ms"] / 1000))
    return here, there


def request_costs(result: RaceResult) -> str:
    """Where the index API's time went, beside the node's CPU a document in bulks of 1,000: the why of the ratio in the
    race's own counters; "" where the index API's window was too short to split (:func:`where_the_time_went`) or more
    than one node indexed it (the costs count each copy)."""
    found, one = task_limits(result), one_node_tasks(result)
    single = task_of(result, "index")
    spent = where_the_time_went(((found.get(single) or {}).get("costs") or {}) if single in one else {})
    if not spent:
        return ""
    bulk = task_of(result, "bulk", 1000)
    cpu = ((found.get(bulk) or {}).get("costs") or {}).get("node_cpu_ms_per_doc") if bulk in one else None
    bulked = f"; in bulks of 1,000, the node's CPU {ms(cpu)} ms a document" if cpu is not None else ""
    return f"Through the index API, {spent}{bulked}."


def fits(result: RaceResult, published: dict):
    from ingestlab.report import cost  # the cost models (scipy loads where one is fitted)

    here_cells, there_cells = model_cells(result, published)
    return (*cost.try_linear(here_cells), *cost.try_linear(there_cells))


class Posts(Study):
    name = "posts"
    title = "Bulk vs. single index API (10,000 posts docs)"
    published = "posts"
    small_params = {"repetitions": 3}
    headline_params = {"repetitions": 3, "bulk_sizes": [1000]}  # the index API and bulk 1000: the headline's two rows
    default_version = "6.8.23"  # the study ran 6.0: the nearest line the pack provisions

    def markdown(self, result: RaceResult, published: dict, load_side: dict | None = None) -> str:
        docs = documents_per_run(result)
        table = rows(result, published)
        runs = iterations(result, "index-api") or iterations(result, next(iter(result.tasks), ""))
        from ingestlab.models.linear import compare_sentence  # the cost models (scipy loads where one is fitted)
        from ingestlab.report import cost  # the cost models (scipy loads where one is fitted)

        here, why_here, there, why_there = fits(result, published)
        sentence = compare_sentence(here, there, "the speed-ups over the index API") if here and there else ""
        held = held_by(result, {r["task"]: r["label"] for r in table})
        sentence = " ".join(filter(None, [sentence, held, request_costs(result)]))
        lines = [
            f"## posts: bulk vs. single index API ({fmt(docs, ',')} docs, fastest of {fmt(runs, 'd')} runs)",
            "",
            *([sentence, ""] if sentence else []),
            "| configuration | this machine: fastest run | docs/s (fastest) | docs/s (median) | speed-up vs. index API "
            "| published: elapsed | docs/s | speed-up |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in table:
            lines.append(
                f"| {r['label']} | {fmt(r.get('measured_ms'), ',.1f', ' ms')} | {fmt(r.get('measured_docs_s'), ',.0f')} "
                f"| {fmt(r.get('median_docs_s'), ',.0f')} | {fmt(r.get('speedup'), '.1f', '×')} "
                f"| {fmt(r.get('published_ms'), ',', ' ms')} | {fmt(r.get('published_docs_s'), ',.0f')} "
                f"| {fmt(r.get('published_speedup'), '.1f', '×')} |"
            )
        lines += [
            "",
            f"- {this_machine(result)}.",
            f"- Published: Elasticsearch {published['elasticsearch']}, {published['client']}, {published['hardware']}, "
            f"{published['documents']:,} docs, {published['method']}.",
            "- Absolute times depend on hardware; compare the speed-up columns.",
        ]
        lines += ["", "### Cost model: time = requests × r + documents × c (fastest runs, least squares on relative errors)", ""]
        lines += cost.linear_table(here, there, why_here, why_there)
        lines += ["", *cost.predictions(here, there)]
        lines += invalid_lines(result)
        if load_side:
            best = max((r.get("measured_docs_s") or 0) for r in table)
            ratio = load_side["docs_per_s"] / best if best else None
            lines.append(
                f"- Load side alone (one core, no cluster): request bodies prepared at {load_side['docs_per_s']:,.0f} docs/s "
                f"({load_side['mb_per_s']:,.1f} MB/s) = {fmt(ratio, '.0f', '×')} the fastest ingest rate above; "
                f"corpus generated at {load_side['generator_docs_per_s']:,.0f} docs/s ({load_side['generator_mb_per_s']:,.1f} MB/s)."
            )
        return "\n".join(lines) + "\n"

    def charts(self, result: RaceResult, published: dict) -> list:
        """Speed-up over the index API per configuration: this machine and the published study."""
        from ingestlab.report import plot  # heavy: matplotlib, only when drawing charts

        table = [r for r in rows(result, published) if r.get("speedup") or r.get("published_speedup")]
        image = plot.paired_bars(
            [r["label"].replace(", one doc per request", "") for r in table],
            [r.get("speedup") for r in table],
            [r.get("published_speedup") for r in table],
            ylabel="speed-up over the index API (×)",
            title=f"posts: bulk size vs. single index API ({fmt(documents_per_run(result), ',')} docs)",
            result=result,
            published=published,
        )
        return [("Speed-up over the index API", image), *self.model_chart(result, published)]

    def model_chart(self, result: RaceResult, published: dict) -> list:
        """Each configuration's fastest time against its bulk size, with both sides' fitted t(b) = (N/b)·r + N·c."""
        from ingestlab.report import cost, plot  # heavy: scipy and matplotlib, only when drawing charts

        here, _, there, _ = fits(result, published)
        if here is None and there is None:
            return []
        sizes, docs = bulk_sizes(result, published), documents_per_run(result)
        points = {"this machine": [], "published": []}
        for r in rows(result, published):
            b = sizes.get(r["task"]) or 1
            points["this machine"].append((b, r.get("measured_ms")))
            points["published"].append((b, r.get("published_ms")))

        def curve(fit, n):
            return (lambda b: fit.predict(n / b, n) * 1000) if fit and n else None

        image = cost.curve_chart(
            [
                {
                    "xlabel": "documents per request (1: the index API)",
                    "ylabel": "fastest run, ms",
                    "logx": True,
                    "logy": True,
                    "xs": [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
                    "points": points,
                    "curves": {"this machine": curve(here, docs), "published": curve(there, published["documents"])},
                }
            ],
            title="posts: time to write the corpus by request size, with the fitted cost model",
            caption_here=plot.here_line(result),
            caption_published=plot.published_line(published),
        )
        return [("Cost model: measured times and fitted curves", image)]

    def headlines(self, result: RaceResult, published: dict) -> list[Headline]:
        table = {r["task"]: r for r in rows(result, published)}
        bulk = table.get(task_of(result, "bulk", 1000), {})
        here_fit, _, there_fit, _ = fits(result, published)
        return [
            Headline("bulk1000-over-single", "bulk 1000 ÷ index API (speed)", bulk.get("speedup"), bulk.get("published_speedup")),
            *fitted_headlines(
                here_fit, there_fit, {"request": ("cost per request", 1e3, " ms"), "document": ("cost per document", 1e6, " µs")}
            ),
        ]


STUDY = Posts()
