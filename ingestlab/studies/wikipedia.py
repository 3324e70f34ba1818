"""Study 4, reindexing Wikipedia (tracks/wikipedia): every method's fastest run on this machine beside the
published table, each side as a ratio to its own best ``_reindex`` time, plus client CPU per document; and
the scale-out steps (one tool vs. one tool per node) beside the study's as ratios to each side's own
parallel-bulk run.

Each step's label and the published row it stands beside are the track's (operation ``meta``), as rendered.
A scale-out run of several clients is the span from its first client's start to its last client's end, from
the wall-clock times the runner records; the clients of one run overlap, runs of a step never do.
"""
from __future__ import annotations

from statistics import median

from ingestlab.bench import loadbench
from ingestlab.rally.results import RaceResult
from ingestlab.report.common import fmt, invalid_lines, ratio, this_machine
from ingestlab.studies.base import Headline, Study


def _cpu(us: float | None) -> str:
    """Client CPU per document; the _reindex API's client only waits, so its figure is well under 1 µs."""
    return fmt(us, ",.0f") if us is None or us >= 1 else "< 1"


def _meta(task) -> dict:
    return task.operation.get("meta") or {}


def method_tasks(result: RaceResult) -> list:
    """The one-node methods: ``reindex-api`` and ``sliced-scroll-reindex`` tasks that make their own destination."""
    return [t for t in result.schedule if t.operation_type == "reindex-api"
            or (t.operation_type == "sliced-scroll-reindex" and t.param("dest", "recreate") == "recreate")]


def method_rows(result: RaceResult) -> list[dict]:
    """One row per method: fastest run (s), docs/s, MB/s and client CPU per doc (from the runner stats)."""
    rows = []
    unavailable = result.tags.get("unavailable")
    for t in method_tasks(result):
        r = result.tasks.get(t.name)
        if r is None:
            if t.operation_type == unavailable:  # left out: the distribution lacks the API
                rows.append({"task": t.name, "label": _meta(t).get("label", t.name), "study_row": _meta(t).get("study-row"),
                             "api": t.operation_type == "reindex-api", "unavailable": True, "docs_per_s": None, "docs": None,
                             "fastest_s": None, "cpu_us_per_doc": None, "mb_per_s": None, "error_rate": 0.0})
            continue
        mine = [s for s in result.runner_stats if s.get("task") == t.name and "error" not in s]  # runs that completed
        rows.append({
            "task": t.name, "label": _meta(t).get("label", t.name), "study_row": _meta(t).get("study-row"),
            "api": t.operation_type == "reindex-api", "docs_per_s": r.throughput_max, "docs": mine[0]["docs"] if mine else None,
            "local_same_shards": bool(t.param("local-shards")) and t.param("dest-shards") is None, "raw": bool(t.param("raw")),
            "fastest_s": min((s["elapsed_s"] for s in mine), default=None),
            "cpu_us_per_doc": median(s["client_cpu_s"] / s["docs"] * 1e6 for s in mine) if mine else None,
            "mb_per_s": max((s["source_bytes"] / s["elapsed_s"] / 1e6 for s in mine if "source_bytes" in s), default=None),
            "error_rate": r.error_rate})
    return rows


def scale_out_steps(result: RaceResult) -> list:
    """The scale-out operations in schedule order (each step once): clients write into a shared destination."""
    seen, steps = set(), []
    for t in result.schedule:
        if t.operation_type == "sliced-scroll-reindex" and t.param("dest") == "existing" and t.operation["name"] not in seen:
            seen.add(t.operation["name"])
            steps.append(t)
    return steps


def _into_more_shards(result: RaceResult, step) -> bool:
    """Whether a step writes into a destination with another shard count: its own ``dest-shards``, or the
    ``number-of-shards`` of the recreate task that makes its destination just before it in the schedule."""
    made_by = None
    for t in result.schedule:
        if t.operation.get("name") == step.operation.get("name"):
            return step.param("dest-shards") is not None or (made_by is not None and made_by.param("number-of-shards") is not None)
        if t.operation_type == "recreate-index":
            made_by = t
    return False


