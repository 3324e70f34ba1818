"""``python -m devtools.bench sampling``: what the load side's sampling during a race costs (issue 64: at most 2 %).

On one node, pairs of the same race with the sampling on and off (``INGESTLAB_SAMPLING=off``), on first in every
other pair (a drift such as the node's warming cancels), for two tasks: the index API (many small requests: the
node's stats call weighs most beside them) and bulks of 1,000 with two clients (the node at its cores), each after
three warm-up pairs. Each pair gives on ÷ off of the task's median throughput; the cost is 1 − the median of those
ratios, with its 95 % interval where the pairs allow one (:mod:`devtools.bench.interval`). Then, on the same warm
node, the CPU one look of the sampling takes: the pack's process and the node's (its stats call), over 50 looks."""

from __future__ import annotations

import json
import os
import resource
import statistics
import time
from pathlib import Path

from devtools.bench.interval import median_interval
from ingestlab import paths, racing
from ingestlab.rally import preflight
from ingestlab.rally.load_side import VARIABLE, LoadSide, cpu_seconds

WARMUP_PAIRS = 3
TASKS = {  # each race indexes for about ten seconds on this machine
    "index API": ("posts", "index-api", "index-api", {"posts_docs": 5000, "repetitions": 2, "warmup_repetitions": 0}),
    "bulk 1000, 2 clients": (
        "eventdata",
        "append-no-conflicts-index-only",
        "index-append",
        {"eventdata_docs": 400_000, "bulk_size": 1000, "bulk_indexing_clients": 2},
    ),
}


def _race(hosts: str, task: str, sampling: bool, n: int, log) -> float | None:
    track, challenge, name, params = TASKS[task]
    before = os.environ.get(VARIABLE)
    os.environ[VARIABLE] = "on" if sampling else "off"
    try:
        result = racing.race(
            paths.TRACKS_DIR / track,
            racing.Target(hosts=hosts),
            racing.Options(challenge=challenge, params={**params, "index_name": f"sampling-{n}"}, tags={"bench": "sampling"}),
            log=lambda *_: None,
            stream=False,
        )
    finally:
        os.environ.pop(VARIABLE) if before is None else os.environ.__setitem__(VARIABLE, before)
    got = result.tasks.get(name)
    rate = got.throughput_median if got else None
    log(f"[ingestlab] sampling: {task}, sampling {'on' if sampling else 'off'}: {rate if rate is not None else '—'} docs/s")
    return rate


def run(hosts: str, pairs: int, log=print) -> dict:
    data: dict = {}
    n = 0
    for task in TASKS:
        ratios, rates = [], {"on": [], "off": []}
        for sampling in (True, False) * WARMUP_PAIRS:  # not counted: a fresh node's JIT favours whichever races later
            n += 1
            _race(hosts, task, sampling, n, log)
        for pair in range(pairs):
            got = {}
            for sampling in (True, False) if pair % 2 == 0 else (False, True):  # on-off, off-on: a steady drift cancels
                n += 1
                got[sampling] = _race(hosts, task, sampling, n, log)
            rates["on"].append(got[True])
            rates["off"].append(got[False])
            if got[True] and got[False]:
                ratios.append(got[True] / got[False])
        interval = median_interval(ratios)
        data[task] = {
            "pairs": len(ratios),
            "ratio": statistics.median(ratios) if ratios else None,
            "interval": [interval.low, interval.high] if interval else None,
            "rates": rates,
        }
    data["cpu a look"] = cpu_per_look(hosts)
    return data


def cpu_per_look(hosts: str, looks: int = 50) -> dict:
    """Milliseconds of CPU one look takes in this process and in the node (a node on this machine), over ``looks``."""

    class _NoWorkers:
        workers: list = []

    side = LoadSide(_NoWorkers(), hosts)
    side._node_facts()
    node = next(iter(side.node_facts.values()), {})
    pid = node.get("pid") if node.get("local") else None
    usage = lambda: sum(getattr(resource.getrusage(resource.RUSAGE_THREAD), f) for f in ("ru_utime", "ru_stime"))  # noqa: E731
    mine, theirs = usage(), cpu_seconds(pid) if pid else None
    for _ in range(looks):
        side.look()
    after = cpu_seconds(pid) if pid else None
    return {
        "looks": looks,
        "pack_ms": (usage() - mine) * 1000 / looks,
        "node_ms": None if theirs is None or after is None else (after - theirs) * 1000 / looks,
        "stats": preflight.base_url(hosts.split(",")[0], {}) + side._stats[0].split("?")[0],
    }


def report(data: dict) -> str:
    lines = ["| task | pairs | sampling on ÷ off (median) | 95 % interval | cost |", "|---|---:|---:|---:|---:|"]
    for task, got in ((t, g) for t, g in data.items() if t in TASKS):
        ratio, interval = got["ratio"], got["interval"]
        shown = f"{interval[0]:.3f}–{interval[1]:.3f}" if interval else "—"
        cost = f"{1 - ratio:+.1%}" if ratio else "—"
        lines.append(f"| {task} | {got['pairs']} | {ratio:.3f} | {shown} | {cost} |" if ratio else f"| {task} | 0 | — | — | — |")
    look = data["cpu a look"]
    node = "—" if look["node_ms"] is None else f"{look['node_ms']:.1f} ms"
    lines.append(f"\nOne look, the mean of {look['looks']}: {look['pack_ms']:.2f} ms of CPU in the pack's process, {node} in the node.")
    return "\n".join(lines)


def write(text: str, data: dict) -> Path:
    out = paths.results_dir() / "bench" / "sampling" / time.strftime("%Y%m%dT%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(text + "\n")
    (out / "results.json").write_text(json.dumps(data, indent=2))
    return out


def to_ledger(data: dict, stamp: str, command: str, date: str | None = None) -> None:
    from devtools import ledger

    look = data["cpu a look"]
    figures = {
        "look-pack-ms": ledger.Figure(round(look["pack_ms"], 3), "ms", "CPU one look takes in the pack's process"),
        "look-node-ms": ledger.Figure(
            None if look["node_ms"] is None else round(look["node_ms"], 2), "ms", "CPU one look takes in the node"
        ),
        # a look a second: of the CPU time this machine's cores give in that second
        "look-share": ledger.Figure(
            None if look["node_ms"] is None else round((look["pack_ms"] + look["node_ms"]) / (10 * (os.cpu_count() or 1)), 3),
            "%",
            "both, a look a second, of this machine's CPU",
        ),
    }
    for task, got in ((t, g) for t, g in data.items() if t in TASKS):
        key = "index-api" if task == "index API" else "bulk-1000"
        interval = got["interval"] or [None, None]
        figures[f"{key}-ratio"] = ledger.Figure(
            None if got["ratio"] is None else round(got["ratio"], 4), "×", f"{task}: throughput with sampling ÷ without, median of pairs"
        )
        figures[f"{key}-low"] = ledger.Figure(None if interval[0] is None else round(interval[0], 4), "×", f"{task}: 95 % interval, low")
        figures[f"{key}-high"] = ledger.Figure(None if interval[1] is None else round(interval[1], 4), "×", f"{task}: 95 % interval, high")
        figures[f"{key}-pairs"] = ledger.Figure(got["pairs"], "pairs", f"{task}: pairs raced")
    ledger.record(
        f"{stamp}-sampling",
        "bench sampling",
        command,
        figures,
        conditions="one node; each pair the same race with the load side's sampling on and off, on first in every other pair, "
        "after three warm-up pairs",
        source=f"results/bench/sampling/{stamp}/results.json",
        date=date,
    )
