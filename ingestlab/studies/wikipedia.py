"""Study 4, reindexing Wikipedia (tracks/wikipedia): every method's fastest run on this machine beside the
published table, each side as a ratio to its own best ``_reindex`` time, plus client CPU per document; and the
scale-out steps (:mod:`.wikipedia_scale_out`). Labels and published rows are the track's (operation ``meta``).
"""

from __future__ import annotations

from statistics import median

from ingestlab.rally.results import RaceResult
from ingestlab.report.common import engine_name, fmt, invalid_lines, ratio, this_machine
from ingestlab.studies.base import Headline, Study
from ingestlab.studies.wikipedia_scale_out import _meta, scale_out_lines, scale_out_rows, scale_out_steps


def _cpu(us: float | None) -> str:
    """Client CPU per document; the _reindex API's client only waits, so its figure is well under 1 µs."""
    return fmt(us, ",.0f") if us is None or us >= 1 else "< 1"


def method_tasks(result: RaceResult) -> list:
    """The one-node methods: ``reindex-api`` and ``sliced-scroll-reindex`` tasks that make their own destination."""
    return [
        t
        for t in result.schedule
        if t.operation_type == "reindex-api" or (t.operation_type == "sliced-scroll-reindex" and t.param("dest", "recreate") == "recreate")
    ]


def method_rows(result: RaceResult) -> list[dict]:
    """One row per method: fastest run (s), docs/s, MB/s and client CPU per doc (from the runner stats)."""
    rows = []
    unavailable = result.tags.get("unavailable")
    for t in method_tasks(result):
        r = result.tasks.get(t.name)
        meta = _meta(t)
        row = dict(task=t.name, label=meta.get("label", t.name), study_row=meta.get("study-row"), api=t.operation_type == "reindex-api")
        if r is None:
            if t.operation_type == unavailable:  # left out: the distribution lacks the API
                missing = dict.fromkeys(("docs_per_s", "docs", "fastest_s", "cpu_us_per_doc", "mb_per_s"))
                rows.append({**row, "unavailable": True, **missing, "error_rate": 0.0})
            continue
        mine = [s for s in result.runner_stats if s.get("task") == t.name and "error" not in s]  # runs that completed
        rows.append(
            {
                **row,
                "docs_per_s": r.throughput_max,
                "docs": mine[0]["docs"] if mine else None,
                "local_same_shards": bool(t.param("local-shards")) and t.param("dest-shards") is None,
                "raw": bool(t.param("raw")),
                "fastest_s": min((s["elapsed_s"] for s in mine), default=None),
                "cpu_us_per_doc": median(s["client_cpu_s"] / s["docs"] * 1e6 for s in mine) if mine else None,
                "mb_per_s": max((s["source_bytes"] / s["elapsed_s"] / 1e6 for s in mine if "source_bytes" in s), default=None),
                "error_rate": r.error_rate,
            }
        )
    return rows


