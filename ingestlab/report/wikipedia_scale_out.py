"""The reindex study's scale-out rows: one tool (one Rally client on one load-driver host) against one tool
per node (a client on every host, each copying its own node's primaries), beside the study's
83 → 66 → 21 → 24 s, as ratios to each side's own parallel-bulk run since the hardware differs.

A run of a multi-client task is the span from its first client's start to its last client's end, from
the wall-clock times the runner records; the clients of one run overlap, runs of a task never do.
"""
from __future__ import annotations

from ingestlab.report.common import fmt

PREFIX = "scale-out-"
BASELINE = "scale-out-parallel-bulk"
STEPS = {  # task -> (label, the published row it stands beside)
    "scale-out-parallel-bulk": ("one tool: 1 scroll reader, parallel bulk (decode, gzip)", "tool-parallel-bulk"),
    "scale-out-sliced": ("one tool: sliced scroll, all primaries (decode, gzip)", "tool-sliced"),
    "scale-out-sliced-raw": ("one tool: sliced scroll, all primaries, raw (no decode, no gzip)", None),
    "scale-out-local": ("one tool per node: its local primaries, raw", "tool-local"),
    "scale-out-local-to-remote": ("one tool per node: local primaries → more shards, raw", "tool-local-to-remote"),
}


def runs(entries: list[dict]) -> list[list[dict]]:
    """Group one task's client records into runs: a record starting after every record so far has ended
    opens a new run."""
    grouped: list[list[dict]] = []
    end = None
    for e in sorted(entries, key=lambda e: e["started_at"]):
        if end is None or e["started_at"] > end:
            grouped.append([])
            end = e["ended_at"]
        grouped[-1].append(e)
        end = max(end, e["ended_at"])
    return grouped


def rows(stats: list[dict]) -> list[dict]:
    out = []
    for task in STEPS:
        mine = [s for s in stats if s.get("task") == task and "started_at" in s and "error" not in s]
        errors = [s for s in stats if s.get("task") == task and "error" in s]
        if not mine and not errors:
            continue
        spans = [(max(e["ended_at"] for e in run) - min(e["started_at"] for e in run), run) for run in runs(mine)]
        best = min(spans, key=lambda s: s[0]) if spans else None
        run = best[1] if best else []
        out.append({
            "task": task, "label": STEPS[task][0], "published": STEPS[task][1],
            "drivers": len({e.get("load_driver", e.get("driver_host")) for e in run}) or None,
            "clients": len(run) or None, "runs": len(spans),
            "span_s": best[0] if best else None, "docs": sum(e["docs"] for e in run) if run else None,
            "errors": len(errors),
        })
    return out


def markdown_lines(stats: list[dict], published: dict) -> list[str]:
    table = rows(stats)
    if not table:
        return []
    pub = {f["key"]: f["seconds"] for f in published["figures"]}
    base = next((r for r in table if r["task"] == BASELINE and r["span_s"]), None)
    pub_base = pub.get(STEPS[BASELINE][1])
    lines = ["### Scale-out: one tool vs. one tool per node (fastest run each)", "",
             "| step | load-driver hosts | clients | runs | docs | this machine: fastest | speed vs. one tool, parallel bulk "
             "| published | speed vs. parallel bulk |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in table:
        speed = base["span_s"] / r["span_s"] if base and r["span_s"] else None
        p = pub.get(r["published"]) if r["published"] else None
        lines.append(f"| {r['label']} | {fmt(r['drivers'], 'd')} | {fmt(r['clients'], 'd')} | {r['runs']} | {fmt(r['docs'], ',')} "
                     f"| {fmt(r['span_s'], ',.2f', ' s')} | {fmt(speed, ',.2f', '×')} | {fmt(p, ',', ' s')} "
                     f"| {fmt(pub_base / p if p and pub_base else None, ',.2f', '×')} |")
    lines.append("")
    by = {r["task"]: r for r in table if r["span_s"]}
    one, many = by.get("scale-out-sliced-raw"), by.get("scale-out-local")
    if one and many:
        lines.append(f"- One tool per node ({many['drivers']} load-driver hosts) vs. one tool on one host, same raw copy: "
                     f"{one['span_s'] / many['span_s']:,.2f}× the speed (published, 66 s → 21 s also drops decode and gzip: "
                     f"{pub['tool-sliced'] / pub['tool-local']:,.2f}×).")
    local, remote = by.get("scale-out-local"), by.get("scale-out-local-to-remote")
    if local and remote:
        lines.append(f"- Local → remote shards: {remote['span_s'] / local['span_s']:,.2f}× the time "
                     f"(published {pub['tool-local-to-remote']} s / {pub['tool-local']} s = {pub['tool-local-to-remote'] / pub['tool-local']:,.2f}×).")
    failed = [r for r in table if r["errors"]]
    if failed:
        lines.append("- Failed calls: " + ", ".join(f"{r['task']} ({r['errors']})" for r in failed) + "; see the INVALID lines below.")
    lines.append("- A run's time is the span from its first client's start to its last client's end (wall clocks of "
                 "the load-driver hosts); each run writes into a fresh destination whose count is checked afterwards.")
    return lines


def chart(race: dict, published: dict, machine_line: str, stats: list[dict]) -> tuple[str, bytes] | None:
    """Each step's speed relative to one tool with parallel bulk: this machine beside the published study."""
    table = [r for r in rows(stats) if r["span_s"]]
    base = next((r for r in table if r["task"] == BASELINE), None)
    if not base:
        return None
    from ingestlab.report import plot

    pub = {f["key"]: f["seconds"] for f in published["figures"]}
    pub_base = pub[STEPS[BASELINE][1]]
    image = plot.ratio_bars(
        [f"{r['label']} ({r['drivers']} host{'s' if r['drivers'] != 1 else ''})" for r in table],
        [base["span_s"] / r["span_s"] for r in table],
        [pub_base / pub[r["published"]] if r["published"] else 0 for r in table],
        xlabel="speed ÷ one tool with parallel bulk, same side", title="wikipedia: one tool vs. one tool per node",
        race=race, machine_line=machine_line, published=published, height=4.2)
    return ("Scale-out: one tool vs. one tool per node", image)
