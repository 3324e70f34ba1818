"""Which side of a race was at its limit: the load driver's workers or the cluster's nodes. :class:`LoadSide` samples
once a second each worker's CPU time (against one core, or its cgroup's quota) and each node's (from ``/proc`` when
it runs here, else ``_nodes/stats``). Each task is judged on the median shares over its span: ``cluster bound`` when a
node reached :data:`SATURATED` of what it could use, ``load driver bound`` when only a worker did, else neither."""

from __future__ import annotations

import os
import statistics
import time
import urllib.error
from contextlib import suppress
from pathlib import Path

from ingestlab import machine
from ingestlab.cgroup_v1 import group_quota, groups_of, quota_cores, throttled_seconds, usage_seconds
from ingestlab.procs import Poller
from ingestlab.rally import limits, preflight
from ingestlab.rally.footprint import kernel_name

SATURATED = 0.85
VARIABLE = "INGESTLAB_SAMPLING"  # off: no sampling during races (what its cost is measured against)
DRIVER_BOUND, CLUSTER_BOUND, NEITHER = "load driver bound", "cluster bound", "neither at its limit"
_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float | None:
    """User and system CPU time of a process (all its threads), or None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK


def _series(samples: list[tuple[float, float]], step: int = 1) -> dict[float, float]:
    """CPU shares (cores) by the time of the look ending each interval, between looks ``step`` apart."""
    return {t2: (c2 - c1) / (t2 - t1) for (t1, c1), (t2, c2) in zip(samples, samples[step:]) if t2 > t1}


def mean_over(samples: list[tuple[float, float]], window: set[float]) -> float | None:
    """The mean share (cores) between the first and last looks of ``window``: a counter's change over its seconds, as
    the nodes' CPU is taken (None with fewer than two looks in it)."""
    kept = [(t, c) for t, c in samples if t in window]
    return (kept[-1][1] - kept[0][1]) / (kept[-1][0] - kept[0][0]) if len(kept) > 1 and kept[-1][0] > kept[0][0] else None


def during(series: dict[float, float], window: set[float]) -> float | None:
    """The median share over the looks of ``window`` (None when none of them is in the series)."""
    kept = [v for t, v in series.items() if t in window]
    return statistics.median(kept) if kept else None


