"""Control groups (cgroup v1) for emulated test hosts: ``<controller mount>/ingestlab-<prefix>/<name>`` with a CPU
quota and a memory limit, and the figures the fidelity monitor reads back. A process joins before it starts the
program (:func:`joining`), so all it starts is in the group; :func:`remove` also cleans up after a crash."""

from __future__ import annotations

import os
import shlex
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from ingestlab.cgroup_v1 import CONTROLLERS, mounts
from ingestlab.errors import IngestlabError

PERIOD_US = 100_000
_UNLIMITED = 1 << 62


def unavailable_reason() -> str | None:
    if os.geteuid() != 0:
        return "CPU and memory limits need root (cgroup v1 write access); run as root"
    missing = [c for c in CONTROLLERS if c not in mounts()]
    if missing:
        return f"the cgroup v1 controller(s) {', '.join(missing)} are not mounted (this machine uses cgroup v2 or none)"
    root = mounts()["cpu"]
    if not os.access(root, os.W_OK):
        return f"{root} is not writable (a container without cgroup write access)"
    return None


def _top(prefix: str) -> str:
    return f"ingestlab-{prefix}"


def quota_us(cpus: float | None) -> int:
    """``cpu.cfs_quota_us`` for a quota of ``cpus`` cores over ``PERIOD_US`` (-1: no quota)."""
    return round(cpus * PERIOD_US) if cpus is not None else -1


@dataclass(frozen=True)
class Group:
    prefix: str
    name: str  # e.g. h1-node, h1-driver

    def path(self, controller: str) -> Path:
        return mounts()[controller] / _top(self.prefix) / self.name

    def create(self, cpus: float | None, memory_bytes: int | None) -> None:
        for controller in CONTROLLERS:
            self.path(controller).mkdir(parents=True, exist_ok=True)
        self.set_cpus(cpus)
        if memory_bytes is not None:
            _write(self.path("memory") / "memory.limit_in_bytes", memory_bytes)

    def set_cpus(self, cpus: float | None) -> None:
        """The group's CPU bandwidth quota in cores (None: no quota); its processes keep running under the new one."""
        _write(self.path("cpu") / "cpu.cfs_period_us", PERIOD_US)
        _write(self.path("cpu") / "cpu.cfs_quota_us", quota_us(cpus))

    @property
    def procs_files(self) -> list[Path]:
        return [self.path(c) / "cgroup.procs" for c in CONTROLLERS]

    def threads(self) -> list[int]:
        try:
            return [int(t) for t in (self.path("cpu") / "tasks").read_text().split()]
        except OSError:
            return []

    def stats(self) -> dict:
        """CPU used (cpuacct, ns), CFS periods and throttling, memory peak and limit, limit hits."""
        cpu_stat = _fields(_read(self.path("cpu") / "cpu.stat"))
        limit = int(_read(self.path("memory") / "memory.limit_in_bytes") or _UNLIMITED)
        return {
            "usage_ns": int(_read(self.path("cpuacct") / "cpuacct.usage") or 0),
            "nr_periods": int(cpu_stat.get("nr_periods", 0)),
            "nr_throttled": int(cpu_stat.get("nr_throttled", 0)),
            "throttled_ns": int(cpu_stat.get("throttled_time", 0)),
            "quota_us": int(_read(self.path("cpu") / "cpu.cfs_quota_us") or -1),
            "memory_peak": int(_read(self.path("memory") / "memory.max_usage_in_bytes") or 0),
            "memory_limit": None if limit >= _UNLIMITED else limit,
            "memory_failcnt": int(_read(self.path("memory") / "memory.failcnt") or 0),
            # processes the kernel killed for memory (``oom_kill``; absent on older kernels)
            "oom_kills": int(_fields(_read(self.path("memory") / "memory.oom_control")).get("oom_kill", 0)),
        }


def _fields(text: str) -> dict[str, str]:
    """A cgroup file of ``key value`` lines (cpu.stat, memory.oom_control) as a dict."""
    return dict(line.split() for line in text.splitlines() if line.strip())


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _write(path: Path, value) -> None:
    try:
        path.write_text(f"{value}\n")
    except OSError as e:
        raise IngestlabError(f"cannot write {value} to {path}: {e.strerror}") from None


def joining(groups: list[Group], cmd: list[str]) -> list[str]:
    """``cmd`` run by a shell that first moves itself into ``groups`` (every controller), then becomes ``cmd``."""
    files = " ".join(shlex.quote(str(f)) for g in groups for f in g.procs_files)
    return ["sh", "-c", f'for f in {files}; do echo $$ > "$f" || exit 97; done; exec "$@"', "sh", *cmd]


def existing(prefix: str) -> list[Path]:
    """Every group directory of the prefix, children before their parent."""
    found = []
    for root in dict.fromkeys(mounts().values()):  # cpu and cpuacct may share one mount
        top = root / _top(prefix)
        if top.is_dir():
            found += [p for p in top.iterdir() if p.is_dir()] + [top]
    return found


def remove(prefix: str) -> list[str]:
    """Take away every group of the prefix; a process still in one goes back to its controller's root group."""
    removed = []
    for directory in existing(prefix):
        root = next(r for r in mounts().values() if directory.is_relative_to(r))
        for pid in _read(directory / "cgroup.procs").split():
            with suppress(OSError):  # gone meanwhile
                (root / "cgroup.procs").write_text(pid)
        with suppress(OSError):
            directory.rmdir()
            removed.append(f"cgroup {directory}")
    return removed
