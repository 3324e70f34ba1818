"""What limited a task's rate. :class:`ingestlab.rally.load_side.LoadSide` samples each node's counters once a second
(``_nodes/stats``: CPU, GC, the write pool, merges, refresh, flush, indexing and the disk's writes; the device's busy
time from ``/proc/diskstats`` where the node runs here); :func:`judge` turns their change over a task's window and the
CPU shares the load side measured into one resource — ``load driver``, ``node CPU``, ``GC``, ``merges``, ``refresh``,
``rejections`` or ``disk`` — with its evidence in numbers, or ``no single resource`` with the two largest, and the
task's costs per document indexed (each copy counted, as the nodes count them)."""

from __future__ import annotations

from pathlib import Path

# the index metrics asked for are the ones used: the node computes no others (segments, fielddata, ...) while measured
STATS = "_nodes/stats/jvm,thread_pool,indices,fs,process,os{}/indexing,merge,refresh,flush,store?filter_path=" + ",".join(
    "nodes.*." + f
    for f in (
        "name",
        "process.cpu.total_in_millis",
        "os.cgroup.cpu",
        "jvm.gc.collectors.*.collection_time_in_millis",
        "thread_pool.write.queue",
        "thread_pool.write.rejected",
        "indices.indexing.index_total",
        "indices.merges.total_time_in_millis",
        "indices.merges.total_throttled_time_in_millis",
        "indices.indexing.throttle_time_in_millis",
        "indices.refresh.total_time_in_millis",
        "indices.flush.total_time_in_millis",
        "indices.store.size_in_bytes",
        "fs.io_stats",
        "indexing_pressure.memory.total.coordinating_rejections",
        "indexing_pressure.memory.total.primary_rejections",
        "indexing_pressure.memory.total.replica_rejections",
    )
)
# the stats to ask for, in turn: Elasticsearch 6.8 has no indexing pressure (7.9 on), and answers 400 for it
STATS_PATHS = [STATS.format(",indexing_pressure"), STATS.format("")]
# a resource is the limit at this share of what it could give: CPU (of the cores it could use), a disk's busy time, GC
# time of the window's; a node at its cores is held by refresh or merges when they took this share of the window
# (thread-seconds a second, summed over its shards)
PARTS = (("gc_ms", "GC"), ("merge_ms", "merges"), ("refresh_ms", "refresh"))  # the node's time in each, as its evidence says
AT_LIMIT = {"load driver": 0.85, "node CPU": 0.85, "disk": 0.85, "GC": 0.25, "merges": 0.5, "refresh": 0.5}
THROTTLED = 0.25  # indexing held back for merges this share of the window: merges are the limit


def counters(node: dict, local: bool = False) -> dict[str, float]:
    """One node's cumulative counters from its stats (one left out when the node does not report it, never 0); ``local``:
    the node runs here, so its devices' busy time is read from ``/proc/diskstats`` (``busy_ms:DEVICE``)."""
    g = lambda *path: _dig(node, path)  # noqa: E731
    gc = [c.get("collection_time_in_millis") for c in (g("jvm", "gc", "collectors") or {}).values()]
    pressure = g("indexing_pressure", "memory", "total")  # 7.9 on
    found = {
        "cpu_ms": g("process", "cpu", "total_in_millis"),
        "gc_ms": sum(gc) if gc and None not in gc else None,
        "queue": g("thread_pool", "write", "queue"),
        "rejected": g("thread_pool", "write", "rejected"),
        "pressure_rejected": sum(pressure.get(k, 0) for k in ("coordinating_rejections", "primary_rejections", "replica_rejections"))
        if pressure
        else None,
        "docs": g("indices", "indexing", "index_total"),
        "merge_ms": _less(g("indices", "merges", "total_time_in_millis"), g("indices", "merges", "total_throttled_time_in_millis")),
        "throttled_ms": g("indices", "indexing", "throttle_time_in_millis"),  # indexing held back while merges catch up
        "refresh_ms": g("indices", "refresh", "total_time_in_millis"),
        "flush_ms": g("indices", "flush", "total_time_in_millis"),
        "store_bytes": g("indices", "store", "size_in_bytes"),
        "written_kb": g("fs", "io_stats", "total", "write_kilobytes"),
        "write_ops": g("fs", "io_stats", "total", "write_operations"),
    }
    if local:
        ticks = _io_ticks()
        for device in g("fs", "io_stats", "devices") or []:
            if device.get("device_name") in ticks:
                found[f"busy_ms:{device['device_name']}"] = ticks[device["device_name"]]
    return {k: float(v) for k, v in found.items() if v is not None}


