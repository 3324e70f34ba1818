"""The redline search over clients or bulk size at full speed (``ingestlab redline --over clients|bulk_size``): how many
clients (or how large a bulk) before the latency target breaks, every probe sending as fast as its clients can. The
steps are whole numbers; over clients, the Universal Scalability Law fitted to each client count's median throughput
sets its predicted peak N* beside the measured answer (or says why it could not be fitted)."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from ingestlab import racing
from ingestlab.errors import IngestlabError
from ingestlab.models import usl
from ingestlab.redline import probe as probes
from ingestlab.redline import run as runs
from ingestlab.redline import search
from ingestlab.redline.target import LatencyTarget

OVER = ("clients", "bulk_size")
BULK_PARAM = "bulk_size"


def throughput_points(result: dict) -> list[tuple[float, float]]:
    """(step, the median achieved docs/s of its probes) for every step probed with a measured throughput."""
    per: dict[float, list[float]] = {}
    for p in result["probes"]:
        if p.get("throughput"):
            per.setdefault(p["rate"], []).append(p["throughput"])
    return sorted((step, statistics.median(values)) for step, values in per.items())


def usl_of(result: dict) -> dict:
    """The USL fit of a clients search's points: its parameters, N* and N*'s interval, or why it was not made."""
    fitted, why = usl.try_fit(throughput_points(result))
    if fitted is None:
        return {"fitted": False, "why": why}
    interval = fitted.peak_interval()
    return {
        "fitted": True,
        "describe": fitted.describe(),
        "peak": fitted.peak,
        "peak_interval": list(interval) if interval else None,
        "peak_docs_per_s": fitted.at(fitted.peak) if fitted.peak is not None else None,
        "r_squared": fitted.r_squared,
    }


def _bulk_step(step: probes.Step, track, size: int) -> probes.Step:
    """The step with the track's bulk size set to ``size``; a track whose paced task does not take it is refused."""
    params = {**step.params, BULK_PARAM: size}
    task = runs.paced_task(track.with_params(params), step.challenge)
    if task.param("bulk-size") != size:
        raise IngestlabError(
            f"track {track.name}, challenge {step.challenge}: task {task.name}'s bulk-size does not follow the track "
            f"parameter {BULK_PARAM}, so --over bulk_size cannot set it"
        )
    return probes.Step(
        step.track_path, step.challenge, step.task, size, params, step.target, step.latency, step.error_rate, step.tags, step.period
    )


def run(
    track_path: Path,
    latency: LatencyTarget,
    target: racing.Target,
    over: str,
    *,
    challenge: str = runs.CHALLENGE,
    params: dict | None = None,
    error_rate: float = 0.0,
    resolution: float = 0.05,
    probes_per_step: int = 3,
    clients: int = 8,
    most_clients: int = probes.MOST_CLIENTS,
    agree: int = 2,
    tolerance: float = 0.15,
    most: int = 40,
    label: str | None = None,
    command: str = "",
    log=print,
) -> dict:
    if over not in OVER:
        raise IngestlabError(f"--over {over}: one of {', '.join(OVER)} (or leave it out to search over the offered rate)")
    stamp, began = time.strftime("%Y%m%dT%H%M%S"), time.monotonic()
    track, step = runs.prepare(track_path, target, latency, challenge, params, error_rate, stamp, label)
    if over == "bulk_size":
        _bulk_step(step, track, step.bulk_size + 1)  # refused before any race when the track's bulk size does not follow it
    races: list = []
    try:
        w = runs.warm(step, clients, agree, tolerance, track.name, log, races)
        log(
            f"[ingestlab] redline {track.name}: warm at full speed {w.full:,.0f} docs/s; searching over {over.replace('_', ' ')} "
            f"at full speed for the highest that keeps {latency}"
        )
        count = [0]

        def one(value: float) -> search.Probe:
            count[0] += 1
            runs.red_halt(target, count[0])
            n = int(value)
            tags = {"redline-step": f"{over}={n}", "redline-probe": str(count[0])}
            this, chosen = (step, n) if over == "clients" else (_bulk_step(step, track, n), clients)
            return probes.raced(this, n, lambda: probes.race(this, None, chosen, tags))

        shared = {"floor": 1, "resolution": resolution, "probes": probes_per_step, "most": most, "whole": True}
        if over == "clients":
            settings = search.Settings(start=1, ceiling=most_clients, unit="clients", ceiling_is="--max-clients", **shared)
        else:
            settings = search.Settings(
                start=max(1, step.bulk_size // 8),
                ceiling=step.bulk_size * 32,
                unit="docs a bulk",
                ceiling_is="32 times the track's bulk size",
                **shared,
            )
        outcome = search.search(one, settings, log)
    finally:
        runs._delete_index(target, step.params.get("index_name"), log)
    result = {**runs.common(stamp, track, step, w, races, resolution, probes_per_step, outcome, began, command), "over": over}
    if over == "clients":
        result["usl"] = usl_of(result)
    return runs.store(result)
