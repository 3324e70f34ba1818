"""``python -m devtools.bench limits``: the examples docs/limits.md quotes, one race each on this machine, each with a
bottleneck put where it is known: bulks of 1,000 with four clients (node CPU); a 1 ms refresh interval on Elasticsearch
7.17 and 9.2 and on OpenSearch (refresh); a 128 MB heap under bulks of 500 (what GC took); bulks of 500 over 8 shards
without retries against a node whose write queue holds two requests (rejections); the index API on an emulated host's
cold-HDD volume (disk), and with its load driver held to 0.05 of a core (load driver). Prints each verdict and writes
one ledger entry."""

from __future__ import annotations

import re
import subprocess
import sys

from ingestlab import paths, racing
from ingestlab.cluster import lifecycle
from ingestlab.rally import results

EVENTDATA = {"eventdata_docs": 100_000, "bulk_size": 100, "bulk_indexing_clients": 2}
CASES = {  # name: (engine, version, heap, params over EVENTDATA[, the node's settings])
    "cpu": ("elasticsearch", "7.17.29", "1g", {"eventdata_docs": 200_000, "bulk_size": 1000, "bulk_indexing_clients": 4}),
    "refresh": ("elasticsearch", "7.17.29", "1g", {"refresh_interval": "1ms"}),
    "refresh-92": ("elasticsearch", "9.2.0", "1g", {"refresh_interval": "1ms"}),
    "refresh-os": ("opensearch", "2.19.0", "768m", {"refresh_interval": "1ms"}),
    "gc": ("elasticsearch", "7.17.29", "128m", {"bulk_size": 500}),
    "rejections": (
        "elasticsearch",
        "7.17.29",
        "512m",
        {"bulk_size": 500, "number_of_shards": 8, "bulk_retries_on_429": 0},
        {"thread_pool.write.queue_size": "2"},
    ),
}


def _eventdata(name: str, log) -> dict:
    engine, version, heap, params, *settings = CASES[name]
    shape = lifecycle.Shape(
        version=version,
        heap=heap,
        engine=engine,
        name="ingestlab-bench-limits",
        http_port=29276,
        transport_port=29376,
        settings=settings[0] if settings else {},
    )
    with lifecycle.running(shape, log=log) as cluster:
        result = racing.race(
            paths.TRACKS_DIR / "eventdata",
            racing.Target(hosts=cluster.hosts, engine=engine),
            racing.Options(
                challenge="append-no-conflicts-index-only",
                params={**EVENTDATA, **params},
                tags={"bench": "limits"},
                on_error="continue" if settings else "abort",  # rejected requests are the case's point, not a failure
            ),
            log=lambda *_: None,
            stream=False,
        )
    task = result.tasks.get("index-append")
    got = result.footprint["load_side"]["tasks"]["index-append"]
    errors = task.error_rate if task else None
    return {
        "race": result.race_id,
        "rate": task.throughput_median if task else None,
        "limit": got["limit"],
        "nodes": got["nodes"],
        "error_rate": errors,
    }


LAB = {"disk": ["--disk", "sc1"], "driver": ["--driver-cpus", "0.05"]}  # an emulated host's profile, each with one bottleneck


def _lab(name: str, log) -> dict:
    cli = [sys.executable, "-m", "ingestlab.cli"]
    prefix, tag = "ingbl", f"bench-limits-{name}"
    up = subprocess.run([*cli, "hosts", "up", "--hosts", "1", "--prefix", prefix, "--subnet", "127.213.23", *LAB[name]], text=True)
    try:
        if up.returncode:
            raise SystemExit("hosts up failed")
        subprocess.run(
            [*cli, "race", "posts", "--challenge", "index-api", "--test-mode", "--hosts", prefix, "--tag", f"run:{tag}"]
            + ["--track-param", "posts_docs=200"],
            check=True,
            capture_output=True,
        )
    finally:
        subprocess.run([*cli, "hosts", "down", "--prefix", prefix], capture_output=True)
    race = results.latest_race({"study": "posts", "run": tag})
    side = race[results.FOOTPRINT_KEY]["load_side"]
    return {"race": race["race-id"], "limit": side["limit"], "nodes": side["nodes"], "workers": side["workers"]}


def _percent(pattern: str, text: str) -> float | None:
    found = re.search(pattern, text)
    return float(found.group(1)) if found else None


