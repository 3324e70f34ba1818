"""The nightly run: race a set of studies small, keep their figures in a history, compare with the
previous nights (noise margin from the history's own spread) and with the published studies, write
one report, and fail (exit 1) on a regression beyond the margin.

History: an SQLite file, one row per (night, study, task) with Rally's median throughput.
"""
from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from ingestlab import compare, machine, paths, studies

DEFAULT_STUDIES = ("posts", "refresh", "dvf", "wikipedia")
# small sizes: with --test-mode each takes a minute or less
SMALL_PARAMS = {
    "posts": {},
    "refresh": {"doc_counts": [10, 100, 1000], "searchable_intervals_ms": [100, 1000], "searchable_clients": 2},
    "dvf": {"bulk_sizes": [1, 100, 1000], "client_counts": [1, 4], "dvf_rows": 20000},
    "wikipedia": {"wiki_pages": 5000, "source_shards": 2},
}
NIGHTS_COMPARED = 7
NIGHTLY_MIN_MARGIN = 0.10  # test-mode races run each task once: never call less than 10 % a regression
NIGHTLY_DEFAULT_MARGIN = 0.25  # until the history has two nights to measure its spread


def history_path() -> Path:
    return paths.results_dir() / "nightly" / "history.sqlite"


def open_history(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE IF NOT EXISTS figures (night TEXT, study TEXT, task TEXT, value REAL, race_id TEXT, es_version TEXT)")
    return db


def previous(db: sqlite3.Connection, study: str, before: str) -> dict[str, compare.Aggregate]:
    nights = [n for (n,) in db.execute(
        "SELECT DISTINCT night FROM figures WHERE study = ? AND night < ? ORDER BY night DESC LIMIT ?", (study, before, NIGHTS_COMPARED))]
    per_task: dict[str, list[float]] = {}
    for night in nights:
        for task, value in db.execute("SELECT task, value FROM figures WHERE study = ? AND night = ?", (study, night)):
            per_task.setdefault(task, []).append(value)
    return {t: compare.Aggregate.of(v) for t, v in per_task.items()}


def margin_for(history: compare.Aggregate, fixed: float | None) -> float:
    if fixed is not None:
        return fixed
    if history.cv is None:
        return NIGHTLY_DEFAULT_MARGIN
    return max(compare.MARGIN_FACTOR * history.cv, NIGHTLY_MIN_MARGIN)


def regressions(db, study: str, night: str, figures: dict[str, float], margin: float | None) -> list[dict]:
    out = []
    for task, past in previous(db, study, night).items():
        if task in figures:
            m = margin_for(past, margin)
            change = figures[task] / past.median - 1.0
            out.append({"study": study, "task": task, "tonight": figures[task], "history": past, "change": change, "margin": m,
                        "regression": change < -m})
    return out


def run(study_names=DEFAULT_STUDIES, history: Path | None = None, margin: float | None = None, log=print,
        target_hosts: str | None = None, version: str | None = None, client_options: str | None = None) -> int:
    from ingestlab.racing import race_study
    from ingestlab.cluster import distribution, nodes
    from ingestlab.report import html

    night = time.strftime("%Y-%m-%dT%H%M%S")
    db = open_history(history or history_path())
    cluster = None
    if target_hosts is None:
        cluster = nodes.up(nodes=1, version=version or distribution.DEFAULT_VERSION, heap="1g", name="ingestlab-nightly",
                           http_port=39250, transport_port=39350)
        target_hosts = cluster.hosts
    races = {}
    try:
        for name in study_names:
            studies.get(name)
            log(f"[ingestlab] nightly {night}: racing {name} (test mode)")
            races[name] = race_study(name, target_hosts, track_params=SMALL_PARAMS.get(name, {}), tags={"nightly": night}, test_mode=True,
                                     client_options=client_options)
    finally:
        if cluster:
            nodes.stop(cluster, log=log)
    info = machine.describe()
    line = machine.one_line(info)
    sections, charts, found = [], [], []
    for name, race in races.items():
        figures = compare.task_figures(race)
        rows = regressions(db, name, night, figures, margin)
        found += [r for r in rows if r["regression"]]
        study = studies.get(name)
        sections.append(_history_table(name, rows) + "\n" + study.report(race, line, None))
        if study.charts:
            charts += [(f"{name}: {caption}", png) for caption, png in study.charts(race, line)]
        version_ = race.get("cluster", {}).get("distribution-version")
        db.executemany("INSERT INTO figures VALUES (?, ?, ?, ?, ?, ?)",
                       [(night, name, t, v, race["race-id"], version_) for t, v in figures.items()])
    db.commit()
    verdict = (f"**{len(found)} regression(s)** beyond the margin: " + ", ".join(f"{r['study']}/{r['task']} {r['change']:+.0%}" for r in found)
               if found else "No regression beyond the margin.")
    text = f"# ingestlab nightly {night}\n\n{verdict}\n\nThis machine: {line}.\n\n" + "\n".join(sections)
    out = paths.results_dir() / "nightly" / night
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(text)
    (out / "report.html").write_text(html.page(f"ingestlab nightly {night}", text, charts))
    log(text)
    log(f"[ingestlab] nightly report: {out}/report.html; history: {history or history_path()}")
    return 1 if found else 0


def _history_table(study: str, rows: list[dict]) -> str:
    if not rows:
        return f"## {study}: against previous nights\n\nNo previous night in the history yet.\n"
    lines = [f"## {study}: against previous nights", "", "| task | tonight | previous nights: median (n) | change | margin | |",
             "|---|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['task']} | {r['tonight']:,.1f} | {r['history'].median:,.1f} ({r['history'].n}) | {r['change']:+.1%} "
                     f"| ±{r['margin']:.0%} | {'**regression**' if r['regression'] else ''} |")
    return "\n".join(lines) + "\n"
