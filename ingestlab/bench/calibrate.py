"""How often ``compare`` is wrong here: its false-alarm rate on A/A pairs and its detection rate on pairs with a
known, real change, for both of its rules, measured on this machine.

One node (the pack's default version) runs in a cgroup whose CPU quota is ``quota`` cores on side A and 10 % less
on side B: a real change of the node's capacity, nothing simulated. Races of eventdata (``docs`` documents, bulk
1000, 2 clients) alternate A, B, A, B … so that drift over the session falls on both sides alike. From that pool,
``pairs`` A/A pairs are drawn (two disjoint groups of ``size`` A races) and ``pairs`` A/B pairs (``size`` A races
against ``size`` B races), and each is judged by the t rule and by the margin rule, with ``size`` races a side and
with one race a side. A false alarm is an A/A pair called faster or slower; a detection is an A/B pair called slower
(the contender, B, has less CPU). Pairs drawn from one pool share races, so the rates are estimates from subsamples,
each with its count.
"""
from __future__ import annotations

import json
import random
import time
from pathlib import Path

from ingestlab import compare, machine, paths

SHAPE = {"name": "ingestlab-calibrate", "http_port": 29470, "transport_port": 29570, "heap": "1g"}
TASK = "index-append"


def calibration_dir() -> Path:
    return paths.results_dir() / "calibration"


def _node_into_group(cluster, group) -> None:
    for node in cluster.nodes:
        for f in group.procs_files:
            f.write_text(str(node.pid))


def _race(cluster, docs: int, side: str, stamp: str, log) -> dict:
    from ingestlab import racing

    result = racing.race(paths.TRACKS_DIR / "eventdata", racing.Target(hosts=cluster.hosts), racing.Options(
        challenge="append-no-conflicts-index-only", tags={"calibration": stamp, "side": side},
        params={"eventdata_docs": docs, "bulk_indexing_clients": 2, "bulk_size": 1000, "index_name": "calibration"}),
        log=lambda *_: None, stream=False)
    from ingestlab.rally.results import load_race

    return load_race(result.race_id, result.rally_home)[0]  # with the samples kept beside race.json


def judge(base: list[dict], contender: list[dict]) -> dict:
    """Each rule's verdict on the task for these two groups of races."""
    a, b = compare.aggregate(base)[TASK], compare.aggregate(contender)[TASK]
    return {method: compare.difference(TASK, a, b, method=method).verdict for method in compare.METHODS}


def rates(pool_a: list[dict], pool_b: list[dict], pairs: int, size: int, seed: int = 1) -> dict:
    """False-alarm and detection counts of each rule, with ``size`` races a side and with one race a side."""
    rng = random.Random(seed)
    out = {}
    for per_side in sorted({size, 1}):
        counts = {m: {"false_alarms": 0, "detections": 0, "not_enough_aa": 0, "not_enough_ab": 0, "wrong_direction": 0}
                  for m in compare.METHODS}
        for _ in range(pairs):
            drawn = rng.sample(pool_a, 2 * per_side)
            for method, verdict in judge(drawn[:per_side], drawn[per_side:]).items():
                counts[method]["false_alarms"] += verdict in ("faster", "slower")
                counts[method]["not_enough_aa"] += verdict == compare.NOT_ENOUGH
            for method, verdict in judge(rng.sample(pool_a, per_side), rng.sample(pool_b, per_side)).items():
                counts[method]["detections"] += verdict == "slower"
                counts[method]["wrong_direction"] += verdict == "faster"
                counts[method]["not_enough_ab"] += verdict == compare.NOT_ENOUGH
        out[f"{per_side} race(s) a side"] = counts
    return out


