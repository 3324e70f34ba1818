"""Study 4's scale-out steps (challenge ``scale-out``): one tool vs. one tool per node, a run being the span from its
first client's start to its last client's end, beside the study's rows; and one tool per node against ``_reindex``.
"""

from __future__ import annotations

from ingestlab.rally.results import RaceResult
from ingestlab.report.common import fmt, ratio


def _meta(task) -> dict:
    return task.operation.get("meta") or {}


def scale_out_steps(result: RaceResult) -> list:
    """The scale-out operations in schedule order (each step once): clients write into a shared destination."""
    steps = {}
    for t in result.schedule:
        if t.operation_type == "sliced-scroll-reindex" and t.param("dest") == "existing":
            steps.setdefault(t.operation["name"], t)
    return list(steps.values())


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
        span, run = min(spans, key=lambda s: s[0]) if spans else (None, [])
        out.append(
            {
                "task": name,
                "label": _meta(step).get("label", name),
                "published": _meta(step).get("study-row"),
                "drivers": len({e.get("load_driver", e.get("driver_host")) for e in run}) or None,
                "clients": len(run) or None,
                "runs": len(spans),
                "span_s": span,
                "docs": sum(e["docs"] for e in run) if run else None,
                "errors": len(errors),
                "one_tool_raw": step.clients == 1 and bool(step.param("raw")),
                "more_shards": _into_more_shards(result, step),
            }
        )
    return out


def scale_out_lines(result: RaceResult, published: dict) -> list[str]:
    table = scale_out_rows(result)
    if not table:
        return []
    pub = {f["key"]: f.get("seconds") for f in published["figures"]}
    base = table[0] if table[0]["span_s"] else None  # the first step, one tool with parallel bulk, is each side's reference
    pub_base = pub.get(table[0]["published"])
    lines = [
        "### Scale-out: one tool vs. one tool per node (fastest run each)",
        "",
        "| step | load-driver hosts | clients | runs | docs | this machine: fastest | speed vs. one tool, parallel bulk "
        "| published | speed vs. parallel bulk |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in table:
        p = pub.get(r["published"]) if r["published"] else None
        lines.append(
            f"| {r['label']} | {fmt(r['drivers'], 'd')} | {fmt(r['clients'], 'd')} | {r['runs']} | {fmt(r['docs'], ',')} "
            f"| {fmt(r['span_s'], ',.2f', ' s')} | {fmt(ratio(base['span_s'] if base else None, r['span_s']), ',.2f', '×')} "
            f"| {fmt(p, ',', ' s')} | {fmt(ratio(pub_base, p), ',.2f', '×')} |"
        )
    lines.append("")
    by = {r["published"] or r["task"]: r for r in table if r["span_s"]}
    one = next((r for r in table if r["span_s"] and r["one_tool_raw"]), None)  # one tool, raw: the same copy as one per node
    many = by.get("tool-local")
    remote = next((r for r in table if r["span_s"] and r["more_shards"]), None)
    if one and many:
        lines.append(
            f"- One tool per node ({many['drivers']} load-driver hosts) vs. one tool on one host, same raw copy: "
            f"{one['span_s'] / many['span_s']:,.2f}× the speed (published, {pub['tool-sliced']:g} s → {pub['tool-local']:g} s "
            f"on 8 nodes: {pub['tool-sliced'] / pub['tool-local']:,.2f}×, both runs decoding and gzipping)."
        )
    if many and remote:
        lines.append(
            f"- Local primaries → an index with twice the shards: {remote['span_s'] / many['span_s']:,.2f}× the time here. "
            f"The study's {pub['tool-local-to-remote']:g} s run made another change, the same shards moved to other nodes by reroute "
            f"({pub['tool-local-to-remote']} s / {pub['tool-local']} s = {pub['tool-local-to-remote'] / pub['tool-local']:,.2f}× there), "
            "so the two are not set side by side."
        )
    if many:
        lines += reindex_vs_tool_per_node(result, many, published)
    if one and many:
        from ingestlab.models import usl  # the cost models (scipy loads where one is fitted)
        from ingestlab.report import cost  # the cost models (scipy loads where one is fitted)

        docs = many["docs"]
        here = [(1, docs / one["span_s"]), (many["drivers"], docs / many["span_s"])]
        there = [(1, published["documents"] / pub["tool-sliced"]), (8, published["documents"] / pub["tool-local"])]
        (here_fit, why_here), (there_fit, why_there) = usl.try_fit(here), usl.try_fit(there)
        lines += cost.usl_lines("Load drivers (one tool vs. one tool per node)", here_fit, there_fit, why_here, why_there)
    failed = [r for r in table if r["errors"]]
    if failed:
        lines.append("- Failed calls: " + ", ".join(f"{r['task']} ({r['errors']})" for r in failed) + "; see the INVALID lines below.")
    lines.append(
        "- A run's time is the span from its first client's start to its last client's end (wall clocks of "
        "the load-driver hosts); each run writes into a fresh destination whose count is checked afterwards."
    )
    return lines


def reindex_fastest(result: RaceResult) -> dict[str, float]:
    """The fastest run (s) of ``_reindex`` without slices (any scroll size: the best of them, as the study took) and
    with ``slices=auto``, from the runs the reindex-api runner recorded."""
    out: dict[str, float] = {}
    for t in result.schedule:
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
    line = (
        f"- One tool per node ({many['drivers']} nodes) against `_reindex`: "
        + "; ".join(
            f"{fastest[k] / many['span_s']:,.2f}× the speed of {k} ({fastest[k]:,.1f} s)"
            for k in ("no slices", "slices=auto")
            if k in fastest
        )
        + f". Published: {best_api / pub['tool-local']['seconds']:,.1f}× "
        f"({best_api:g} s without slices → {pub['tool-local']['seconds']:g} s, "
        f"8 nodes); slices=auto is newer than the article."
    )
    return [line]