def runs(entries: list[dict]) -> list[list[dict]]:
    """Group one step's client records into runs: a record starting after every record so far has ended opens a new run."""
    grouped: list[list[dict]] = []
    end = None
    for e in sorted(entries, key=lambda e: e["started_at"]):
        if end is None or e["started_at"] > end:
            grouped.append([])
            end = e["ended_at"]
        grouped[-1].append(e)
        end = max(end, e["ended_at"])
    return grouped


def scale_out_rows(result: RaceResult) -> list[dict]:
    out = []
    for step in scale_out_steps(result):
        name = step.operation["name"]
        mine = [s for s in result.runner_stats if s.get("task") == name and "started_at" in s and "error" not in s]
        errors = [s for s in result.runner_stats if s.get("task") == name and "error" in s]
        if not mine and not errors:
            continue
        spans = [(max(e["ended_at"] for e in run) - min(e["started_at"] for e in run), run) for run in runs(mine)]
        best = min(spans, key=lambda s: s[0]) if spans else None
        run = best[1] if best else []
        out.append({"task": name, "label": _meta(step).get("label", name), "published": _meta(step).get("study-row"),
                    "drivers": len({e.get("load_driver", e.get("driver_host")) for e in run}) or None, "clients": len(run) or None,
                    "runs": len(spans), "span_s": best[0] if best else None, "docs": sum(e["docs"] for e in run) if run else None,
                    "errors": len(errors), "one_tool_raw": step.clients == 1 and bool(step.param("raw")),
                    "more_shards": _into_more_shards(result, step)})
    return out