def markdown(summary: dict) -> str:
    lines = [f"## compare, calibrated on this machine ({summary['stamp']})", "",
             f"{summary['races']} races per side of eventdata ({summary['docs']:,} docs, bulk 1000, 2 clients) against one node whose "
             f"CPU quota is {summary['quota']:g} cores (A) or {summary['quota'] * 0.9:g} (B: 10 % less), interleaved; "
             f"{summary['pairs']} A/A and {summary['pairs']} A/B pairs drawn from them. Median throughput A "
             f"{summary['median_a']:,.0f} docs/s, B {summary['median_b']:,.0f} docs/s ({summary['median_b'] / summary['median_a'] - 1:+.1%}).", "",
             "| rule | races a side | false alarms on A/A | detections of the 10 % change | called faster (wrong way) | not enough data (A/A, A/B) |",
             "|---|---:|---:|---:|---:|---:|"]
    n = summary["pairs"]
    for per_side, counts in summary["rates"].items():
        for method, c in counts.items():
            lines.append(f"| {method} | {per_side.split()[0]} | {c['false_alarms']}/{n} ({c['false_alarms'] / n:.0%}) "
                         f"| {c['detections']}/{n} ({c['detections'] / n:.0%}) | {c['wrong_direction']}/{n} "
                         f"| {c['not_enough_aa']}, {c['not_enough_ab']} |")
    lines += ["", f"- This machine: {summary['machine']}; {summary['seconds'] / 60:,.0f} minutes. Pairs share races (subsamples of one pool)."]
    return "\n".join(lines) + "\n"


def run(races: int = 24, pairs: int = 20, size: int = 3, quota: float = 1.5, docs: int = 100_000, log=print) -> dict:
    from ingestlab.cluster import lifecycle
    from ingestlab.hosts import cgroups
    from ingestlab.report import writer

    reason = cgroups.unavailable_reason()
    if reason:
        from ingestlab.errors import IngestlabError

        raise IngestlabError(f"calibration changes the node's CPU quota: {reason}")
    stamp, started = time.strftime("%Y-%m-%dT%H%M%S"), time.monotonic()
    group = cgroups.Group("calibrate", "node")
    pool = {"A": [], "B": []}
    try:
        group.create(quota, None)
        with lifecycle.running(lifecycle.Shape(**SHAPE), log=log) as cluster:
            _node_into_group(cluster, group)
            for i in range(2 * races):
                side = "AB"[i % 2]
                group.create(quota if side == "A" else quota * 0.9, None)  # the known change: 10 % less CPU for the node
                race = _race(cluster, docs, side, stamp, log)
                pool[side].append(race)
                figure = compare.task_figures(race).get(TASK)
                log(f"[ingestlab] calibration {i + 1}/{2 * races}: side {side} ({group.stats()['quota_us'] / cgroups.PERIOD_US:g} cores) "
                    + (f"{figure:,.0f} docs/s" if figure is not None else "no throughput figure"))
    finally:
        cgroups.remove("calibrate")
    medians = {s: compare.aggregate(r)[TASK].median for s, r in pool.items()}
    summary = {"stamp": stamp, "races": races, "pairs": pairs, "size": size, "quota": quota, "docs": docs, "median_a": medians["A"],
               "median_b": medians["B"], "rates": rates(pool["A"], pool["B"], pairs, size), "machine": machine.one_line(),
               "seconds": time.monotonic() - started, "race_ids": {s: [r["race-id"] for r in rs] for s, rs in pool.items()}}
    text = markdown(summary)
    out = writer.write(calibration_dir() / stamp, "ingestlab compare calibration", text, [], summary)
    log(text)
    log(f"[ingestlab] calibration report: {out}/report.md")
    return summary


def latest_summary() -> str | None:
    """One sentence with the newest calibration's rates, for the footnote of every comparison (None before any)."""
    found = sorted(calibration_dir().glob("*/results.json")) if calibration_dir().is_dir() else []
    if not found:
        return None
    data = json.loads(found[-1].read_text())
    summary = data.get("results", data)
    size = f"{summary['size']} race(s) a side"
    counts = summary["rates"].get(size) or next(iter(summary["rates"].values()))
    n = summary["pairs"]
    return ("Measured here (" + summary["stamp"] + f", {size}): " + "; ".join(
        f"{method} rule {c['false_alarms'] / n:.0%} false alarms, {c['detections'] / n:.0%} of a 10 % change found"
        for method, c in counts.items()) + ".")