class LoadSide(Poller):
    """Samples the workers ``peaks`` finds and the nodes of ``target_hosts`` once a second while the block runs."""

    def __init__(self, peaks, target_hosts: str | None, client_options: str | None = None, interval: float = 1.0):
        self.peaks, self.interval = peaks, interval
        self.workers: dict[int, list[tuple[float, float]]] = {}
        self.worker_quota: dict[int, float | None] = {}  # the quota of its group, as last read while the worker lived
        self.groups: dict[str, list[tuple[float, float]]] = {}  # a quota'd group the workers run in: its processes' CPU together
        self.group_quota: dict[str, float] = {}
        self.cpu_group: dict[str, str] = {}  # a quota'd cpuacct group (a worker's) or node id → its cpu group
        self.throttles: dict[str, list[tuple[float, float]]] = {}  # the same → (time, seconds its quota held it back)
        self.nodes: dict[str, list[tuple[float, float]]] = {}
        self.node_facts: dict[str, dict] = {}
        self.counters: dict[str, list[tuple[float, dict]]] = {}  # each node's counters (ingestlab.rally.limits)
        self.machine: list[tuple[float, float]] = []  # this machine's busy CPU seconds so far (all cores, /proc/stat)
        self.off = False  # INGESTLAB_SAMPLING=off, read as the block starts
        self._stats = list(limits.STATS_PATHS)
        self._url = self._options = None
        if target_hosts:
            self._options = preflight.parse_client_options(client_options)
            self._url = preflight.base_url(target_hosts.split(",")[0].strip(), self._options)

    def _node_stats(self) -> dict:
        try:
            return preflight.get_json(self._url + self._stats[0], self._options, timeout=2.0).get("nodes", {})
        except urllib.error.HTTPError as e:
            if e.code == 400 and len(self._stats) > 1:  # an engine without a metric asked for: ask without it from now on
                self._stats.pop(0)
            return {}
        except Exception:  # a node that does not answer for a second is a gap in the samples, not a failed race
            return {}

    def _node_facts(self) -> None:
        try:
            nodes = preflight.get_json(
                self._url + "_nodes/os,process?filter_path=nodes.*.name,nodes.*.os.allocated_processors,nodes.*.process.id",
                self._options,
                timeout=5.0,
            ).get("nodes", {})
        except Exception:
            return
        for node_id, node in nodes.items():
            pid = (node.get("process") or {}).get("id")
            local = pid is not None and kernel_name(pid) == "java"
            quota = quota_cores(pid) if local else None
            if quota:
                self.cpu_group[node_id] = groups_of(pid).get("cpu")
            self.node_facts[node_id] = {
                "name": node.get("name", node_id),
                "allocated": (node.get("os") or {}).get("allocated_processors"),
                "local": local,
                "pid": pid,
                **({"quota": quota} if quota else {}),
            }

    def look(self) -> None:
        now = time.time()  # wall clock: the task spans it is matched with are Rally's join points, on the wall clock
        with suppress(OSError, ValueError):
            self.machine.append((now, machine.busy_ns() / 1e9))
        for pid in list(self.peaks.workers):
            seconds = cpu_seconds(pid)
            if seconds is not None:
                self.workers.setdefault(pid, []).append((now, seconds))
            groups = groups_of(pid)  # read at every look: a worker can be moved into a group while it runs
            quota = group_quota(groups.get("cpu"))
            if quota is not None or pid not in self.worker_quota:  # an exiting process shows the root group: keep what was seen
                self.worker_quota[pid] = quota
                if quota and groups.get("cpuacct"):
                    self.group_quota[groups["cpuacct"]] = quota
                    self.cpu_group[groups["cpuacct"]] = groups.get("cpu")
        for group in self.group_quota:
            used = usage_seconds(group)
            if used is not None:
                self.groups.setdefault(group, []).append((now, used))
        for node_id, facts in self.node_facts.items():
            seconds = cpu_seconds(facts["pid"]) if facts.get("local") else None
            if seconds is not None:
                self.nodes.setdefault(node_id, []).append((now, seconds))
        for key, group in self.cpu_group.items():  # how long a quota held its group back
            held = throttled_seconds(group)
            if held is not None:
                self.throttles.setdefault(key, []).append((now, held))
        for node_id, node in self._node_stats().items() if self._url else ():
            facts = self.node_facts.setdefault(node_id, {"name": node.get("name", node_id)})
            try:  # one odd reply is a gap in the counters, never the end of the sampling
                self.counters.setdefault(node_id, []).append((time.time(), limits.counters(node, facts.get("local", False))))
            except (TypeError, ValueError, AttributeError):
                pass
            if not facts.get("local"):
                millis = ((node.get("process") or {}).get("cpu") or {}).get("total_in_millis")
                if millis is not None:
                    self.nodes.setdefault(node_id, []).append((now, millis / 1000.0))
                cpu = ((node.get("os") or {}).get("cgroup") or {}).get("cpu") or {}
                quota, period = cpu.get("cfs_quota_micros"), cpu.get("cfs_period_micros")
                if quota and period and int(quota) > 0:
                    self.node_facts.setdefault(node_id, {})["quota"] = int(quota) / int(period)

    def __enter__(self) -> "LoadSide":
        self.off = os.environ.get(VARIABLE) == "off"
        if self.off:
            return self
        if self._url:
            self._node_facts()
        return super().__enter__()

    def __exit__(self, *exc) -> None:
        if not self.off:
            super().__exit__()

    def summary(self, spans: dict[str, tuple[float, float]] | None = None) -> dict:
        """Each worker's and node's median CPU share (cores) against what it could use, and the verdict, per task
        (``spans``: task → wall-clock start and end) under ``tasks``, the longest task's also at the top; without spans,
        over the seconds the workers ran."""
        if self.off:
            return {"verdict": None, "why": f"not sampled ({VARIABLE}=off)", "tasks": {}}
        series = {pid: _series(samples) for pid, samples in self.workers.items()}
        ran = {t for one in series.values() for t in one}
        per_task = {task: self._judged(series, {t for t in ran if start < t <= end + 1.0}) for task, (start, end) in (spans or {}).items()}
        per_task = {task: got for task, got in per_task.items() if got["seconds"]}
        for task, got in per_task.items():  # the node counters' change over the task: what limited its rate
            got["limit"] = self._limit(got, spans[task][0], spans[task][1] + 1.0)
        if not per_task:  # no task's span seen (a race whose driver runs on a load-driver host's daemon)
            return self._whole(series, ran)
        longest = max(per_task, key=lambda task: per_task[task]["seconds"])
        return {**per_task[longest], "task": longest, "tasks": per_task}

    def _whole(self, series: dict, ran: set[float]) -> dict:
        """The race judged whole; what limited its rate over the seconds its nodes indexed documents, where they did."""
        indexed = [
            (t1, t2)
            for samples in self.counters.values()
            for (t1, c1), (t2, c2) in zip(samples, samples[1:])
            if c2.get("docs", 0) > c1.get("docs", 0)
        ]
        if not indexed:
            return {**self._judged(series, ran), "tasks": {}}
        start, end = min(t for t, _ in indexed) - 1e-3, max(t for _, t in indexed)
        whole = self._judged(series, {t for t in ran if start < t <= end + 1.0})
        return {**whole, "tasks": {}, "limit": {**self._limit(whole, start, end), "over": "the seconds the nodes indexed documents"}}

    def _limit(self, judged: dict, start: float, end: float) -> dict:
        """What limited the rate between ``start`` and ``end``: the node counters' change over it (:mod:`.limits`)."""
        changed = {self.node_facts.get(n, {}).get("name", n): limits.change(s, start, end) for n, s in self.counters.items()}
        return limits.judge(judged, {n: c for n, c in changed.items() if c})

    def _judged(self, series: dict, window: set[float]) -> dict:
        limit = {pid: min(1.0, self.worker_quota.get(pid) or 1.0) for pid in series}
        used = {pid: during(one, window) for pid, one in series.items()}
        workers = [
            {
                "pid": pid,
                "cores": _round(cores),
                "limit_cores": round(limit[pid], 3),
                "mean_cores": _round(mean_over(self.workers[pid], window)),
            }
            for pid, cores in used.items()
            if cores is not None
        ]
        # a quota shared by the workers and the rest of Rally (the driver's cgroup): the group against its quota
        workers += [
            {
                "group": group,
                "cores": _round(during(_series(samples), window)),
                "limit_cores": round(self.group_quota[group], 3),
                "mean_cores": _round(mean_over(samples, window)),
                **self._throttled(group, window),
            }
            for group, samples in self.groups.items()
        ]
        driver_cores = sum(w["cores"] for w in workers if "pid" in w)  # every pid entry has a measured figure
        cores = os.cpu_count() or 1
        busy = during(_series(self.machine), window)
        # a node here could use what it used and what the machine left idle: the load driver and any other process on
        # the machine took the rest
        idle = None if busy is None else max(0.0, cores - busy)
        nodes = []
        for node_id, samples in self.nodes.items():
            facts = self.node_facts.get(node_id, {})
            own = facts.get("quota") or facts.get("allocated") or cores
            used = during(_series(samples, 1 if facts.get("local") else 3), window)
            if not facts.get("local"):
                could = own
            elif used is not None and idle is not None:
                could = min(own, used + idle)
            else:
                could = max(0.0, min(own, cores - driver_cores))
            nodes.append(
                {
                    "name": facts.get("name", node_id),
                    "cores": _round(used),
                    "limit_cores": round(own, 3),
                    "available_cores": round(could, 3),
                    "on_this_machine": bool(facts.get("local")),
                    **self._throttled(node_id, window),
                }
            )
        return {"workers": workers, "nodes": nodes, "seconds": len(window), **verdict(workers, nodes)}

    def _throttled(self, key: str, window: set[float]) -> dict:
        """``{"throttled": share}``: of the wall-clock time over ``window``, how much the group's quota held it back."""
        kept = [(t, held) for t, held in self.throttles.get(key, []) if t in window]
        if len(kept) < 2 or kept[-1][0] <= kept[0][0]:
            return {}
        return {"throttled": round((kept[-1][1] - kept[0][1]) / (kept[-1][0] - kept[0][0]), 3)}


