"""Emulated disks for test hosts: throttled loop devices over sparse files (the root ``blkio`` group's throttles, which
limit buffered writeback too), one per host or several striped as a btrfs RAID0, mounted where the node keeps its
data. Found again from the lab's directory alone, so :func:`remove` cleans up after a crash. Needs root, ``losetup``
and ``mkfs.btrfs``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from ingestlab import cgroup_v1
from ingestlab.errors import IngestlabError
from ingestlab.hosts.hardware import Disk

BLKIO = cgroup_v1.BLKIO
LIMITS = ("read_bps_device", "write_bps_device", "read_iops_device", "write_iops_device")
DEVICE_SIZE = "40G"  # sparse: only what is written takes room


@dataclass(frozen=True)
class Mounted:
    host: str
    mount: str
    devices: tuple[str, ...]  # /dev/loopN
    numbers: tuple[str, ...]  # "7:N" each


def unavailable_reason() -> str | None:
    if os.geteuid() != 0:
        return "emulated disks need root (loop devices, mounts, blkio throttles); run as root"
    for tool, package in (("losetup", "util-linux"), ("mkfs.btrfs", "btrfs-progs")):
        if not shutil.which(tool):
            return f"`{tool}` is missing; install {package} (apt-get install {package})"
    if not (BLKIO / "blkio.throttle.write_bps_device").exists():
        return f"{BLKIO} has no blkio throttles (cgroup v1 blkio is not mounted)"
    if "btrfs" not in Path("/proc/filesystems").read_text():
        return "the kernel has no btrfs, which stripes the RAID0 devices"
    return None


def _run(*cmd: str) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise IngestlabError(f"`{' '.join(cmd)}` failed: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc.stdout.strip()


def _number(device: str) -> str:
    rdev = os.stat(device).st_rdev
    return f"{os.major(rdev)}:{os.minor(rdev)}"


def throttle(number: str, disk: Disk) -> None:
    for limit in LIMITS:
        value = disk.bytes_per_s if "bps" in limit else disk.iops
        (BLKIO / f"blkio.throttle.{limit}").write_text(f"{number} {value}\n")


def unthrottle(number: str) -> None:
    for limit in LIMITS:
        with suppress(OSError):  # no limit set for it
            (BLKIO / f"blkio.throttle.{limit}").write_text(f"{number} 0\n")


def create(directory: Path, host: str, disk: Disk, owner: tuple[int, int]) -> Mounted:
    """``host``'s throttled loop devices under one btrfs at ``directory/mnt/host``, owned by ``owner``; undone on failure."""
    images = directory / "disks"
    images.mkdir(parents=True, exist_ok=True)
    mount = directory / "mnt" / host
    devices: list[str] = []
    try:
        for k in range(disk.devices):
            image = images / f"{host}-d{k + 1}.img"
            _run("truncate", "-s", DEVICE_SIZE, str(image))
            devices.append(_run("losetup", "--find", "--show", str(image)))
        numbers = [_number(d) for d in devices]
        for number in numbers:
            throttle(number, disk)
        profile = ["-d", "raid0", "-m", "raid0"] if disk.devices > 1 else ["-d", "single", "-m", "single"]
        _run("mkfs.btrfs", "-q", "-f", *profile, *devices)
        mount.mkdir(parents=True, exist_ok=True)
        options = ",".join(["noatime", *(f"device={d}" for d in devices)])
        _run("mount", "-t", "btrfs", "-o", options, devices[0], str(mount))
        os.chown(mount, *owner)
    except BaseException:
        remove(directory, only_host=host)
        raise
    return Mounted(host, str(mount), tuple(devices), tuple(numbers))


def _mounts_under(directory: Path) -> list[str]:
    points = [line.split()[1].replace("\\040", " ") for line in Path("/proc/mounts").read_text().splitlines()]
    return sorted((p for p in points if Path(p).is_relative_to(directory)), reverse=True)


def _loops_over(directory: Path) -> list[tuple[str, str]]:
    """(device, backing file) of every loop device whose file lies under ``directory``."""
    try:
        listed = json.loads(_run("losetup", "--list", "--json", "--output", "NAME,BACK-FILE") or '{"loopdevices": []}')
    except (IngestlabError, ValueError):
        return []
    return [
        (d["name"], d["back-file"])
        for d in listed.get("loopdevices", [])
        if d.get("back-file") and Path(d["back-file"].removesuffix(" (deleted)")).is_relative_to(directory)
    ]


def existing(directory: Path) -> list[str]:
    return [f"mount {m}" for m in _mounts_under(directory)] + [f"loop device {d} ({f})" for d, f in _loops_over(directory)]


def remove(directory: Path, only_host: str | None = None) -> list[str]:
    """Throttles off, unmount, detach the loop devices, delete the files: of the lab's disks, or of one host's."""
    removed = []
    loops = [(d, f) for d, f in _loops_over(directory) if only_host is None or Path(f).name.startswith(f"{only_host}-d")]
    for device, _ in loops:
        unthrottle(_number(device))
    for point in _mounts_under(directory / "mnt" / only_host if only_host else directory):
        proc = subprocess.run(["umount", point], capture_output=True, text=True)
        if proc.returncode != 0:
            subprocess.run(["umount", "-l", point], capture_output=True)  # busy: detach it, the kernel finishes
        removed.append(f"mount {point}")
    for device, backing in loops:
        subprocess.run(["losetup", "-d", device], capture_output=True)
        Path(backing.removesuffix(" (deleted)")).unlink(missing_ok=True)
        removed.append(f"loop device {device}")
    if only_host is None:
        shutil.rmtree(directory / "disks", ignore_errors=True)
        shutil.rmtree(directory / "mnt", ignore_errors=True)
    return removed


def counters() -> dict[str, dict]:
    """Bytes and I/Os served per device so far (the root blkio group's throttle counters): {"7:N": {...}}."""
    return cgroup_v1.served()
