"""A lab's hosts on their emulated hardware: whether this machine can make the profile (cgroups, loop devices and
btrfs, tc) and whether it fits the machine, then each host's cgroups, disk and link, and where its node goes."""

from __future__ import annotations

import math
import os

from ingestlab.cluster.service_user import ensure_service_user
from ingestlab.errors import IngestlabError
from ingestlab.hosts import cgroups, disks, links
from ingestlab.hosts import hardware as hw
from ingestlab.hosts.namespaces import Host
from ingestlab.machine import memory_gib


def check(hardware: hw.Hardware, count: int, provision: str) -> None:
    """Stop, in one line, when the profile cannot be made here or does not fit the machine."""
    if not (hardware.emulated or hardware.drivers_limited):
        return
    if provision == "rally":
        raise IngestlabError("emulated hardware is provisioned by the pack: leave out --provision rally")
    reason = missing(hardware)
    if reason:
        raise IngestlabError(f"emulated hardware cannot be made here: {reason}")

    hw.check_fits(hardware, count, os.cpu_count() or 1, int((memory_gib() or 0) * (1 << 30)), hardware.coordinator_share or 0)


def missing(hardware: hw.Hardware) -> str | None:
    """What this machine lacks for the profile, in one line; None when it has all."""
    checks = []
    if hardware.cpus is not None or hardware.memory_bytes is not None or hardware.drivers_limited:
        checks.append(cgroups.unavailable_reason)
    if hardware.disk is not None:
        checks.append(disks.unavailable_reason)
    if hardware.link_bits is not None:
        checks.append(links.unavailable_reason)
    return next((r for r in (c() for c in checks) if r), None)


def emulate(lab, hosts: list[Host], hardware: hw.Hardware, log) -> dict:
    """Each host's cgroups, disk and link; the node placement (data path, launcher) for lifecycle.up. The groups get
    their memory limits now and their CPU quotas from ``hold`` once everything has started; until then a node's group
    holds it to the whole cores its quota rounds up to (``starting_cpus``)."""
    placement = {}
    user = ensure_service_user()
    for host in [*hosts, None]:
        name = host.name if host else "coordinator"
        lab.group(name, "driver").create(None, None)
        if host is None:
            continue
        node = lab.group(name, "node")
        node.create(starting_cpus(hardware.cpus), hardware.memory_bytes)
        place = {"launcher": cgroups.joining([node], []) if hardware.cpus is not None or hardware.memory_bytes is not None else []}
        if hardware.disk is not None:
            mounted = disks.create(lab.directory, name, hardware.disk, (user.uid, user.gid))
            lab.disks.append({"host": name, "mount": mounted.mount, "devices": list(mounted.devices), "numbers": list(mounted.numbers)})
            lab.save()
            place["data_path"] = mounted.mount
        if hardware.link_bits is not None:
            links.shape(host, hardware.link_bits)
        placement[name] = place
    log(f"[ingestlab] each host's hardware: {hardware.label()}")
    return placement


def starting_cpus(cpus: float | None) -> int | None:
    """A node's quota while it starts: the whole cores its own quota rounds up to. A JVM not told its processors
    (Elasticsearch before 8.12 passes no -XX:ActiveProcessorCount) sizes its GC and compiler threads once, at start,
    from the processors a quota gives it (its rounded-up cores), and a JDK >= 23 that sees no limit at start never
    applies one; under this quota it sees what it sees under its own, and starts faster."""
    return math.ceil(cgroups.quota_us(cpus) / cgroups.PERIOD_US) if cpus is not None else None


def hold(lab, hosts: list[Host], hardware: hw.Hardware) -> None:
    """Put the CPU quotas on the groups whose nodes and daemons have started (starting is not what a race on the host
    measures). Processes forked later (a race's actors) start inside their group's quota."""
    for name, role in [*((h.name, role) for h in hosts for role in ("node", "driver")), ("coordinator", "driver")]:
        lab.group(name, role).set_cpus(hardware.group_cpus(name, role))
