"""Where the cgroup v1 controllers are mounted, and the CPU quota and usage of the group a process is in."""

from __future__ import annotations

from pathlib import Path

CONTROLLERS = ("cpu", "cpuacct", "memory")


def mounts() -> dict[str, Path]:
    """Where each cgroup v1 controller is mounted."""
    found: dict[str, Path] = {}
    try:
        lines = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        parts = line.split()
        if len(parts) >= 4 and parts[2] == "cgroup":
            for option in parts[3].split(","):
                if option in CONTROLLERS:
                    found.setdefault(option, Path(parts[1]))
    return found


def groups_of(pid: int | str = "self") -> dict[str, str]:
    """Controller → the group path a process is in (``/proc/PID/cgroup``); empty once it is gone."""
    out: dict[str, str] = {}
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for c in controllers.split(","):
            out[c] = path
    return out


def quota_cores(pid: int | str = "self") -> float | None:
    """The CPU quota (cores) of the ``cpu`` group a process is in, or None when it has none."""
    return group_quota(groups_of(pid).get("cpu"))


def group_quota(group: str | None) -> float | None:
    """The CPU quota (cores) of a ``cpu`` group (a path as ``/proc/PID/cgroup`` gives it), or None when it has none."""
    root = mounts().get("cpu")
    if root is None or group is None:
        return None
    try:
        quota = int((root / group.lstrip("/") / "cpu.cfs_quota_us").read_text())
        period = int((root / group.lstrip("/") / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return quota / period if quota > 0 else None


def usage_seconds(group: str) -> float | None:
    """CPU time used by every process of a ``cpuacct`` group so far (``cpuacct.usage``), or None when it cannot be read."""
    root = mounts().get("cpuacct")
    if root is None:
        return None
    try:
        return int((root / group.lstrip("/") / "cpuacct.usage").read_text()) / 1e9
    except (OSError, ValueError):
        return None


BLKIO = Path("/sys/fs/cgroup/blkio")  # the root group's throttles: what an emulated disk (ingestlab.hosts.disks) is held to


def served() -> dict[str, dict]:
    """Bytes and I/Os each device served so far, as the root ``blkio`` group's throttles counted them:
    ``{"7:5": {"bytes": {"read": .., "write": ..}, "ios": {...}}}``."""
    out: dict[str, dict] = {}
    for name, key in (("io_service_bytes", "bytes"), ("io_serviced", "ios")):
        for number, kind, value in _fields(BLKIO / f"blkio.throttle.{name}", 3):
            if kind in ("Read", "Write"):
                out.setdefault(number, {}).setdefault(key, {})[kind.lower()] = int(value)
    return out


def write_throttles() -> dict[str, dict[str, int]]:
    """Each device with a write throttle in the root ``blkio`` group: ``{"7:5": {"bps": .., "iops": .., "bytes": ..,
    "ios": ..}}``, the throttle's limits (0: none) and the writes it let through so far."""
    out: dict[str, dict[str, int]] = {}
    for name, key in (("write_bps_device", "bps"), ("write_iops_device", "iops")):
        for number, value in _fields(BLKIO / f"blkio.throttle.{name}", 2):
            out.setdefault(number, {"bps": 0, "iops": 0})[key] = int(value)
    for number, got in served().items():
        if number in out:
            out[number].update({key: got[key]["write"] for key in ("bytes", "ios") if "write" in got.get(key, {})})
    return out


def _fields(path: Path, width: int) -> list[list[str]]:
    """The lines of a cgroup file with ``width`` fields each, split (none when it cannot be read)."""
    try:
        return [f for f in (line.split() for line in path.read_text().splitlines()) if len(f) == width]
    except OSError:
        return []


def throttled_seconds(group: str | None) -> float | None:
    """How long a ``cpu`` group's quota has held it back so far (``cpu.stat`` throttled_time), or None."""
    root = mounts().get("cpu")
    if root is None or group is None:
        return None
    try:
        stat = dict(line.split() for line in (root / group.lstrip("/") / "cpu.stat").read_text().splitlines())
        return int(stat["throttled_time"]) / 1e9
    except (OSError, ValueError, KeyError):
        return None