def _method_table(result: RaceResult, rows: list[dict], pub: dict, pub_api: list, best_api: dict | None, best_pub_api: float) -> list[str]:
    """Every one-node method's fastest run beside the published row, each side's speed against its own best _reindex."""
    lines = [
        "| method | this machine: fastest | docs/s | MB/s of _source | speed vs. best _reindex | client CPU µs/doc "
        "| published | speed vs. best _reindex |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        p = pub.get(r["study_row"]) if r["study_row"] else None
        if r.get("unavailable"):
            lines.append(
                f"| {r['label']} | not available on this distribution ({engine_name(result.race)} {result.es_version} "
                f"without the reindex module) | | | | | {fmt(p['seconds'] if p else None, ',', ' s')} | |"
            )
            continue
        lines.append(
            f"| {r['label']} | {fmt(r['fastest_s'], ',.2f', ' s')} | {fmt(r['docs_per_s'], ',.0f')} | {fmt(r['mb_per_s'], ',.1f')} "
            f"| {fmt(ratio(r['docs_per_s'], best_api['docs_per_s'] if best_api else None), ',.2f', '×')} "
            f"| {_cpu(r['cpu_us_per_doc'])} | {fmt(p['seconds'] if p else None, ',', ' s')} "
            f"| {fmt(best_pub_api / p['seconds'] if p else None, ',.2f', '×')} |"
        )
    lines += [
        "",
        "Published `_reindex` sweep (scroll size → best time): "
        + ", ".join(f"{f['label'].rsplit(' ', 1)[1]} → {f['seconds']} s" for f in pub_api)
        + f"; best {best_pub_api} s.",
        "",
    ]
    return lines


class Wikipedia(Study):
    name = "wikipedia"
    title = "Reindexing Wikipedia: _reindex API vs. sliced scroll + parallel bulk"
    published = "wikipedia"
    small_params = {"wiki_pages": 5000, "source_shards": 2}
    # the article's documents, 16 primaries and _reindex scroll sizes (pages of 500,000 need a larger result window and heap)
    full_size = {
        "wiki_pages": 2_050_717,
        "source_shards": 16,
        "reindex_scroll_sizes": [1000, 10000, 100000, 300000, 500000],
        "max_result_window": 500_000,
        "repetitions": 1,
    }
    full_size_heap = "8g"
    # Elasticsearch 7.9+ refuses a bulk past indexing pressure's limit (10 % of the heap), which the sweep's largest pass
    full_size_settings = {"indexing_pressure.memory.limit": "50%"}

    def markdown(self, result: RaceResult, published: dict, load_side: dict | None = None) -> str:
        rows = method_rows(result)
        api = [r for r in rows if r["api"] and r["docs_per_s"]]
        best_api = max(api, key=lambda r: r["docs_per_s"]) if api else None
        pub_api = [f for f in published["figures"] if f["kind"] == "reindex-api"]
        best_pub_api = min(f["seconds"] for f in pub_api)
        pub = {f["key"]: f for f in published["figures"]}
        docs = next((r["docs"] for r in rows + scale_out_rows(result) if r["docs"]), None)
        lines = [
            f"## wikipedia: reindexing {fmt(docs, ',')} pages — fastest of the runs" + (" (test mode)" if result.test_mode else ""),
            "",
        ]
        if best_api:
            rate_there = published["documents"] / best_pub_api
            r = best_api["docs_per_s"] / rate_there
            lines += [
                f"Against the article's 8 nodes: the best `_reindex` copies {fmt(best_api['docs_per_s'], ',.0f')} docs/s here, "
                f"{max(r, 1 / r):,.1f}× {'more' if r >= 1 else 'less'} than the article's {rate_there:,.0f} docs/s "
                f"({published['documents']:,} docs in {best_pub_api:g} s); the tool's gain over `_reindex` came there from "
                f"one tool per node on 8 machines, which this one machine cannot give. No cost model is fitted to the methods: "
                f"they differ in what each does with a document (decode, gzip, a raw copy, where it writes), not in counts "
                f"a model of requests and documents could separate; the load drivers of a scale-out race are fitted "
                f"by the Universal Scalability Law below where it has three driver counts or more, and `ingestlab scale-out` "
                f"races 1, 2 and 4 emulated hosts to fit it and predict the article's 8 nodes.",
                "",
            ]
        scale_out = scale_out_lines(result, published)
        if rows or not scale_out:
            lines += _method_table(result, rows, pub, pub_api, best_api, best_pub_api)
        lines += scale_out
        tools = [r for r in rows if not r["api"] and r["docs_per_s"]]
        if tools and best_api:
            best_tool = max(tools, key=lambda r: r["docs_per_s"])
            lines.append(
                f"- Custom ÷ `_reindex` throughput: best tool ({best_tool['task']}) "
                f"{best_tool['docs_per_s'] / best_api['docs_per_s']:,.2f}× "
                f"the best `_reindex` ({best_api['task']}) here; published {best_pub_api / pub['tool-local']['seconds']:,.1f}× "
                f"(best `_reindex` {best_pub_api} s → {pub['tool-local']['seconds']} s with one tool per node; {published['hardware']})."
            )
        local = [r for r in rows if r.get("local_same_shards")]  # the same copy, local primaries, with and without decoding
        raw = next((r for r in local if r["raw"]), None)
        dec = next((r for r in local if not r["raw"]), None)
        if raw and dec and raw["cpu_us_per_doc"] and dec["cpu_us_per_doc"]:
            prof = published.get("profiling", {}).get("seconds") or []
            lines.append(
                f"- Client CPU per document: decode {dec['cpu_us_per_doc']:,.0f} µs, raw {raw['cpu_us_per_doc']:,.0f} µs: "
                f"raw needs {dec['cpu_us_per_doc'] / raw['cpu_us_per_doc']:,.1f}× less. The study profiled decode/encode and gzip "
                f"apart, on a development machine, not in its {pub['tool-local']['seconds']} s run: "
                + " s → ".join(f"{x:,}" for x in prof)
                + " s."
            )
        drivers, nodes = result.tags.get("load-driver-hosts"), int(result.tags.get("nodes") or 1)
        where = (
            f"{drivers} test hosts (network namespaces of this one machine, sharing its cores), one node and one Rally load driver on each"
            if drivers
            else f"{nodes} nodes on this one machine, sharing its cores with the load driver; the local-primaries rows copy the "
            f"primaries of the node the client talks to"
            if nodes > 1
            else "one node, so every shard is local and the load driver shares its cores"
        )
        others = [f for f in published["figures"] if f["kind"] == "other-setup"]
        if others:
            lines.append(
                "- Published on other setups (not compared here): "
                + "; ".join(f"{f['label']}: {f['seconds'] if 'seconds' in f else '–'.join(map(str, f['seconds_range']))} s" for f in others)
                + "."
            )
        lines += [
            f"- {this_machine(result)}; {where}.",
            f"- Published: Elasticsearch {published['elasticsearch']}, {published['hardware']}, "
            f"{published['documents']:,} docs / {published['data_gb']} GB.",
            "- Every run recreates the destination and checks its count equals the source's afterwards.",
        ]
        lines += invalid_lines(result)
        if load_side:
            lines.append(
                f"- Converter alone: MediaWiki XML → corpus at {load_side['mb_per_s']:,.1f} MB/s on one core "
                f"({load_side['pages_per_s']:,.0f} pages/s; from .bz2 {load_side['mb_per_s_from_bz2']:,.1f} MB/s)."
            )
        return "\n".join(lines) + "\n"

    def charts(self, result: RaceResult, published: dict) -> list:
        """Each method's speed relative to the best _reindex, and each scale-out step's relative to one tool with
        parallel bulk: this machine beside the published study."""
        from ingestlab.report import plot  # heavy: matplotlib, only when drawing charts

        pub = {f["key"]: f.get("seconds") for f in published["figures"]}
        out = []

        def bars(caption, labels, here, there, ylabel, title, height):
            kept = dict(result=result, published=published, horizontal=True, height=height, reference=1.0)
            out.append((caption, plot.paired_bars(labels, here, there, ylabel=ylabel, title=title, **kept)))

        rows = [r for r in method_rows(result) if not r.get("unavailable")]
        if rows:
            best = max((r["docs_per_s"] for r in rows if r["api"] and r["docs_per_s"]), default=None)
            pub_best = min(f["seconds"] for f in published["figures"] if f["kind"] == "reindex-api")
            bars(
                "Reindex methods",
                [r["label"] for r in rows],
                [ratio(r["docs_per_s"], best) for r in rows],
                [ratio(pub_best, pub.get(r["study_row"])) for r in rows],
                "speed ÷ best _reindex of the same side",
                "wikipedia: reindex methods",
                5.2,
            )
        table = [r for r in scale_out_rows(result) if r["span_s"]]
        if table and table[0]["task"] == scale_out_steps(result)[0].operation["name"]:
            bars(
                "Scale-out: one tool vs. one tool per node",
                [f"{r['label']} ({r['drivers']} host{'s' if r['drivers'] != 1 else ''})" for r in table],
                [table[0]["span_s"] / r["span_s"] for r in table],
                [ratio(pub.get(table[0]["published"]), pub.get(r["published"])) for r in table],
                "speed ÷ one tool with parallel bulk, same side",
                "wikipedia: one tool vs. one tool per node",
                4.2,
            )
        return out

    def headlines(self, result: RaceResult, published: dict) -> list[Headline]:
        rows = method_rows(result)
        best_api = max((r["docs_per_s"] for r in rows if r["api"] and r["docs_per_s"]), default=None)
        best_tool = max((r["docs_per_s"] for r in rows if not r["api"] and r["docs_per_s"]), default=None)
        pub_best = min(f["seconds"] for f in published["figures"] if f["kind"] == "reindex-api")
        note = "no _reindex on this distribution" if any(r.get("unavailable") for r in rows) else None
        pub_local = next(f["seconds"] for f in published["figures"] if f["key"] == "tool-local")
        return [Headline("tool-over-reindex", "best tool ÷ best _reindex (speed)", ratio(best_tool, best_api), pub_best / pub_local, note)]


STUDY = Wikipedia()