def run(log=print) -> dict:
    out = {name: _eventdata(name, log) for name in CASES}
    out.update({name: _lab(name, log) for name in LAB})
    for name, got in out.items():
        log(f"[ingestlab] limits: {name} (race {got['race'][:8]}): {got['limit']['resource']}: {got['limit']['evidence']}")
    return out


def to_ledger(data: dict, stamp: str, command: str) -> None:
    from devtools import ledger

    def f(value, unit, label):
        return ledger.Figure(None if value is None else round(value, 3), unit, label)

    cpu, gc, disk = data["cpu"], data["gc"], data["disk"]
    node = cpu["nodes"][0]
    figures = {
        "cpu-resource-is-node-cpu": f(
            float(cpu["limit"]["resource"] == "node CPU"), "", "7.17.29, bulk 1000, 4 clients: named node CPU (1 yes)"
        ),
        "cpu-rate": f(cpu["rate"], "docs/s", "7.17.29, 200,000 docs, bulk 1000, 4 clients: index-append median"),
        "cpu-cores": f(node["cores"], "cores", "same race: the node's CPU"),
        "cpu-could": f(node["available_cores"], "cores", "same race: the cores the node could use beside the load driver"),
        "cpu-us-per-doc": f(cpu["limit"]["costs"].get("node_cpu_ms_per_doc", 0) * 1000 or None, "µs", "same race: node CPU a document"),
        "cpu-bytes-per-doc": f(cpu["limit"]["costs"].get("bytes_written_per_doc"), "B", "same race: bytes written a document"),
        "gc-share": f(_percent(r"GC (\d+)%", gc["limit"]["evidence"]), "%", "7.17.29, 128m heap, bulk 500: the window's time in GC"),
        "gc-refresh-share": f(_percent(r"refresh (\d+)%", gc["limit"]["evidence"]), "%", "same race: the window's time in refresh"),
        "disk-share": f(
            disk["limit"]["share"] * 100 if disk["limit"].get("share") else None, "%", "7.17.29 on sc1: writes of the throttle's"
        ),
        "disk-writes-per-doc": f(
            _percent(r"([\d.]+) writes a document", disk["limit"]["evidence"]), "writes", "same race: writes a document"
        ),
    }
    for name, label in (("refresh", "7.17.29"), ("refresh-92", "9.2.0"), ("refresh-os", "OpenSearch 2.19.0")):
        got = data[name]
        figures[f"{name}-rate"] = f(got["rate"], "docs/s", f"{label}, refresh_interval 1ms, bulk 100, 2 clients: index-append median")
        figures[f"{name}-share"] = f(_percent(r"refresh (\d+)%", got["limit"]["evidence"]), "%", f"{label}: the window's time in refresh")
        figures[f"{name}-named"] = f(float(got["limit"]["resource"] == "refresh"), "", f"{label}: named refresh (1 yes)")
    rejected = data["rejections"]
    figures["rejections-named"] = f(
        float(rejected["limit"]["resource"] == "rejections"),
        "",
        "7.17.29, write queue of 2, bulks of 500 over 8 shards, no retries: named rejections (1 yes)",
    )
    figures["rejections-count"] = f(
        _percent(r"(\d+) requests rejected", rejected["limit"]["evidence"].replace(",", "")),
        "requests",
        "same race: requests the node rejected",
    )
    figures["rejections-error-rate"] = f(
        None if rejected["error_rate"] is None else rejected["error_rate"] * 100, "%", "same race: Rally's error rate in index-append"
    )
    figures["gc-resource-is-node-cpu"] = f(float(gc["limit"]["resource"] == "node CPU"), "", "128m heap: named node CPU (1 yes)")
    figures["disk-named"] = f(float(disk["limit"]["resource"] == "disk"), "", "sc1: named disk (1 yes)")
    driver = data["driver"]
    worker = max(driver["workers"], key=lambda w: (w["cores"] or 0) / w["limit_cores"], default={})
    figures["driver-named"] = f(float(driver["limit"]["resource"] == "load driver"), "", "--driver-cpus 0.05: named load driver (1 yes)")
    figures["driver-cores"] = f(worker.get("cores"), "cores", "--driver-cpus 0.05, the index API: the busiest worker's (or group's) CPU")
    figures["driver-quota"] = f(worker.get("limit_cores"), "cores", "same race: its quota")
    races = ", ".join(f"{name} {got['race'][:8]}" for name, got in data.items())
    ledger.record(f"{stamp}-limits", "limits", command, figures, conditions=f"one race each on this machine; races: {races}")
