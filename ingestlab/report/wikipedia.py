"""The reindex study's report: every method's fastest run on this machine beside the published table,
each side as a ratio to its own best ``_reindex`` time, plus client CPU per document (raw vs. decode)."""
from __future__ import annotations

from statistics import median

from ingestlab.rally import results
from ingestlab.report import wikipedia_scale_out
from ingestlab.report.common import fmt, invalid_lines, is_test_mode, this_machine

LABELS = {
    "reindex-api-slices-auto": "_reindex API, slices=auto",
    "tool-1-slice-1-worker": "tool: 1 scroll reader, 1 bulk writer (decode, gzip)",
    "tool-1-slice-parallel-bulk": "tool: 1 scroll reader, parallel bulk writers (decode, gzip)",
    "tool-sliced": "tool: sliced scroll, one slice per primary (decode, gzip)",
    "tool-sliced-local-decode": "tool: sliced, local primaries (decode, no gzip)",
    "tool-sliced-local-raw": "tool: sliced, local primaries, raw _source bytes (no decode, no gzip)",
    "tool-sliced-local-raw-to-remote": "tool: as above, into an index with more shards",
}


def label(task: str) -> str:
    if task.startswith("reindex-api-scroll-"):
        return f"_reindex API, scroll size {task.rsplit('-', 1)[1]}"
    return LABELS.get(task, task)


def runner_stats(race: dict) -> list[dict]:
    from ingestlab.rally.race import runner_stats_file
    from ingestlab.runners.runner_stats import read

    return read(runner_stats_file(race["race-id"]))


def method_rows(race: dict, stats: list[dict] | None = None) -> list[dict]:
    """One row per reindex task: fastest run (s), docs/s, MB/s and client CPU per doc (from the runner stats)."""
    stats = runner_stats(race) if stats is None else stats
    rows = []
    for task, r in results.task_results(race).items():
        if not task.startswith(("reindex-api", "tool-")):
            continue
        mine = [s for s in stats if s.get("task") == task and "error" not in s]  # runs that completed
        docs = mine[0]["docs"] if mine else None
        fastest = min((s["elapsed_s"] for s in mine), default=None)
        cpu = median(s["client_cpu_s"] / s["docs"] * 1e6 for s in mine) if mine else None
        mb = max((s["source_bytes"] / s["elapsed_s"] / 1e6 for s in mine if "source_bytes" in s), default=None)
        rows.append({"task": task, "label": label(task), "docs_per_s": r.throughput_max, "fastest_s": fastest, "docs": docs,
                     "mb_per_s": mb, "cpu_us_per_doc": cpu, "error_rate": r.error_rate})
    return rows


