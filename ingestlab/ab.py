"""``ingestlab ab``: a baseline and a contender setup raced in one command, in randomized pairs, then compared.

A side is track parameters and cluster keys in sweep cell syntax (``bulk_size=500;version=9.2.0``); sides that differ
in their cluster get a warm cluster each for the session. Each pair races the sides in a seeded random order, so the
session's drift falls on both alike; unless given, the number of pairs is what the track's calibration here says finds
a 10 % change with 90 % power in the primary task. The races are then judged as ``compare`` judges pairs.
"""

from __future__ import annotations

import random
import time
from contextlib import ExitStack
from dataclasses import dataclass

from ingestlab import compare, racing
from ingestlab.cluster import lifecycle
from ingestlab.errors import IngestlabError
from ingestlab.sweep import grid as grids
from ingestlab.verdicts import calibration, noise, stats
from ingestlab.warmup import warm_up

SHAPES = (
    {"name": "ingestlab-ab-a", "http_port": 29490, "transport_port": 29590, "heap": "1g"},
    {"name": "ingestlab-ab-b", "http_port": 29495, "transport_port": 29595, "heap": "1g"},
)
CLUSTER_KEYS = ("version", "nodes", "heap")


@dataclass(frozen=True)
class Side:
    name: str
    params: dict
    cluster: dict


def side(name: str, text: str, track, challenge: str | None) -> Side:
    """A side from ``key=value;key=value`` (sweep cell syntax), checked against the track."""
    cell: dict = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        if "=" not in part:
            raise IngestlabError(f"--{name} {text!r}: {part!r} must look like key=value (parts joined by ';')")
        key, _, value = part.partition("=")
        cell[grids.ALIASES.get(key.strip(), key.strip())] = [grids.parse_value(value.strip())]
    unknown = [k for k in cell if k in grids.HARDWARE_KEYS]
    if unknown:
        raise IngestlabError(f"--{name}: {', '.join(unknown)} (emulated hardware) is for sweeps; ab races local clusters")
    checked = grids.check(track, cell, {}, challenge, provisioned=True)
    return Side(name, {k: v[0] for k, v in checked.params.items()}, {k: v[0] for k, v in checked.cluster.items()})


def pairs_for(floor_data: dict | None, task: str | None, given: int | None, notes: list[str] | None = None) -> tuple[int, str]:
    """How many pairs to race, and why: as given, else the pairs the paired test at 5 % needs to find a 10 % change in
    ``task`` with 90 % power, at the σ the calibration measured for it."""
    if given:
        return given, "as asked (--races)"
    if not floor_data:
        raise IngestlabError(
            "no calibration of this track on this machine to choose the number of races from"
            + (f" ({'; '.join(notes)})" if notes else "")
            + ": give --races N, or run `ingestlab calibrate` for it first"
        )
    sigma = (floor_data.get("tasks", {}).get(task) or {}).get("sigma")
    if not sigma:
        raise IngestlabError(f"calibration {floor_data['stamp']} measured no spread of {task}; give --races N")
    need = stats.races_needed(0.10, sigma, power=calibration.DETECTION_POWER, most=100, paired=True)
    if not need:
        raise IngestlabError(
            f"calibration {floor_data['stamp']}: a 10 % change in {task} at σ {sigma:.1%} needs over 100 pairs; give --races N"
        )
    return max(need, 3), (
        f"calibration {floor_data['stamp']}: at σ {sigma:.1%} of {task}, the pairs that find a 10 % change with 90 % power "
        "in the paired test at 5 %"
    )


def order(pairs: int, seed: int) -> list[str]:
    """The race order: each pair is baseline then contender, or the other way round, at random."""
    rng, out = random.Random(seed), []
    for _ in range(pairs):
        out += rng.choice((["baseline", "contender"], ["contender", "baseline"]))
    return out


def _race(track_path, target, challenge, params, tags) -> dict:
    return racing.race(
        track_path, target, racing.Options(challenge=challenge, tags=tags, params=dict(params)), log=lambda *_: None, stream=False
    ).race


def run(
    track_path,
    challenge: str | None,
    task: str,
    baseline: Side,
    contender: Side,
    pairs: int | None,
    seed: int,
    agree: int,
    calibration_file=None,
    target_hosts: str | None = None,
    tolerance: float | None = None,
    log=print,
) -> tuple[str, dict | None, list[str]]:
    """Race the session; (its stamp: the races are tagged ``ab:<stamp>-baseline`` and ``-contender``, the calibration
    judged by, notes)."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    found, notes = noise.find(track_path.name, challenge, baseline.cluster.get("version") or None, calibration_file, params=baseline.params)
    count, why = pairs_for(found, task, pairs, notes)
    sigma = (found or {}).get("tasks", {}).get(task, {}).get("sigma")
    tolerance = tolerance or (max(0.05, 2 * sigma) if sigma else 0.05)
    log(f"[ingestlab] ab {stamp}: {count} races a side ({why}), in random pairs (seed {seed})")
    apart = baseline.cluster != contender.cluster
    if apart and target_hosts:
        raise IngestlabError("the sides differ in their cluster (version, nodes, heap); drop --target-hosts so the pack provisions both")
    with ExitStack() as stack:
        targets = {}
        for s, shape in zip((baseline, contender) if apart else (baseline,), SHAPES):
            if target_hosts:
                targets[s.name] = racing.Target(hosts=target_hosts)
                continue
            base = dict(shape, **{k: v for k, v in s.cluster.items() if k in CLUSTER_KEYS})
            cluster = stack.enter_context(lifecycle.running(lifecycle.Shape(**base), log=lambda *_: None))
            targets[s.name] = racing.Target(hosts=cluster.hosts, engine=cluster.engine)
        targets.setdefault("contender", targets["baseline"])
        for s in (baseline, contender) if apart else (baseline,):
            warm_up(
                lambda: compare.task_figures(_race(track_path, targets[s.name], challenge, s.params, {"ab": f"{stamp}-warm-up"})).get(task),
                agree,
                tolerance,
                f"ab ({s.name}'s cluster)",
                log,
            )
        for i, name in enumerate(order(count, seed), 1):
            s = baseline if name == "baseline" else contender
            tags = {"ab": f"{stamp}-{name}", "ab-pair": f"{stamp}-{(i + 1) // 2}", "ab-task": task}  # compare judges the pairs as pairs
            race = _race(track_path, targets[name], challenge, s.params, tags)
            figure = compare.task_figures(race).get(task)
            log(f"[ingestlab] ab race {i}/{2 * count}: {name} " + (f"{figure:,.0f}" if figure is not None else f"— (no {task} figure)"))
    return stamp, found, notes
