"""The bulk-vs-single table: this machine's fastest runs beside the published figures."""
from __future__ import annotations

from ingestlab.rally.results import task_results
from ingestlab.report.common import fmt, invalid_lines, is_test_mode, this_machine


def corpus_size(race: dict) -> int:
    docs = int(race.get("track-params", {}).get("posts_docs", 10000))
    return min(docs, 1000) if is_test_mode(race) else docs


def repetitions(race: dict) -> int:
    """Test mode runs each task once."""
    return 1 if is_test_mode(race) else int(race.get("track-params", {}).get("repetitions", 10))


def rows(race: dict, published: dict) -> list[dict]:
    measured = task_results(race)
    docs = corpus_size(race)
    figures = {f["task"]: f for f in published["figures"]}
    order = [f["task"] for f in published["figures"]] + sorted(t for t in measured if t not in figures)
    base = measured.get("index-api")
    base_ms = docs / base.throughput_max * 1000 if base and base.throughput_max else None
    pub_base = figures.get("index-api", {}).get("elapsed_ms")
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


def markdown(race: dict, published: dict, machine_line: str, load_side: dict | None = None) -> str:
    docs = corpus_size(race)
    table = rows(race, published)
    runs = repetitions(race)
    lines = [
        f"## posts: bulk vs. single index API ({docs:,} docs, fastest of {runs} runs)",
        "",
        "| configuration | this machine: fastest run | docs/s (fastest) | docs/s (median) | speed-up vs. index API "
        "| published: elapsed | docs/s | speed-up |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in table:
        lines.append(
            f"| {r['label']} | {fmt(r.get('measured_ms'), ',.1f', ' ms')} | {fmt(r.get('measured_docs_s'), ',.0f')} "
            f"| {fmt(r.get('median_docs_s'), ',.0f')} | {fmt(r.get('speedup'), '.1f', '×')} "
            f"| {fmt(r.get('published_ms'), ',', ' ms')} | {fmt(r.get('published_docs_s'), ',.0f')} | {fmt(r.get('published_speedup'), '.1f', '×')} |"
        )
    lines += [
        "",
        f"- {this_machine(race, machine_line)}.",
        f"- Published: Elasticsearch {published['elasticsearch']}, {published['client']}, {published['hardware']}, "
        f"{published['documents']:,} docs, {published['method']}.",
        "- Absolute times depend on hardware; compare the speed-up columns.",
    ]
    lines += invalid_lines(race)
    if load_side:
        best = max((r.get("measured_docs_s") or 0) for r in table)
        ratio = load_side["docs_per_s"] / best if best else None
        lines.append(
            f"- Load side alone (one core, no cluster): request bodies prepared at {load_side['docs_per_s']:,.0f} docs/s "
            f"({load_side['mb_per_s']:,.1f} MB/s) = {fmt(ratio, '.0f', '×')} the fastest ingest rate above; "
            f"corpus generated at {load_side['generator_docs_per_s']:,.0f} docs/s ({load_side['generator_mb_per_s']:,.1f} MB/s)."
        )
    return "\n".join(lines) + "\n"


def charts(race: dict, published: dict, machine_line: str, stats=None) -> list[tuple[str, bytes]]:
    """Speed-up over the index API per configuration: this machine and the published study."""
    from ingestlab.report import plot

    table = [r for r in rows(race, published) if r.get("speedup") or r.get("published_speedup")]
    fig, ax = plot.new_figure()
    x = range(len(table))
    ax.bar([i - 0.2 for i in x], [r.get("speedup") or 0 for r in table], 0.4, label="this machine", color=plot.HERE)
    ax.bar([i + 0.2 for i in x], [r.get("published_speedup") or 0 for r in table], 0.4, label="published", color=plot.PUBLISHED)
    ax.set_xticks(list(x), [r["label"].replace(", one doc per request", "") for r in table], rotation=15)
    ax.set_ylabel("speed-up over the index API (×)")
    ax.set_title(f"posts: bulk size vs. single index API ({corpus_size(race):,} docs)")
    ax.legend()
    plot.caption(fig, plot.here_line(race, machine_line), plot.published_line(published))
    return [("Speed-up over the index API", plot.png(fig))]
