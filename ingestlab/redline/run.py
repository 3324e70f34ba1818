"""Drive a redline search on one cluster: check the track can be paced, warm the node at full speed, search, and
leave the cluster as it was found (the probes' index deleted); the result is kept as
``results/redline/<stamp>/redline.json``."""

from __future__ import annotations

import json
import statistics
import time
import urllib.error
from dataclasses import asdict, dataclass
from pathlib import Path

from ingestlab import machine, paths, racing
from ingestlab.errors import IngestlabError
from ingestlab.rally import preflight, trackinfo
from ingestlab.redline import probe as probes
from ingestlab.redline import search
from ingestlab.redline.target import LatencyTarget
from ingestlab.report.plot import here_line
from ingestlab.warmup import warm_up

CHALLENGE = "redline"
_MARK = 123457.0  # a rate no track sets itself: the task that shows it is the one the search paces


def paced_task(track: trackinfo.TrackInfo, challenge: str) -> trackinfo.Task:
    """The task of ``challenge`` that takes the track parameter ``target_throughput``, with its bulk size."""
    if challenge not in track.challenges:
        raise IngestlabError(
            f"track {track.name} has no challenge {challenge} (it has {', '.join(track.challenges)}): a redline needs "
            f"a challenge whose bulk task takes the track parameter {probes.TARGET_PARAM} (see challenges/redline.j2)"
        )
    marked = track.with_params({**track.given, probes.TARGET_PARAM: _MARK})
    found = [
        t for t in marked.challenge(challenge).schedule if t.target_throughput not in (None, "") and float(t.target_throughput) == _MARK
    ]
    if not found:
        raise IngestlabError(
            f"track {track.name}, challenge {challenge}: no task takes the track parameter {probes.TARGET_PARAM} as its "
            f"target-throughput, so the offered rate cannot be set (see challenges/redline.j2)"
        )
    task = found[0]
    if not isinstance(task.param("bulk-size"), int) or task.param("bulk-size") < 1:
        raise IngestlabError(
            f"track {track.name}, challenge {challenge}: task {task.name} has no bulk-size, so an offered rate in "
            f"documents per second cannot be turned into bulk requests per second"
        )
    if not task.time_period:
        raise IngestlabError(
            f"track {track.name}, challenge {challenge}: task {task.name} has no time-period: a probe must run for a "
            f"time, whatever its rate"
        )
    return task


@dataclass
class Warm:
    """The full-speed races before a search: their rate (median of the last ``agree``), every race's figure, the races
    kept (the last ``agree``) and their median service time (seconds, None when Rally reported none)."""

    full: float
    figures: list
    kept: list
    service: float | None
    clients: int


def prepare(
    track_path: Path,
    target: racing.Target,
    latency: LatencyTarget,
    challenge: str,
    params: dict | None,
    error_rate: float,
    stamp: str,
    label: str | None,
) -> tuple[trackinfo.TrackInfo, probes.Step]:
    """The track with its parameters checked (a fresh index of its own when the track names one) and what every probe shares."""
    params = dict(params or {})
    track = trackinfo.load(track_path, params)
    if "index_name" in track.defaults and "index_name" not in params:
        params["index_name"] = f"ingestlab-redline-{stamp.lower()}"
        track = track.with_params(params)
    track.check(unknown=True)
    task = paced_task(track, challenge)
    tags = {"redline": stamp, **({"study": label} if label else {})}
    size = task.param("bulk-size")
    return track, probes.Step(
        Path(track_path), challenge, task.name, size, params, target, latency, error_rate, tags, float(task.time_period)
    )


def warm(step: probes.Step, clients: int, agree: int, tolerance: float, name: str, log, races: list) -> Warm:
    """Full-speed races until ``agree`` in a row agree within ``tolerance``; each race is appended to ``races`` as it ends."""

    def full_speed() -> float | None:
        result = probes.race(step, None, clients, {"redline-step": "full-speed"})
        races.append(result)
        return getattr(result.tasks.get(step.task), "throughput_mean", None)

    figures = warm_up(full_speed, agree, tolerance, f"redline {name}", log)
    kept = races[-agree:]
    medians = [r.tasks[step.task].service_time("p50") for r in kept if step.task in r.tasks]
    service = statistics.median([m / 1000.0 for m in medians if m is not None]) if any(m is not None for m in medians) else None
    return Warm(statistics.median(figures[-agree:]), figures, kept, service, clients)