def _less(total, throttled):
    """Merge time less the time merges were throttled (waiting, not working); None when the node gave no total."""
    return None if total is None else total - (throttled or 0)


def _dig(data, path):
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _io_ticks() -> dict[str, int]:
    """Each block device's milliseconds spent doing I/O (``/proc/diskstats``, the tenth figure after the name)."""
    try:
        lines = Path("/proc/diskstats").read_text().splitlines()
    except OSError:
        return {}
    return {f[2]: int(f[12]) for f in (line.split() for line in lines) if len(f) > 12}


def change(samples: list[tuple[float, dict]], start: float, end: float) -> tuple[float, dict, dict] | None:
    """Over the samples in the window (``start`` < t <= ``end``): its seconds, each counter's change, and the last
    sample (for gauges such as the store's size); None with fewer than two samples."""
    kept = [(t, c) for t, c in samples if start < t <= end]
    if len(kept) < 2 or kept[-1][0] <= kept[0][0]:
        return None
    cpu = [c["cpu_ms"] for _, c in kept if "cpu_ms" in c]
    if any(b < a for a, b in zip(cpu, cpu[1:])):  # the node restarted in the window: its counters began again
        return None
    (t1, first), (t2, last) = kept[0], kept[-1]
    return t2 - t1, {k: last[k] - first[k] for k in last if k in first and last[k] >= first[k]}, last


