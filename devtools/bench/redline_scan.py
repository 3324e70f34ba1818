"""``python -m devtools.bench redline``: the redline search checked against a dense scan of the same setup, on one warm node.

The node is warmed at full speed as the search does it; then the search runs (:mod:`ingestlab.redline.run`: its answer,
and the race time of its probes); then the dense scan: every step of the resolution from the full-speed rate down to
``low`` of it, each probed ``probes`` times, in passes over all the steps (so a step's probes are spread over the scan,
as the search spreads its own), and the scan's answer is the highest step whose probes all passed. The bench then
says whether the search landed within one resolution step of the scan's answer and what share of the scan's race time
it took. Race time is the wall clock of each probe (its race, Rally's start and end included); the warm-up counts
for neither. A scan with no passing step in its range, or a probe that was load driver bound, is said, not judged.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from pathlib import Path

from devtools import ledger
from ingestlab import paths, racing
from ingestlab.redline import run as runs
from ingestlab.redline import search
from ingestlab.redline.search import DRIVER_BOUND, FAIL, PASS
from ingestlab.redline.target import LatencyTarget

TIME_SHARE = 1 / 3  # the search should take at most this share of the scan's race time


def steps(full: float, resolution: float, low: float) -> list[float]:
    """The scan's steps: the full-speed rate and every step of ``resolution`` below it, down to ``low`` × it."""
    count = math.floor(math.log(1 / low) / math.log(1 + resolution) + 1e-9)
    return [full / (1 + resolution) ** k for k in range(count + 1)]


def answer(probes: list[search.Probe], per_step: int) -> float | None:
    """The highest step with ``per_step`` passing probes and none failed (a load driver bound probe is neither)."""
    passed = [
        rate
        for rate, got in _by_step([dataclasses.asdict(p) for p in probes]).items()
        if sum(p["outcome"] == PASS for p in got) >= per_step and not any(p["outcome"] == FAIL for p in got)
    ]
    return max(passed) if passed else None


def within_one_step(a: float | None, b: float | None, resolution: float) -> bool | None:
    if a is None or b is None:
        return None
    return abs(math.log(a / b)) <= math.log(1 + resolution) + 1e-9


def _timed(one, seconds: list):
    def probe(rate: float) -> search.Probe:
        began = time.monotonic()
        try:
            return one(rate)
        finally:
            seconds.append(time.monotonic() - began)

    return probe


def run(
    track_path: Path,
    latency: LatencyTarget,
    target: racing.Target,
    *,
    params: dict | None = None,
    resolution: float = 0.05,
    low: float = 0.5,
    probes_per_step: int = 3,
    clients: int = 8,
    agree: int = 2,
    tolerance: float = 0.15,
    most: int = 40,
    label: str | None = None,
    command: str = "",
    log=print,
) -> dict:
    stamp = time.strftime("%Y%m%dT%H%M%S")
    track, step = runs.prepare(track_path, target, latency, runs.CHALLENGE, params, 0.0, stamp, label)
    races: list = []
    searched, scanned, search_s, scan_s = None, [], [], []
    try:
        w = runs.warm(step, clients, agree, tolerance, track.name, log, races)
        log(f"[ingestlab] bench redline: warm at {w.full:,.0f} docs/s; the search first, then the dense scan")
        tagged = dataclasses.replace(step, tags={**step.tags, "bench": "search"})
        searched = search.search(
            _timed(runs.prober(tagged, w, clients), search_s), runs.rate_settings(w, resolution, probes_per_step, most), log
        )
        one = _timed(runs.prober(dataclasses.replace(step, tags={**step.tags, "bench": "scan"}), w, clients), scan_s)
        grid = steps(w.full, resolution, low)
        for turn in range(probes_per_step):
            for rate in grid:
                got = one(rate)
                scanned.append(got)
                log(f"[ingestlab] scan pass {turn + 1}/{probes_per_step}: {rate:,.0f} docs/s offered: {got.outcome} ({got.why})")
    finally:
        runs._delete_index(target, step.params.get("index_name"), log)
    result = _result(stamp, track.name, step, w, searched, scanned, search_s, scan_s, resolution, low, probes_per_step, races)
    result["command"] = command
    result["rally"] = (races[-1].race or {}).get("rally-version") if races else None
    return write(result)


def write(result: dict) -> dict:
    """``results/bench/redline-<stamp>/`` (result.json, report.md) and the ledger entry; the result with its directory."""
    out = paths.results_dir() / "bench" / f"redline-{result['stamp']}"
    out.mkdir(parents=True, exist_ok=True)
    (out / "result.json").write_text(json.dumps(result, indent=2))
    (out / "report.md").write_text(markdown(result))
    to_ledger(result)
    return {**result, "dir": str(out)}


