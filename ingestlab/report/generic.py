"""The report of any stored race, whoever ran it (the pack, or plain ``esrally``): throughput and latency per
task as tables and charts, with the versions Rally recorded. Nothing here knows a study."""

from __future__ import annotations

from ingestlab.rally.results import RaceResult
from ingestlab.report.common import corpus_words, engine_name, fmt, invalid_lines, limit_lines, load_generator, machine_line


def markdown(result: RaceResult) -> str:
    race, cluster = result.race, result.cluster
    lines = [
        f"# Race {result.race_id}: {race.get('track')}",
        "",
        f"- Challenge `{race.get('challenge')}`, pipeline {race.get('pipeline')}"
        + (", test mode" if result.test_mode else "")
        + f", {race.get('race-timestamp')}.",
        f"- Track parameters: {race.get('track-params') or 'none'}; user tags: {result.tags or 'none'}.",
        *([f"- Corpus: {corpus_words(race)}."] if corpus_words(race) else []),
        f"- {engine_name(race)} {cluster.get('distribution-version')} ({cluster.get('distribution-flavor')}), "
        + (f"{len(cluster['nodes'])} node(s)" if cluster.get("nodes") else "nodes not recorded in race.json")
        + f"; {load_generator(race)}.",
        f"- Reported on: {machine_line(result)} (race.json does not record the load-driver machine).",
        "",
        "| task | throughput median | min | max | unit | error rate | service time p50 ms | p90 | p99 | max | latency p50 ms | p99 |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t in result.tasks.items():
        s, lat = t.service_time_ms, t.latency_ms
        lines.append(
            f"| {name} | {fmt(t.throughput_median, ',.1f')} | {fmt(t.throughput_min, ',.1f')} | {fmt(t.throughput_max, ',.1f')} "
            f"| {t.unit or ''} | {t.error_rate:.1%} | {fmt(s.get('p50'), ',.1f')} | {fmt(s.get('p90'), ',.1f')} "
            f"| {fmt(s.get('p99'), ',.1f')} | {fmt(s.get('p100'), ',.1f')} | {fmt(lat.get('p50'), ',.1f')} "
            f"| {fmt(lat.get('p99'), ',.1f')} |"
        )
    lines += ["", "A dash: Rally recorded no such figure (too few samples for a percentile, or none outside the warm-up)."]
    lines += invalid_lines(result)
    return "\n".join(lines) + "\n" + limit_lines(result)


def charts(result: RaceResult) -> list:
    from ingestlab.report import plot  # heavy: matplotlib, only when drawing charts

    here = plot.here_line(result)
    out = []
    by_unit: dict[str, list] = {}
    for name, t in result.tasks.items():
        by_unit.setdefault(t.unit or "", []).append((name, t))
    for unit, tasks in by_unit.items():
        image = plot.grouped_bars(
            [n for n, _ in tasks],
            {"median": [t.throughput_median for _, t in tasks], "max": [t.throughput_max for _, t in tasks]},
            ylabel=f"throughput ({unit})",
            title=f"race {result.race_id[:8]}: throughput ({unit})",
            caption_here=here,
            caption_published=None,
        )
        out.append((f"Throughput per task ({unit})", image))
    names = list(result.tasks)
    image = plot.grouped_bars(
        names,
        {p: [result.tasks[n].service_time(p) for n in names] for p in ("p50", "p90", "p99")},
        ylabel="ms",
        logy=True,
        title=f"race {result.race_id[:8]}: service time",
        caption_here=here,
        caption_published=None,
    )
    out.append(("Service time per task", image))
    return out