def judge(side: dict, nodes: dict[str, tuple[float, dict, dict]]) -> dict:
    """The limiting resource of one task: ``side`` is the load side's judgement of its window (workers' and nodes' CPU),
    ``nodes`` each node's :func:`change` over it. Returns the resource, its share of its limit, the evidence and the
    task's costs per document."""
    used: list[tuple[float, float, str, str]] = []  # (share of what it could give, the share that is its limit, resource, evidence)
    workers = [w for w in side.get("workers", []) if w.get("cores") is not None]
    if workers:
        w = max(workers, key=lambda w: w["cores"] / w["limit_cores"])
        who = f"the load driver's cgroup {w['group']}" if "group" in w else "its busiest worker"
        used.append(
            (
                w["cores"] / w["limit_cores"],
                AT_LIMIT["load driver"],
                "load driver",
                f"{who} {w['cores']:.2f} of {w['limit_cores']:.2f} cores",
            )
        )
    for n in side.get("nodes", []):
        if n.get("cores") is not None and n.get("available_cores"):
            seconds, d, _ = nodes.get(n["name"]) or (1.0, {}, {})
            parts = {what: d[key] / 1000 / seconds for key, what in PARTS if key in d}
            within = f"; of the window: {', '.join(f'{k} {v:.0%}' for k, v in parts.items())}" if parts else ""
            busy, why = (
                n["cores"] / n["available_cores"],
                f"{n['name']} {n['cores']:.2f} of the {n['available_cores']:.2f} cores it could use",
            )
            # a node at its cores that spent most of the window refreshing or merging (thread-seconds a second, summed
            # over its shards) was held by that work: named as the limit, its CPU the evidence
            held = max((k for k in ("refresh", "merges") if parts.get(k, 0) >= AT_LIMIT[k]), key=parts.get, default=None)
            used.append((busy, AT_LIMIT["node CPU"], held if held and busy >= AT_LIMIT["node CPU"] else "node CPU", why + within))
    rejected = 0.0
    for name, (seconds, d, _) in nodes.items():
        if "gc_ms" in d:
            used.append(
                (d["gc_ms"] / 1000 / seconds, AT_LIMIT["GC"], "GC", f"{name} {d['gc_ms'] / 1000 / seconds:.0%} of the window in GC")
            )
        if "throttled_ms" in d:
            share = d["throttled_ms"] / 1000 / seconds
            used.append((share, THROTTLED, "merges", f"{name}'s indexing throttled {share:.0%} of the window while merges caught up"))
        for key in (k for k in d if k.startswith("busy_ms:")):
            writes = f", {d['write_ops'] / seconds:,.0f} writes/s" if "write_ops" in d else ""
            used.append(
                (d[key] / 1000 / seconds, AT_LIMIT["disk"], "disk", f"{name}'s {key[8:]} {d[key] / 1000 / seconds:.0%} busy{writes}")
            )
        rejected += d.get("rejected", 0.0) + d.get("pressure_rejected", 0.0)
    ranked = sorted(((share / limit, share, r, why) for share, limit, r, why in used), reverse=True)
    if rejected > 0:
        out = {
            "resource": "rejections",
            "share": None,
            "evidence": f"{rejected:,.0f} requests rejected (the write pool or indexing pressure)",
        }
    elif ranked and ranked[0][0] >= 1:
        out = {"resource": ranked[0][2], "share": round(ranked[0][1], 3), "evidence": ranked[0][3]}
    elif ranked:
        two = [f"{r} ({why})" for _, _, r, why in _distinct(ranked)[:2]]
        out = {"resource": "no single resource", "share": None, "evidence": "the two nearest their limits: " + "; ".join(two)}
    else:
        return {"resource": None, "evidence": "not seen: no node counters and no CPU shares in the window"}
    return {**out, "costs": costs(nodes)}


def _distinct(ranked: list) -> list:
    """The ranking with each resource once (its highest)."""
    seen: set = set()
    return [row for row in ranked if not (row[2] in seen or seen.add(row[2]))]


def costs(nodes: dict[str, tuple[float, dict, dict]]) -> dict:
    """Per document indexed over the window (every node's, each copy counted): node CPU ms and bytes the nodes' data
    devices wrote, each over the nodes that reported it and their documents; and the nodes' store at the window's end. A
    cost the nodes did not report is left out, never 0."""
    docs = [d["docs"] for _, d, _ in nodes.values() if "docs" in d]
    out: dict = {"documents": int(sum(docs)) if docs else None}
    for key, name, scale in (("cpu_ms", "node_cpu_ms_per_doc", 1), ("written_kb", "bytes_written_per_doc", 1024)):
        both = [(d[key], d["docs"]) for _, d, _ in nodes.values() if key in d and "docs" in d]
        if both and sum(n for _, n in both):
            out[name] = round(sum(v for v, _ in both) * scale / sum(n for _, n in both), 4)
    stored = [last["store_bytes"] for _, _, last in nodes.values() if "store_bytes" in last]
    if stored:
        out["store_bytes_at_end"] = sum(stored)
    return out


def words(limit: dict | None) -> str | None:
    """A task's limit as a report's words: ``node CPU: node-0 1.96 of the 2.00 cores it could use``."""
    if not limit or not limit.get("resource"):
        return None
    c = limit.get("costs") or {}
    cost = [f"{c['node_cpu_ms_per_doc']:.3g} ms node CPU" if "node_cpu_ms_per_doc" in c else ""]
    cost += [f"{c['bytes_written_per_doc']:,.0f} bytes written" if "bytes_written_per_doc" in c else ""]
    per_doc = " and ".join(filter(None, cost))
    return f"{limit['resource']}: {limit['evidence']}" + (f" ({per_doc} a document)" if per_doc else "")
