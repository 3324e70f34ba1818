"""What a race cost the machine besides time: the peak memory of Rally's own processes, and the disk its
indices took.

:class:`ProcessPeaks` watches the esrally process and everything it starts (its actor system: the driver, the
load-driver workers, which thespian detaches from the esrally process, so they are found by a variable of the race's
own in their environment) once a second and keeps each process's peak resident set size (``VmHWM``, which the
kernel keeps itself, so a short peak between two looks is not missed), and which of them are load-driver workers
(the pack's tracks give a worker the kernel name ``rally-worker``: see ``runners/utils/worker_name.py``). With load-driver
hosts of a lab on this machine, the workers run under the hosts' Rally daemons, which started before the race: those
are found by the lab's own variable (``workers_marker``), and of them only the processes named as workers count.
A worker's RSS also holds the file pages it maps: Rally's own bulk reads a corpus file through mmap, so a worker
streaming a 2 GB pmc file shows GBs of RSS that are page cache, not its memory. So each look also reads a worker's
anonymous resident memory (``RssAnon``: its heap and stacks), whose largest value seen is kept beside the peak (a
sample once a second: a peak shorter than that can be missed, which VmHWM never misses).
:func:`indices_bytes` asks the cluster how much disk its indices use (every copy: primaries and replicas).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ingestlab.procs import carrying
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
    found = {}
    for line in lines:
        key, _, rest = line.partition(":")
        if key in fields:
            found[key] = int(rest.split()[0])
    return found


def kernel_name(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


class ProcessPeaks:
    """Peak RSS of ``pid``, its descendants and the processes carrying ``marker`` in their environment, and of the
    workers among the processes carrying ``workers_marker``, while the ``with`` block runs (polled every ``interval`` s)."""

    def __init__(self, pid: int, interval: float = 1.0, marker: str | None = None, workers_marker: str | None = None):
        self.pid, self.interval = pid, interval
        self.marker = marker.encode() if marker else None
        self.workers_marker = workers_marker.encode() if workers_marker else None
        self.peaks: dict[int, int] = {}
        self.anonymous: dict[int, int] = {}  # a worker's largest RssAnon seen (KiB)
        self.workers: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

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

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.look()

    def __enter__(self) -> "ProcessPeaks":
        self.look()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def pids(self) -> set[int]:
        """Every process of the race seen while it ran (this one's own left out)."""
        return set(self.peaks) - {os.getpid()}

    def summary(self) -> dict:
        """The largest process's peak and every process's, in MiB (largest first), leaving out this one's own; and the
        load-driver workers' peaks (``workers_mib``, largest first; empty when no worker was named, e.g. a track
        not of the pack) and their largest anonymous memory seen (``workers_anonymous_mib``, largest first)."""
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