def _result(stamp, track, step, w, searched, scanned, search_s, scan_s, resolution, low, per_step, races) -> dict:
    scan_rate = answer(scanned, per_step)
    share = sum(search_s) / sum(scan_s) if scan_s and sum(scan_s) > 0 else None
    return {
        "stamp": stamp,
        "track": track,
        "task": step.task,
        "bulk_size": step.bulk_size,
        "hosts": step.target.hosts,
        "latency_target": {"percentile": step.latency.percentile, "ms": step.latency.ms},
        "resolution": resolution,
        "low": low,
        "probes_per_step": per_step,
        "full_speed": w.full,
        "search": {
            "rate": searched.rate,
            "failed_above": searched.failed_above,
            "stopped": searched.stopped,
            "probes": [dataclasses.asdict(p) for p in searched.probes],
            "seconds": round(sum(search_s), 1),
        },
        "scan": {
            "rate": scan_rate,
            "steps": len(steps(w.full, resolution, low)),
            "probes": [dataclasses.asdict(p) for p in scanned],
            "seconds": round(sum(scan_s), 1),
            "driver_bound": sum(p.outcome == DRIVER_BOUND for p in scanned),
        },
        "within_one_step": within_one_step(searched.rate, scan_rate, resolution),
        "time_share": share,
        "met_time": None if share is None else share <= TIME_SHARE,
        "es_version": races[-1].es_version if races else None,
    }


def sentence(r: dict) -> str:
    s, c = r["search"], r["scan"]
    if c["rate"] is None:
        found = "none" if s["rate"] is None else f"{s['rate']:,.0f} docs/s"
        return (
            f"The scan found no step whose {r['probes_per_step']} probes all passed between {r['low']:.0%} of full speed and full "
            f"speed, so the search's answer ({found}) is not judged against it."
        )
    if s["rate"] is None:
        return f"The search found no sustainable rate ({s['stopped']}); the scan's answer is {c['rate']:,.0f} docs/s."
    apart = (s["rate"] / c["rate"] - 1) * 100
    return (
        f"The search's {s['rate']:,.0f} docs/s is {apart:+.1f} % from the scan's {c['rate']:,.0f} docs/s "
        f"({'within' if r['within_one_step'] else 'not within'} one {r['resolution']:.0%} step), in {len(s['probes'])} probes and "
        f"{s['seconds']:,.0f} s of race time against the scan's {len(c['probes'])} probes and {c['seconds']:,.0f} s: "
        f"{r['time_share']:.0%} of it ({'at most' if r['met_time'] else 'more than'} a third)."
    )


def markdown(r: dict) -> str:
    lines = [
        f"## The redline search against a dense scan ({r['stamp']})",
        "",
        f"`{r['command']}`: {r['track']}, bulk size "
        f"{r['bulk_size']}, p{r['latency_target']['percentile']} <= {float(r['latency_target']['ms']):g} ms, Elasticsearch "
        f"{r['es_version']}; warm at {r['full_speed']:,.0f} docs/s at full speed.",
        "",
        sentence(r),
        "",
        "| offered docs/s | scan: probes passed | search: probes passed |",
        "|---:|---:|---:|",
    ]
    scan, found = _by_step(r["scan"]["probes"]), _by_step(r["search"]["probes"])
    for rate in sorted(set(scan) | set(found), reverse=True):
        cell = lambda got: "—" if not got else f"{sum(p['outcome'] == PASS for p in got)}/{len(got)}"
        lines.append(f"| {rate:,.0f} | {cell(scan.get(rate))} | {cell(found.get(rate))} |")
    return "\n".join(lines) + "\n"


def _by_step(probes: list[dict]) -> dict[float, list[dict]]:
    """Probes (as stored: dicts) by their step."""
    out: dict[float, list[dict]] = {}
    for p in probes:
        out.setdefault(p["rate"], []).append(p)
    return out


def to_ledger(r: dict) -> None:
    def rate(v):
        return None if v is None else round(v, 1)

    figures = {
        "search": ledger.Figure(rate(r["search"]["rate"]), "docs/s", "the search's sustainable rate"),
        "scan": ledger.Figure(
            rate(r["scan"]["rate"]), "docs/s", f"the dense scan's: the highest step whose {r['probes_per_step']} probes all passed"
        ),
        "apart": ledger.Figure(
            None if None in (r["search"]["rate"], r["scan"]["rate"]) else round((r["search"]["rate"] / r["scan"]["rate"] - 1) * 100, 1),
            "%",
            "the search's answer from the scan's",
        ),
        "search-probes": ledger.Figure(len(r["search"]["probes"]), "races", "probes of the search"),
        "scan-probes": ledger.Figure(len(r["scan"]["probes"]), "races", "probes of the scan"),
        "search-seconds": ledger.Figure(r["search"]["seconds"], "s", "race time of the search's probes"),
        "scan-seconds": ledger.Figure(r["scan"]["seconds"], "s", "race time of the scan's probes"),
        "time-share": ledger.Figure(
            None if r["time_share"] is None else round(r["time_share"] * 100, 1), "%", "the search's race time ÷ the scan's"
        ),
        "full-speed": ledger.Figure(round(r["full_speed"], 1), "docs/s", "full speed, the warm-up's median"),
    }
    versions = {"engine": "elasticsearch", "version": r["es_version"], "rally": r.get("rally")}
    ledger.record(
        f"{r['stamp']}-bench-redline",
        "bench redline",
        r["command"],
        figures,
        versions,
        conditions=(
            f"track {r['track']}, bulk size {r['bulk_size']}, one warm node: the search, then the scan (every "
            f"{r['resolution']:.0%} step from full speed down to {r['low']:.0%} of it, {r['probes_per_step']} passes); " + sentence(r)
        ),
        source=f"results/bench/redline-{r['stamp']}/result.json",
    )
