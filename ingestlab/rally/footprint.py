"""What a race cost the machine besides time: the disk its indices took, and the peak memory (``VmHWM``) of Rally's
own processes, found by a variable of the race's in their environment (a lab's host daemons by ``workers_marker``),
and of the load-driver workers among them (named ``rally-worker``), with their largest ``RssAnon`` seen (a worker's
RSS also holds the corpus pages Rally's bulk maps)."""

from __future__ import annotations

import os
from pathlib import Path

from ingestlab.procs import Poller, carrying
from ingestlab.rally import preflight

WORKER_NAME = "rally-worker"  # runners/utils/worker_name.py: the name a pack track gives each load-driver worker


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(parent, []).append(int(entry.name))
    return tree


def descendants(pid: int) -> list[int]:
    tree, found, todo = _children(), [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(tree.get(p, []))
    return found


def status_kib(pid: int, *fields: str) -> dict[str, int]:
    """The named memory fields of ``/proc/PID/status`` in KiB (those it has; none once the process is gone)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return {key: int(rest.split()[0]) for key, _, rest in (line.partition(":") for line in lines) if key in fields}


def kernel_name(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


class ProcessPeaks(Poller):
    """Peak RSS of ``pid``, its descendants, the processes carrying ``marker`` and the workers carrying ``workers_marker``."""

    def __init__(self, pid: int, interval: float = 1.0, marker: str | None = None, workers_marker: str | None = None):
        self.pid, self.interval = pid, interval
        self.marker = marker.encode() if marker else None
        self.workers_marker = workers_marker.encode() if workers_marker else None
        self.peaks: dict[int, int] = {}
        self.anonymous: dict[int, int] = {}  # a worker's largest RssAnon seen (KiB)
        self.workers: set[int] = set()

    def look(self) -> None:
        found = carrying(*(m for m in (self.marker, self.workers_marker) if m))
        race = set(descendants(self.pid)) | set(found.get(self.marker, []))
        for p in race | set(found.get(self.workers_marker, [])):
            if p not in self.workers and kernel_name(p) == WORKER_NAME:  # a worker is named once, early
                self.workers.add(p)
            if p not in race and p not in self.workers:
                continue  # a host daemon's process counts once it is a worker (its lifetime peak: none is missed)
            kib = status_kib(p, "VmHWM", "RssAnon")
            if kib.get("VmHWM", 0) > self.peaks.get(p, 0):
                self.peaks[p] = kib["VmHWM"]
            if p in self.workers and kib.get("RssAnon", 0) > self.anonymous.get(p, 0):
                self.anonymous[p] = kib["RssAnon"]

    def __enter__(self) -> "ProcessPeaks":
        self.look()
        return super().__enter__()

    def pids(self) -> set[int]:
        """Every process of the race seen while it ran (this one's own left out)."""
        return set(self.peaks) - {os.getpid()}

    def summary(self) -> dict:
        """The largest process's peak and every process's, in MiB (largest first; this one's own left out), and the
        workers' peaks (``workers_mib``) and largest anonymous memory seen (``workers_anonymous_mib``), largest first."""
        mine = os.getpid()
        values = sorted((kib / 1024 for p, kib in self.peaks.items() if p != mine), reverse=True)
        workers = sorted((kib / 1024 for p, kib in self.peaks.items() if p in self.workers and p != mine), reverse=True)
        anonymous = sorted((kib / 1024 for p, kib in self.anonymous.items() if p != mine), reverse=True)
        return {
            "largest_mib": round(values[0], 1) if values else None,
            "processes": len(values),
            "peaks_mib": [round(v, 1) for v in values],
            "workers_mib": [round(v, 1) for v in workers],
            "workers_anonymous_mib": [round(v, 1) for v in anonymous],
        }


def indices_bytes(target_hosts: str, client_options: str | None = None, timeout: float = 30.0) -> int | None:
    """Bytes on disk of every index in the cluster (primaries and replicas), or None when it cannot be asked."""
    options = preflight.parse_client_options(client_options)
    url = preflight.base_url(target_hosts.split(",")[0].strip(), options)
    try:
        rows = preflight.get_json(url + "_cat/indices?bytes=b&format=json&h=index,store.size&expand_wildcards=all", options, timeout)
    except Exception:  # a report must not fail for want of this figure
        return None
    return sum(int(r.get("store.size") or 0) for r in rows)
