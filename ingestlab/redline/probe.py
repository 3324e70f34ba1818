"""One step of the search: race the track's redline challenge at an offered rate, and judge the race.

The offered rate becomes Rally's ``target-throughput`` (bulk requests per second: the rate ÷ the bulk size), so Rally
times each request from when the schedule meant to send it and past the knee the latency grows. A step is judged on
that latency percentile and the error rate (the achieved rate is reported, not judged); a race whose load driver was
at its limit (:mod:`ingestlab.rally.load_side`) is neither a pass nor a fail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from ingestlab import racing
from ingestlab.errors import IngestlabError, RaceFailed
from ingestlab.rally import load_side
from ingestlab.redline.search import DRIVER_BOUND, FAIL, PASS, Probe
from ingestlab.redline.target import LatencyTarget

TARGET_PARAM, CLIENTS_PARAM, PERIOD_PARAM = "target_throughput", "redline_clients", "redline_time_period"
MOST_CLIENTS = 32
LEAST_REQUESTS, LEAST_PER_CLIENT = 20, 5  # a probe measures at least this many requests; each client sends at least this many
TARGETS_A_PROBE = 10  # a probe lasts this many latency targets: one that fell behind by the target still delivered 90 %


@dataclass(frozen=True)
class Step:
    """What every probe of a search shares."""

    track_path: Path
    challenge: str
    task: str
    bulk_size: int
    params: dict
    target: racing.Target
    latency: LatencyTarget
    error_rate: float
    tags: dict
    period: float = 15.0  # the paced task's time period as the track renders it (seconds)


def plan(rate: float, step: Step, service_s: float | None, least: int) -> tuple[int, float]:
    """Clients and time period of a probe at ``rate``: clients enough to keep up at twice the full-speed service time,
    but no more than ``least`` when fewer give each its :data:`LEAST_PER_CLIENT` requests; a period long enough for
    :data:`LEAST_REQUESTS` requests and at least :data:`TARGETS_A_PROBE` latency targets."""
    ops = rate / step.bulk_size
    period = max(step.period, math.ceil(LEAST_REQUESTS / ops), math.ceil(TARGETS_A_PROBE * step.latency.ms / 1000.0))
    keep_up = math.ceil(ops * service_s * 2) if service_s else 1
    spread = max(1, math.floor(ops * period / LEAST_PER_CLIENT))
    return min(MOST_CLIENTS, max(keep_up, min(least, spread))), period


def race(step: Step, rate: float | None, clients: int, tags: dict, period: float | None = None, log=lambda *_: None):
    """A race of the step's challenge at ``rate`` documents per second offered (None: full speed)."""
    params = {**step.params, CLIENTS_PARAM: clients}
    params.pop(TARGET_PARAM, None)
    if rate is not None:
        params[TARGET_PARAM] = round(rate / step.bulk_size, 6)
    if period is not None and period != step.period:
        params[PERIOD_PARAM] = period
    on_error = "continue" if step.error_rate > 0 else "abort"
    options = racing.Options(challenge=step.challenge, params=params, tags={**step.tags, **tags}, on_error=on_error)
    return racing.race(step.track_path, step.target, options, log=log, stream=False)


def nearest_rank(samples: list[float], percentile: float) -> float | None:
    """The percentile of the samples by nearest rank: at fewer than 100 requests, p99 is the highest (never below a sample)."""
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(percentile / 100.0 * len(ordered)) - 1)]


def latencies(result, task) -> tuple[dict, int | None]:
    """The task's latency percentiles: Rally's, and those Rally leaves out for too few requests (it reports p99 from 100
    requests on) by nearest rank of its own samples; and how many requests were measured."""
    samples = result.latency_samples(task.task)
    out = dict(task.latency_ms)
    for p in ("50", "90", "99", "99.9"):
        if f"p{p}" not in out and samples:
            out[f"p{p}"] = nearest_rank(samples, float(p))
    return out, (len(samples) or None)


def judge(step: Step, rate: float, result) -> Probe:
    task = result.tasks.get(step.task)
    whole = (result.footprint or {}).get("load_side") or {}
    load = (whole.get("tasks") or {}).get(step.task) or whole
    if task is None:
        return Probe(rate, FAIL, f"the race has no result for task {step.task}", race_id=result.race_id, load_side=load)
    measured, requests = latencies(result, task)
    seen = measured.get(step.latency.key)
    common = dict(
        latency_ms=measured,
        throughput=task.throughput_mean,
        error_rate=task.error_rate or 0.0,
        race_id=result.race_id,
        load_side=load,
        requests=requests,
        emulation=((result.footprint or {}).get("emulation") or {}).get("held"),
    )
    if load.get("verdict") == load_side.DRIVER_BOUND:
        return Probe(rate, DRIVER_BOUND, load.get("why", ""), **common)
    if (task.error_rate or 0.0) > step.error_rate:
        return Probe(rate, FAIL, f"error rate {task.error_rate:.2%} > {step.error_rate:.2%}", **common)
    if seen is None:
        raise IngestlabError(
            f"race {result.race_id}: no {step.latency.key} latency for {step.task} (no latency sample kept): "
            f"lengthen the probes (--track-param redline_time_period=SECONDS)"
        )
    if seen > step.latency.ms:
        return Probe(rate, FAIL, f"{step.latency.key} {_ms(seen)} ms > {step.latency.ms:g} ms", **common)
    return Probe(rate, PASS, f"{step.latency.key} {_ms(seen)} ms <= {step.latency.ms:g} ms", **common)


def _ms(value: float) -> str:
    """Whole milliseconds, with a decimal where rounding would hide which side of a target it is on (200.4 > 200)."""
    return f"{value:,.0f}" if value >= 1000 or value == round(value) else f"{value:,.1f}"


def probe(step: Step, rate: float, clients: int, number: int, period: float | None = None) -> Probe:
    """Race and judge one probe; a race that fails (Rally stopped at a request's error) fails the step, naming the error
    (any other error, e.g. a parameter the track refuses, ends the search)."""
    return raced(step, rate, lambda: race(step, rate, clients, {"redline-step": f"{rate:.0f}", "redline-probe": str(number)}, period))


def raced(step: Step, value: float, race_it) -> Probe:
    """Judge the race ``race_it()`` runs as a probe of step ``value``; a race that fails is a failed probe, naming its error."""
    try:
        result = race_it()
    except RaceFailed as e:
        return Probe(value, FAIL, f"the race failed: {e.cause}")
    return judge(step, value, result)