def _round(v: float | None) -> float | None:
    return round(v, 3) if v is not None else None


def verdict(workers: list[dict], nodes: list[dict]) -> dict:
    """``{"verdict": ..., "why": ...}`` from the workers' and nodes' summaries; no verdict when either side was not seen."""
    workers = [w for w in workers if w["cores"] is not None]  # a member with no measured second is not judged (not as 0)
    nodes = [n for n in nodes if n["cores"] is not None]
    if not workers or not nodes:
        return {
            "verdict": None,
            "why": "not seen: "
            + ("no load-driver worker was named (a track not of the pack)" if not workers else "the nodes' CPU was not read"),
        }
    busiest, node = max(workers, key=limits.share_of), max(nodes, key=limits.share_of)
    worker_full = limits.share_of(busiest) >= SATURATED or limits.at_quota(busiest)
    node_full = limits.share_of(node) >= SATURATED or limits.at_quota(node)
    who = f"the load driver's cgroup {busiest['group']}" if "group" in busiest else "busiest worker"
    worker_text = f"{who} {busiest['cores']:.2f} of {busiest['limit_cores']:.2f} cores{limits.throttled_words(busiest)}"
    node_text = (
        f"busiest node {node['name']} {node['cores']:.2f} of {node['available_cores']:.2f} cores it could use{limits.throttled_words(node)}"
    )
    if node_full:
        return {"verdict": CLUSTER_BOUND, "why": f"{node_text}; {worker_text}"}
    if worker_full:
        return {"verdict": DRIVER_BOUND, "why": f"{worker_text}, while the {node_text}"}
    return {"verdict": NEITHER, "why": f"{worker_text}; {node_text}"}
