"""What limited a task's rate. :class:`ingestlab.rally.load_side.LoadSide` samples each node's counters once a second
(``_nodes/stats``: CPU, GC, the write pool, merges, refresh, flush, indexing and the disk's writes; the device's busy
time from ``/proc/diskstats`` where the node runs here); :func:`judge` turns their change over a task's window and the
CPU shares the load side measured into one resource — ``load driver``, ``node CPU``, ``GC``, ``merges``, ``refresh``,
``rejections`` or ``disk`` — with its evidence in numbers, or ``no single resource`` with the two largest, and the
task's costs per document indexed (each copy counted, as the nodes count them)."""

from __future__ import annotations

import re
from pathlib import Path

from ingestlab import cgroup_v1
from ingestlab.rally.costs import costs, ms, where_the_time_went

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
        "indices.indexing.index_time_in_millis",
        "indices.merges.total_time_in_millis",
        "indices.merges.total_throttled_time_in_millis",
        "indices.indexing.throttle_time_in_millis",
        "indices.refresh.total_time_in_millis",
        "indices.flush.total_time_in_millis",
        "indices.store.size_in_bytes",
        "fs.io_stats",
        "fs.data.mount",
        "indexing_pressure.memory.total.coordinating_rejections",
        "indexing_pressure.memory.total.primary_rejections",
        "indexing_pressure.memory.total.replica_rejections",
    )
)
NONE = "no single resource"  # the verdict when nothing was at its limit
# the stats to ask for, in turn: Elasticsearch 6.8 has no indexing pressure (7.9 on), and answers 400 for it
STATS_PATHS = [STATS.format(",indexing_pressure"), STATS.format("")]
# a resource is the limit at this share of what it could give: CPU (of the cores it could use), a disk's busy time, GC
# time of the window's; a node at its cores is held by refresh or merges when they took this share of the window
# (thread-seconds a second, summed over its shards)
PARTS = (("gc_ms", "GC"), ("merge_ms", "merges"), ("refresh_ms", "refresh"))  # the node's time in each, as its evidence says
AT_LIMIT = {"load driver": 0.85, "node CPU": 0.85, "disk": 0.85, "GC": 0.25, "merges": 0.5, "refresh": 0.5}
# a throttled device's writes against its throttle: the throttle hands out its budget in time slices, and writes that
# each wait for the one before (an fsync a request) leave some of every slice unused, so a device held at its throttle
# serves less than all of it over a window (92-97 % in the index API on a cold-HDD volume: ledger 2026-12-02T2304-limits,
# 2026-12-02T2309-limits); fixed, not calibrated
THROTTLE_AT_LIMIT = 0.75
THROTTLED = 0.25  # indexing held back for merges this share of the window: merges are the limit
# a group its CPU quota held back half the window's wall-clock time or more, while it used 0.7 of the quota or more, was
# held by the quota: waits between its bursts (for the other side) keep its mean below the quota (fixed, not calibrated)
QUOTA_HELD, QUOTA_USED = 0.5, 0.7


def counters(node: dict, local: bool = False) -> dict[str, float]:
    """One node's cumulative counters from its stats (one left out when the node does not report it, never 0); ``local``:
    the node runs here, so its devices' busy time is read from ``/proc/diskstats`` (``busy_ms:DEVICE``), and where a
    device under its data path has a write throttle (an emulated disk: the root ``blkio`` group's), the writes the throttle
    let through and its limits (``throttle_bytes:N``, ``throttle_ios:N``, ``limit_bps:N``, ``limit_iops:N``)."""
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
        "index_ms": g("indices", "indexing", "index_time_in_millis"),  # the node's indexing threads' time in the engine
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
        throttles = cgroup_v1.write_throttles()
        for number in {n for path in g("fs", "data") or [] for n in _devices_under(path.get("mount") or "")}:
            t = throttles.get(number)
            if t and (t["bps"] or t["iops"]):
                found.update({f"throttle_bytes:{number}": t.get("bytes"), f"throttle_ios:{number}": t.get("ios")})
                found.update({f"limit_bps:{number}": t["bps"], f"limit_iops:{number}": t["iops"]})
    return {k: float(v) for k, v in found.items() if v is not None}


def _devices_under(mount: str) -> tuple[str, ...]:
    """The block devices ("7:5") under a node's data path, from its ``fs.data.mount`` ("/data (/dev/loop5)"): that device,
    or every device of the btrfs it belongs to (an emulated RAID0)."""
    found = re.search(r"\(/dev/([^()/\s]+)\)$", mount)
    if not found:
        return ()
    pools = sorted(Path("/sys/fs/btrfs").glob(f"*/devices/{found.group(1)}"))
    names = sorted(p.name for p in pools[0].parent.iterdir()) if pools else [found.group(1)]
    out = []
    for name in names:
        try:
            out.append(Path(f"/sys/class/block/{name}/dev").read_text().strip())
        except OSError:
            pass
    return tuple(out)


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