def common(
    stamp: str,
    track: trackinfo.TrackInfo,
    step: probes.Step,
    w: Warm,
    races: list,
    resolution: float,
    probes_per_step: int,
    outcome: search.Outcome,
    began: float,
    command: str = "",
) -> dict:
    """What every search's result holds, whatever it searched over; ``command``: the command line that ran it."""
    return {
        "stamp": stamp,
        "command": command,
        "machine": machine.describe(),
        "track": track.name,
        "track_path": str(step.track_path),
        "challenge": step.challenge,
        "task": step.task,
        "bulk_size": step.bulk_size,
        "latency_target": {"percentile": step.latency.percentile, "ms": step.latency.ms},
        "error_rate": step.error_rate,
        "resolution": resolution,
        "probes_per_step": probes_per_step,
        "params": step.params,
        "hosts": step.target.hosts,
        "engine": step.target.engine,
        "full_speed": {
            "rate": w.full,
            "clients": w.clients,
            "races": [r.race_id for r in w.kept],
            "warm_up": w.figures,
            "service_time_p50_s": w.service,
            "load_side": [(r.footprint or {}).get("load_side") for r in w.kept],
            "emulation": [((r.footprint or {}).get("emulation") or {}).get("held") for r in w.kept],
        },
        "rate": outcome.rate,
        "failed_above": outcome.failed_above,
        "stopped": outcome.stopped,
        "probes": [asdict(p) for p in outcome.probes],
        "es_version": races[-1].es_version if races else None,
        "rally_version": (races[-1].race or {}).get("rally-version") if races else None,
        "machine_line": here_line(races[-1]) if races else None,
        "seconds": round(time.monotonic() - began, 1),  # warm-up and search (not a provisioned node's start and stop)
    }


def store(result: dict) -> dict:
    """``results/redline/<stamp>/redline.json``; the result with its directory."""
    out = paths.results_dir() / "redline" / result["stamp"]
    out.mkdir(parents=True, exist_ok=True)
    (out / "redline.json").write_text(json.dumps(result, indent=2))
    return {**result, "dir": str(out)}


def prober(step: probes.Step, w: Warm, clients: int):
    """A function that races one probe at an offered rate (clients and period planned for it), numbering them in turn;
    the cluster's health is read before each, and a red cluster ends the search (:func:`red_halt`)."""
    count = [0]

    def one(rate: float) -> search.Probe:
        count[0] += 1
        red_halt(step.target, count[0])
        chosen, period = probes.plan(rate, step, w.service, clients)
        return probes.probe(step, rate, chosen, count[0], period)

    return one


def _ask(target: racing.Target, path: str, **how):
    """The first host's answer to ``path`` (JSON), with the target's client options."""
    options = preflight.parse_client_options(target.client_options)
    return preflight.get_json(preflight.base_url(target.hosts.split(",")[0].strip(), options) + path, options, timeout=30, **how)


def red_halt(target: racing.Target, number: int) -> None:
    """Stop the search (:class:`search.Halt`) when the cluster is red: a probe on it would judge the cluster's fault,
    not its rate. A cluster that does not answer is left to the probe's race, which names the error."""
    if not target.hosts:
        return
    try:
        health = _ask(target, "_cluster/health")
    except OSError:
        return
    if (health or {}).get("status") == "red":
        raise search.Halt(
            f"the cluster went red before probe {number} ({health.get('unassigned_shards', '?')} unassigned shards, "
            f"{health.get('number_of_nodes', '?')} nodes): the search stopped there; a probe of a red cluster measures "
            f"its fault, not its rate"
        )


def rate_settings(w: Warm, resolution: float, probes_per_step: int, most: int) -> search.Settings:
    """The search over offered rates: the full-speed rate times whole powers of ``1 + resolution``, from the full-speed
    rate (the anchor: the knee lies at or just below it), up to 32 times it, down to a 256th."""
    return search.Settings(
        start=w.full, ceiling=w.full * 32, floor=w.full / 256, resolution=resolution, probes=probes_per_step, most=most, anchor=w.full
    )


def run(
    track_path: Path,
    latency: LatencyTarget,
    target: racing.Target,
    *,
    challenge: str = CHALLENGE,
    params: dict | None = None,
    error_rate: float = 0.0,
    resolution: float = 0.05,
    probes_per_step: int = 3,
    clients: int = 8,
    agree: int = 2,
    tolerance: float = 0.15,
    most: int = 40,
    label: str | None = None,
    command: str = "",
    log=print,
) -> dict:
    stamp, began = time.strftime("%Y%m%dT%H%M%S"), time.monotonic()
    track, step = prepare(track_path, target, latency, challenge, params, error_rate, stamp, label)
    races: list = []
    try:
        w = warm(step, clients, agree, tolerance, track.name, log, races)
        log(
            f"[ingestlab] redline {track.name}: warm at full speed {w.full:,.0f} docs/s ({clients} client{'s' if clients != 1 else ''}, "
            f"median of the last {agree} races); searching for the highest rate with {latency}"
        )
        outcome = search.search(prober(step, w, clients), rate_settings(w, resolution, probes_per_step, most), log)
    finally:
        _delete_index(target, step.params.get("index_name"), log)
    return store(common(stamp, track, step, w, races, resolution, probes_per_step, outcome, began, command))


def _delete_index(target: racing.Target, index: str | None, log) -> None:
    """The probes' index goes (the cluster is left as it was found); a cluster that does not answer is named, not hidden."""
    if not index or not index.startswith("ingestlab-redline-") or not target.hosts:
        return
    try:
        _ask(target, index, method="DELETE")
    except urllib.error.HTTPError as e:
        if e.code != 404:
            log(f"[ingestlab] could not delete the probes' index {index}: HTTP {e.code}")
    except OSError as e:
        log(f"[ingestlab] could not delete the probes' index {index}: {e}")