def scale_out_lines(result: RaceResult, published: dict) -> list[str]:
    table = scale_out_rows(result)
    if not table:
        return []
    pub = {f["key"]: f.get("seconds") for f in published["figures"]}
    base = table[0] if table[0]["span_s"] else None  # the first step, one tool with parallel bulk, is each side's reference
    pub_base = pub.get(table[0]["published"])
    lines = ["### Scale-out: one tool vs. one tool per node (fastest run each)", "",
             "| step | load-driver hosts | clients | runs | docs | this machine: fastest | speed vs. one tool, parallel bulk "
             "| published | speed vs. parallel bulk |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in table:
        p = pub.get(r["published"]) if r["published"] else None
        lines.append(f"| {r['label']} | {fmt(r['drivers'], 'd')} | {fmt(r['clients'], 'd')} | {r['runs']} | {fmt(r['docs'], ',')} "
                     f"| {fmt(r['span_s'], ',.2f', ' s')} | {fmt(ratio(base['span_s'] if base else None, r['span_s']), ',.2f', '×')} "
                     f"| {fmt(p, ',', ' s')} | {fmt(ratio(pub_base, p), ',.2f', '×')} |")
    lines.append("")
    by = {r["published"] or r["task"]: r for r in table if r["span_s"]}
    one = next((r for r in table if r["span_s"] and r["one_tool_raw"]), None)  # one tool, raw: the same copy as one per node
    many = by.get("tool-local")
    remote = next((r for r in table if r["span_s"] and r["more_shards"]), None)
    if one and many:
        lines.append(f"- One tool per node ({many['drivers']} load-driver hosts) vs. one tool on one host, same raw copy: "
                     f"{one['span_s'] / many['span_s']:,.2f}× the speed (published, {pub['tool-sliced']:g} s → {pub['tool-local']:g} s "
                     f"also drops decode and gzip: {pub['tool-sliced'] / pub['tool-local']:,.2f}×).")
    if many and remote:
        lines.append(f"- Local primaries → an index with twice the shards: {remote['span_s'] / many['span_s']:,.2f}× the time here. "
                     f"The study's {pub['tool-local-to-remote']:g} s run made another change, the same shards moved to other nodes by reroute "
                     f"({pub['tool-local-to-remote']} s / {pub['tool-local']} s = {pub['tool-local-to-remote'] / pub['tool-local']:,.2f}× there), "
                     "so the two are not set side by side.")
    if many:
        lines += reindex_vs_tool_per_node(result, many, published)
    if one and many:
        from ingestlab.models import usl
        from ingestlab.report import cost

        docs = many["docs"]
        here = [(1, docs / one["span_s"]), (many["drivers"], docs / many["span_s"])]
        there = [(1, published["documents"] / pub["tool-sliced"]), (8, published["documents"] / pub["tool-local"])]
        lines += cost.usl_lines("Load drivers (one tool vs. one tool per node)", *usl.try_fit(here)[:1], *usl.try_fit(there)[:1],
                                usl.try_fit(here)[1], usl.try_fit(there)[1])
    failed = [r for r in table if r["errors"]]
    if failed:
        lines.append("- Failed calls: " + ", ".join(f"{r['task']} ({r['errors']})" for r in failed) + "; see the INVALID lines below.")
    lines.append("- A run's time is the span from its first client's start to its last client's end (wall clocks of "
                 "the load-driver hosts); each run writes into a fresh destination whose count is checked afterwards.")
    return lines


def reindex_fastest(result: RaceResult) -> dict[str, float]:
    """The fastest run (s) of ``_reindex`` without slices (any scroll size: the best of them, as the study took) and
    with ``slices=auto``, from the runs the reindex-api runner recorded."""
    out: dict[str, float] = {}
    for t in method_tasks(result):
        if t.operation_type != "reindex-api":
            continue
        key = "slices=auto" if str(t.param("slices")) == "auto" else "no slices" if str(t.param("slices", 1)) == "1" else None
        times = [s["elapsed_s"] for s in result.runner_stats if s.get("task") == t.name and "error" not in s and "elapsed_s" in s]
        if key and times:
            out[key] = min(out.get(key, times[0]), *times)
    return out


def reindex_vs_tool_per_node(result: RaceResult, many: dict, published: dict) -> list[str]:
    """The study's headline made its way: one tool per node against ``_reindex`` without slices (5.0.0-alpha4 had
    none), and against ``slices=auto`` (newer than the article), as speed ratios."""
    fastest = reindex_fastest(result)
    if not fastest:
        return []
    pub = {f["key"]: f for f in published["figures"]}
    best_api = min(f["seconds"] for f in published["figures"] if f["kind"] == "reindex-api")
    line = (f"- One tool per node ({many['drivers']} nodes) against `_reindex`: "
            + "; ".join(f"{fastest[k] / many['span_s']:,.2f}× the speed of {k} ({fastest[k]:,.1f} s)" for k in ("no slices", "slices=auto")
                        if k in fastest)
            + f". Published: {best_api / pub['tool-local']['seconds']:,.1f}× ({best_api:g} s without slices → {pub['tool-local']['seconds']:g} s, "
            f"8 nodes); slices=auto is newer than the article.")
    return [line]


class Wikipedia(Study):
    name = "wikipedia"
    title = "Reindexing Wikipedia: _reindex API vs. sliced scroll + parallel bulk"
    published = "wikipedia"
    small_params = {"wiki_pages": 5000, "source_shards": 2}
    # the article's document count, 16 primaries and _reindex scroll-size sweep (a scroll page of up to 500,000 documents
    # needs index.max_result_window raised and a heap that holds such a page and its bulk), one run per method
    full_size = {"wiki_pages": 2_050_717, "source_shards": 16, "reindex_scroll_sizes": [1000, 10000, 100000, 300000, 500000],
                 "max_result_window": 500_000, "repetitions": 1}
    full_size_heap = "8g"
    # Elasticsearch 7.9+ refuses a bulk whose bytes pass indexing pressure's limit (10 % of the heap): a 300,000-page
    # batch of _reindex is ~790 MB. The article's 5.0 had no such limit; its sweep runs with the limit raised.
    full_size_settings = {"indexing_pressure.memory.limit": "50%"}

    def markdown(self, result: RaceResult, published: dict, load_side: dict | None = None) -> str:
        rows = method_rows(result)
        api = [r for r in rows if r["api"] and r["docs_per_s"]]
        best_api = max(api, key=lambda r: r["docs_per_s"]) if api else None
        pub_api = [f for f in published["figures"] if f["kind"] == "reindex-api"]
        best_pub_api = min(f["seconds"] for f in pub_api)
        pub = {f["key"]: f for f in published["figures"]}
        docs = next((r["docs"] for r in rows + scale_out_rows(result) if r["docs"]), None)
        lines = [f"## wikipedia: reindexing {fmt(docs, ',')} pages — fastest of the runs" + (" (test mode)" if result.test_mode else ""), ""]
        if best_api:
            rate_there = published["documents"] / best_pub_api
            r = best_api["docs_per_s"] / rate_there
            lines += [f"Against the article's 8 nodes: the best `_reindex` copies {fmt(best_api['docs_per_s'], ',.0f')} docs/s here, "
                      f"{max(r, 1 / r):,.1f}× {'more' if r >= 1 else 'less'} than the article's {rate_there:,.0f} docs/s "
                      f"({published['documents']:,} docs in {best_pub_api:g} s); the tool's gain over `_reindex` came there from "
                      f"one tool per node on 8 machines, which this one machine cannot give.", ""]
        scale_out = scale_out_lines(result, published)
        if rows or not scale_out:
            lines += ["| method | this machine: fastest | docs/s | MB/s of _source | speed vs. best _reindex | client CPU µs/doc | published | speed vs. best _reindex |",
                      "|---|---:|---:|---:|---:|---:|---:|---:|"]
            for r in rows:
                p = pub.get(r["study_row"]) if r["study_row"] else None
                if r.get("unavailable"):
                    lines.append(f"| {r['label']} | not available on this distribution (Elasticsearch {result.es_version} "
                                 f"without the reindex module) | | | | | {fmt(p['seconds'] if p else None, ',', ' s')} | |")
                    continue
                lines.append(f"| {r['label']} | {fmt(r['fastest_s'], ',.2f', ' s')} | {fmt(r['docs_per_s'], ',.0f')} | {fmt(r['mb_per_s'], ',.1f')} "
                             f"| {fmt(ratio(r['docs_per_s'], best_api['docs_per_s'] if best_api else None), ',.2f', '×')} "
                             f"| {_cpu(r['cpu_us_per_doc'])} | {fmt(p['seconds'] if p else None, ',', ' s')} "
                             f"| {fmt(best_pub_api / p['seconds'] if p else None, ',.2f', '×')} |")
            lines += ["", "Published `_reindex` sweep (scroll size → best time): "
                      + ", ".join(f"{f['label'].rsplit(' ', 1)[1]} → {f['seconds']} s" for f in pub_api) + f"; best {best_pub_api} s.", ""]
        lines += scale_out
        tools = [r for r in rows if not r["api"] and r["docs_per_s"]]
        if tools and best_api:
            best_tool = max(tools, key=lambda r: r["docs_per_s"])
            lines.append(f"- Custom ÷ `_reindex` throughput: best tool ({best_tool['task']}) {best_tool['docs_per_s'] / best_api['docs_per_s']:,.2f}× "
                         f"the best `_reindex` ({best_api['task']}) here; published {best_pub_api / pub['tool-local']['seconds']:,.1f}× "
                         f"(best `_reindex` {best_pub_api} s → {pub['tool-local']['seconds']} s with one tool per node; {published['hardware']}).")
        local = [r for r in rows if r.get("local_same_shards")]  # the same copy, local primaries, with and without decoding
        raw = next((r for r in local if r["raw"]), None)
        dec = next((r for r in local if not r["raw"]), None)
        if raw and dec and raw["cpu_us_per_doc"] and dec["cpu_us_per_doc"]:
            prof = published.get("profiling", {}).get("seconds") or []
            lines.append(f"- Client CPU per document: decode {dec['cpu_us_per_doc']:,.0f} µs, raw {raw['cpu_us_per_doc']:,.0f} µs: "
                         f"raw needs {dec['cpu_us_per_doc'] / raw['cpu_us_per_doc']:,.1f}× less. The study profiled decode/encode and gzip "
                         f"apart, on a development machine, not in its {pub['tool-local']['seconds']} s run: " + " s → ".join(f"{x:,}" for x in prof) + " s.")
        drivers, nodes = result.tags.get("load-driver-hosts"), int(result.tags.get("nodes") or 1)
        where = (f"{drivers} test hosts (network namespaces of this one machine, sharing its cores), one node and one Rally "
                 f"load driver on each" if drivers else
                 f"{nodes} nodes on this one machine, sharing its cores with the load driver; the local-primaries rows copy the "
                 f"primaries of the node the client talks to" if nodes > 1 else
                 "one node, so every shard is local and the load driver shares its cores")
        others = [f for f in published["figures"] if f["kind"] == "other-setup"]
        if others:
            lines.append("- Published on other setups (not compared here): " + "; ".join(
                f"{f['label']}: {f['seconds'] if 'seconds' in f else '–'.join(map(str, f['seconds_range']))} s" for f in others) + ".")
        lines += [f"- {this_machine(result)}; {where}.",
                  f"- Published: Elasticsearch {published['elasticsearch']}, {published['hardware']}, {published['documents']:,} docs / {published['data_gb']} GB.",
                  "- Every run recreates the destination and checks its count equals the source's afterwards."]
        lines += invalid_lines(result)
        if load_side:
            lines.append(f"- Converter alone: MediaWiki XML → corpus at {load_side['mb_per_s']:,.1f} MB/s on one core "
                         f"({load_side['pages_per_s']:,.0f} pages/s; from .bz2 {load_side['mb_per_s_from_bz2']:,.1f} MB/s).")
        return "\n".join(lines) + "\n"

    def charts(self, result: RaceResult, published: dict) -> list:
        """Each method's speed relative to the best _reindex, and each scale-out step's relative to one tool with
        parallel bulk: this machine beside the published study."""
        from ingestlab.report import plot

        pub = {f["key"]: f.get("seconds") for f in published["figures"]}
        out = []
        rows = method_rows(result)
        rows = [r for r in rows if not r.get("unavailable")]
        if rows:
            best = max((r["docs_per_s"] for r in rows if r["api"] and r["docs_per_s"]), default=None)
            pub_best = min(f["seconds"] for f in published["figures"] if f["kind"] == "reindex-api")
            out.append(("Reindex methods", plot.paired_bars(
                [r["label"] for r in rows], [ratio(r["docs_per_s"], best) for r in rows],
                [ratio(pub_best, pub.get(r["study_row"])) for r in rows], ylabel="speed ÷ best _reindex of the same side",
                title="wikipedia: reindex methods", result=result, published=published, horizontal=True, height=5.2, reference=1.0)))
        table = [r for r in scale_out_rows(result) if r["span_s"]]
        if table and table[0]["task"] == scale_out_steps(result)[0].operation["name"]:
            out.append(("Scale-out: one tool vs. one tool per node", plot.paired_bars(
                [f"{r['label']} ({r['drivers']} host{'s' if r['drivers'] != 1 else ''})" for r in table],
                [table[0]["span_s"] / r["span_s"] for r in table], [ratio(pub.get(table[0]["published"]), pub.get(r["published"])) for r in table],
                ylabel="speed ÷ one tool with parallel bulk, same side", title="wikipedia: one tool vs. one tool per node",
                result=result, published=published, horizontal=True, height=4.2, reference=1.0)))
        return out

    def load_bench(self) -> dict:
        return loadbench.wikipedia()

    def headlines(self, result: RaceResult, published: dict) -> list[Headline]:
        rows = method_rows(result)
        best_api = max((r["docs_per_s"] for r in rows if r["api"] and r["docs_per_s"]), default=None)
        best_tool = max((r["docs_per_s"] for r in rows if not r["api"] and r["docs_per_s"]), default=None)
        pub_best = min(f["seconds"] for f in published["figures"] if f["kind"] == "reindex-api")
        note = "no _reindex on this distribution" if any(r.get("unavailable") for r in rows) else None
        pub_local = next(f["seconds"] for f in published["figures"] if f["key"] == "tool-local")
        return [Headline("tool-over-reindex", "best tool ÷ best _reindex (speed)", ratio(best_tool, best_api), pub_best / pub_local, note)]


STUDY = Wikipedia()