def share_of(member: dict) -> float:
    """A load-side worker's or node's mean share of the cores it could use."""
    return member["cores"] / max(member.get("available_cores", member["limit_cores"]), 1e-9)


def at_quota(member: dict) -> bool:
    """Whether a quota held the member back (:data:`QUOTA_HELD`, :data:`QUOTA_USED`)."""
    return member.get("throttled", 0) >= QUOTA_HELD and member["cores"] >= QUOTA_USED * member["limit_cores"]


def throttled_words(member: dict) -> str:
    return f", held back by its quota {member['throttled']:.0%} of the time" if member.get("throttled") else ""


def judge(side: dict, nodes: dict[str, tuple[float, dict, dict]]) -> dict:
    """The limiting resource of one task: ``side`` is the load side's judgement of its window (workers' and nodes' CPU),
    ``nodes`` each node's :func:`change` over it. Returns the resource, its share of its limit, the evidence and the
    task's costs per document."""
    workers = [w for w in side.get("workers", []) if w.get("cores") is not None]
    used = _driver_used(workers) + _cpu_used(side, nodes) + _counters_used(nodes)
    ranked = sorted(((share / limit, share, r, why) for share, limit, r, why in used), reverse=True)
    rejected = sum(d.get("rejected", 0.0) + d.get("pressure_rejected", 0.0) for _, d, _ in nodes.values())
    if rejected > 0:
        out = {
            "resource": "rejections",
            "share": None,
            "evidence": f"{rejected:,.0f} requests rejected (the write pool or indexing pressure)",
        }
    elif not nodes and not (ranked and ranked[0][0] >= 1):
        return {"resource": None, "evidence": "not seen: the nodes' counters were not read (their stats did not answer)"}
    elif ranked and ranked[0][0] >= 1:
        out = {"resource": ranked[0][2], "share": round(ranked[0][1], 3), "evidence": ranked[0][3]}
    elif ranked:
        two = [f"{r} ({why})" for _, _, r, why in _distinct(ranked)[:2]]
        out = {
            "resource": NONE,
            "share": None,
            "evidence": "the two nearest their limits: " + "; ".join(two),
        }
    else:
        return {"resource": None, "evidence": "not seen: no node counters and no CPU shares in the window"}
    return {**out, "costs": costs(nodes, workers)}


# each resource a task used: (its share of what it could give, the share that is its limit, the resource, its evidence)
Used = list[tuple[float, float, str, str]]


def _driver_used(workers: list[dict]) -> Used:
    """The load driver's busiest worker (or its cgroup) against its core or its quota."""
    if not workers:
        return []
    w = max(workers, key=share_of)
    who = f"the load driver's cgroup {w['group']}" if "group" in w else "its busiest worker"
    limit = QUOTA_USED if at_quota(w) else AT_LIMIT["load driver"]
    return [(share_of(w), limit, "load driver", f"{who} {w['cores']:.2f} of {w['limit_cores']:.2f} cores{throttled_words(w)}")]


def _cpu_used(side: dict, nodes: dict[str, tuple[float, dict, dict]]) -> Used:
    """Each node's CPU against the cores it could use, with the window's shares in GC, merges and refresh; a node at its
    cores that spent most of the window refreshing or merging (thread-seconds a second, summed over its shards) was held
    by that work: named as the limit, its CPU the evidence."""
    used: Used = []
    for n in side.get("nodes", []):
        if n.get("cores") is not None and n.get("available_cores"):
            seconds, d, _ = nodes.get(n["name"]) or (1.0, {}, {})
            parts = {what: d[key] / 1000 / seconds for key, what in PARTS if key in d}
            within = f"; of the window: {', '.join(f'{k} {v:.0%}' for k, v in parts.items())}" if parts else ""
            busy = share_of(n)
            why = f"{n['name']} {n['cores']:.2f} of the {n['available_cores']:.2f} cores it could use{throttled_words(n)}"
            held = max((k for k in ("refresh", "merges") if parts.get(k, 0) >= AT_LIMIT[k]), key=parts.get, default=None)
            limit = QUOTA_USED if at_quota(n) else AT_LIMIT["node CPU"]
            used.append((busy, limit, held if held and busy >= limit else "node CPU", why + within))
    return used