def markdown(race: dict, published: dict, machine_line: str, load_side: dict | None = None, stats: list[dict] | None = None) -> str:
    stats = runner_stats(race) if stats is None else stats
    rows = method_rows(race, stats)
    api = [r for r in rows if r["task"].startswith("reindex-api") and r["docs_per_s"]]
    best_api = max(api, key=lambda r: r["docs_per_s"]) if api else None
    pub_api = [f for f in published["figures"] if f["kind"] == "reindex-api"]
    best_pub_api = min(f["seconds"] for f in pub_api)
    by_task = {f.get("task"): f for f in published["figures"] if f.get("task")}
    docs = next((r["docs"] for r in rows + wikipedia_scale_out.rows(stats) if r["docs"]), None)
    lines = [f"## wikipedia: reindexing {fmt(docs, ',')} pages — fastest of the runs" + (" (test mode)" if is_test_mode(race) else ""), ""]
    scale_out = wikipedia_scale_out.markdown_lines(stats, published)
    if rows or not scale_out:
        lines += ["| method | this machine: fastest | docs/s | MB/s of _source | speed vs. best _reindex | client CPU µs/doc | published | speed vs. best _reindex |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in rows:
            speed = r["docs_per_s"] / best_api["docs_per_s"] if best_api and r["docs_per_s"] else None
            pub = by_task.get(r["task"])
            lines.append(
                f"| {r['label']} | {fmt(r['fastest_s'], ',.2f', ' s')} | {fmt(r['docs_per_s'], ',.0f')} | {fmt(r['mb_per_s'], ',.1f')} "
                f"| {fmt(speed, ',.2f', '×')} | {fmt(r['cpu_us_per_doc'], ',.0f')} | {fmt(pub['seconds'] if pub else None, ',', ' s')} "
                f"| {fmt(best_pub_api / pub['seconds'] if pub else None, ',.2f', '×')} |"
            )
        lines += ["", "Published `_reindex` sweep (scroll size → best time): "
                  + ", ".join(f"{f['label'].rsplit(' ', 1)[1]} → {f['seconds']} s" for f in pub_api) + f"; best {best_pub_api} s.",
                  ""]
    lines += scale_out
    tools = [r for r in rows if r["task"].startswith("tool-") and r["docs_per_s"]]
    if tools and best_api:
        best_tool = max(tools, key=lambda r: r["docs_per_s"])
        lines.append(f"- Custom ÷ `_reindex` throughput: best tool ({best_tool['task']}) {best_tool['docs_per_s'] / best_api['docs_per_s']:,.2f}× "
                     f"the best `_reindex` ({best_api['task']}); published {best_pub_api / 21:,.1f}× (248 s → 21 s, on 8 nodes).")
    raw = next((r for r in rows if r["task"] == "tool-sliced-local-raw"), None)
    dec = next((r for r in rows if r["task"] == "tool-sliced-local-decode"), None)
    if raw and dec and raw["cpu_us_per_doc"] and dec["cpu_us_per_doc"]:
        lines.append(f"- Client CPU per document: decode {dec['cpu_us_per_doc']:,.0f} µs, raw {raw['cpu_us_per_doc']:,.0f} µs: "
                     f"raw needs {dec['cpu_us_per_doc'] / raw['cpu_us_per_doc']:,.1f}× less (the study: decode/encode and gzip cost ~6×).")
    drivers = race.get("user-tags", {}).get("load-driver-hosts")
    where = (f"{drivers} test hosts (network namespaces of this one machine, sharing its cores), one node and one Rally "
             f"load driver on each" if drivers else "one node, so every shard is local and the load driver shares its cores")
    lines += [
        f"- {this_machine(race, machine_line)}; {where}.",
        f"- Published: Elasticsearch {published['elasticsearch']}, {published['hardware']}, {published['documents']:,} docs / {published['data_gb']} GB.",
        "- Every run recreates the destination and checks its count equals the source's afterwards.",
    ]
    lines += invalid_lines(race, stats)
    if load_side:
        lines.append(f"- Converter alone: MediaWiki XML → corpus at {load_side['mb_per_s']:,.1f} MB/s on one core "
                     f"({load_side['pages_per_s']:,.0f} pages/s; from .bz2 {load_side['mb_per_s_from_bz2']:,.1f} MB/s).")
    return "\n".join(lines) + "\n"


def charts(race: dict, published: dict, machine_line: str, stats=None) -> list[tuple[str, bytes]]:
    """Each method's speed relative to the best _reindex: this machine beside the published study."""
    from ingestlab.report import plot

    rows = method_rows(race, stats)
    scale_out = wikipedia_scale_out.chart(race, published, machine_line, runner_stats(race) if stats is None else stats)
    if scale_out and not rows:
        return [scale_out]
    api = [r["docs_per_s"] for r in rows if r["task"].startswith("reindex-api") and r["docs_per_s"]]
    best = max(api) if api else None
    pub_best = min(f["seconds"] for f in published["figures"] if f["kind"] == "reindex-api")
    by_task = {f.get("task"): f for f in published["figures"] if f.get("task")}
    image = plot.ratio_bars(
        [r["label"] for r in rows],
        [(r["docs_per_s"] or 0) / best if best else 0 for r in rows],
        [pub_best / by_task[r["task"]]["seconds"] if r["task"] in by_task else 0 for r in rows],
        xlabel="speed ÷ best _reindex of the same side", title="wikipedia: reindex methods",
        race=race, machine_line=machine_line, published=published)
    return [("Reindex methods", image)] + ([scale_out] if scale_out else [])