def _counters_used(nodes: dict[str, tuple[float, dict, dict]]) -> Used:
    """From each node's counters: its throttled devices, GC, indexing held back for merges, and its devices' busy time."""
    used: Used = []
    for name, (seconds, d, last) in nodes.items():
        for number in sorted({k.split(":", 1)[1] for k in last if k.startswith("limit_bps:")}):
            used += filter(None, [_throttled_device(name, number, seconds, d, last)])
        if "gc_ms" in d:
            share = d["gc_ms"] / 1000 / seconds
            used.append((share, AT_LIMIT["GC"], "GC", f"{name} {share:.0%} of the window in GC"))
        if "throttled_ms" in d:
            share = d["throttled_ms"] / 1000 / seconds
            used.append((share, THROTTLED, "merges", f"{name}'s indexing throttled {share:.0%} of the window while merges caught up"))
        for key in (k for k in d if k.startswith("busy_ms:")):
            writes = f", {d['write_ops'] / seconds:,.0f} writes/s" if "write_ops" in d else ""
            used.append(
                (d[key] / 1000 / seconds, AT_LIMIT["disk"], "disk", f"{name}'s {key[8:]} {d[key] / 1000 / seconds:.0%} busy{writes}")
            )
    return used


def _throttled_device(name: str, number: str, seconds: float, d: dict, last: dict) -> tuple[float, float, str, str] | None:
    """A throttled device's writes against its throttle, by whichever of bytes and I/Os came nearer its limit."""
    kinds = (
        (f"throttle_bytes:{number}", f"limit_bps:{number}", 1e6, "MB/s"),
        (f"throttle_ios:{number}", f"limit_iops:{number}", 1, "writes a second"),
    )
    rates = [(d[key] / seconds / scale, last[cap] / scale, unit) for key, cap, scale, unit in kinds if key in d]
    rates = [r for r in rates if r[1] > 0]
    if not rates:  # its counters not seen over the window: no figure, never 0
        return None
    rate, cap, unit = max(rates, key=lambda r: r[0] / r[1])
    per_doc = (
        f", {d[f'throttle_ios:{number}'] / d['docs']:.2g} writes a document" if d.get("docs") and f"throttle_ios:{number}" in d else ""
    )
    why = f"{name}'s device {number} {rate:,.1f} of the {cap:,.1f} {unit} its throttle allows{per_doc}"
    return rate / cap, THROTTLE_AT_LIMIT, "disk", why


def _distinct(ranked: list) -> list:
    """The ranking with each resource once (its highest)."""
    seen: set = set()
    return [row for row in ranked if not (row[2] in seen or seen.add(row[2]))]


def words(limit: dict | None, rate: float | None = None) -> str | None:
    """A task's limit as a report's words: ``node CPU: node-0 1.96 of the 2.00 cores it could use``; nothing at its
    limit: the two nearest, and where a document's time went (:func:`where_the_time_went`, from its costs: a race stored
    before it carried that in its evidence); ``rate``: the task's median documents a second (each indexed once), with
    which its CPU a document comes to cores: a window's shares are diluted by the pauses between a task's runs, and the
    cores at its rate are an upper figure (the window's CPU, its pauses' too, put on the time its documents took)."""
    if not limit or not limit.get("resource"):
        return None
    c = limit.get("costs") or {}
    evidence = limit["evidence"].split(". Over the window", 1)[0]
    if limit["resource"] == NONE and (spent := where_the_time_went(c)):
        evidence += f". {spent[0].upper()}{spent[1:]}"
    cost = [f"{ms(c['node_cpu_ms_per_doc'])} ms node CPU" if "node_cpu_ms_per_doc" in c else ""]
    cost += [f"{c['bytes_written_per_doc']:,.0f} bytes written" if "bytes_written_per_doc" in c else ""]
    per_doc = " and ".join(filter(None, cost))
    sides = (("node_cpu_ms_per_doc", "node CPU"), ("driver_cpu_ms_per_doc", "the load driver's"))
    at = [f"{c[k] * rate / 1000:.2f} cores of {who}" for k, who in sides if k in c] if rate else []
    at_rate = (
        f"; at its median rate, {rate:,.0f} docs/s, up to {' and '.join(at)} (the window's CPU, its pauses' too, on the time "
        "its documents took)"
        if rate and at
        else ""
    )
    over = f" (judged over {limit['over']}: the race's tasks' spans were not seen)" if limit.get("over") else ""
    return f"{limit['resource']}: {evidence}" + (f" ({per_doc} a document{at_rate})" if per_doc else "") + over
