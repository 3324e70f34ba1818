"""Hardware profiles of emulated test hosts: CPU bandwidth, memory, a disk class (one device or a RAID0) and a link,
given option by option or, with ``--scale``, a study's machine shrunk by one factor (the cores a host gets here ÷ the
study's cores). The IOPS throttle is never below throughput ÷ 64 KiB, so streams stay bound by throughput."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace

from ingestlab.errors import IngestlabError

MIB = 1 << 20
STREAM_IO = 64 << 10  # the largest I/O a throttle is made to allow at full throughput (a btrfs RAID0 stripe element)


@dataclass(frozen=True)
class DiskClass:
    name: str
    mb_per_s: float  # sustained, read and write, MB (10^6 bytes) per second
    iops: int
    note: str


DISK_CLASSES = {
    "sc1": DiskClass("sc1", 12.0, 250, "a cold-HDD cloud volume (EBS sc1, 1 TiB): ~12 MB/s baseline, at most 250 IOPS"),
    "hdd": DiskClass("hdd", 150.0, 150, "a 7,200 rpm disk: ~150 MB/s sequential, ~150 IOPS"),
    "ssd": DiskClass("ssd", 500.0, 20_000, "a SATA SSD: ~500 MB/s, ~20,000 IOPS"),
    "nvme": DiskClass("nvme", 2000.0, 100_000, "an NVMe SSD: ~2,000 MB/s, ~100,000 IOPS"),
}
_RAID = re.compile(r"^raid0:(\d+)x(\w+)$")
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([kmgt]?)$", re.I)
_RATE = re.compile(r"^(\d+(?:\.\d+)?)(kbit|mbit|gbit)$", re.I)


@dataclass(frozen=True)
class Disk:
    kind: str  # sc1, hdd, ssd, nvme
    devices: int = 1  # > 1: a RAID0 (striped) of that many devices of the kind
    scale: float = 1.0  # the devices' throughput and IOPS × this (see --scale)

    @property
    def device(self) -> DiskClass:
        return DISK_CLASSES[self.kind]

    @property
    def bytes_per_s(self) -> int:
        """Each device's throttle, in bytes per second."""
        return max(int(self.device.mb_per_s * 1e6 * self.scale), 4096)

    @property
    def iops(self) -> int:
        """Each device's IOPS throttle: the class's, but never below what a stream at full throughput needs."""
        return max(int(round(self.device.iops * self.scale)), -(-self.bytes_per_s // STREAM_IO), 1)

    @property
    def label(self) -> str:
        one = f"{self.kind} ({self.bytes_per_s / 1e6:,.1f} MB/s, {self.iops:,} IOPS)"
        return one if self.devices == 1 else f"RAID0 of {self.devices} × {one}"

    @classmethod
    def parse(cls, text: str) -> "Disk":
        text = text.strip().lower()
        raid = _RAID.match(text)
        kind, devices = (raid.group(2), int(raid.group(1))) if raid else (text, 1)
        if kind not in DISK_CLASSES or not 1 <= devices <= 8:
            raise IngestlabError(f"--disk {text!r}: one of {', '.join(DISK_CLASSES)}, or raid0:<2-8>x<kind> such as raid0:4xhdd")
        return cls(kind, devices)


def parse_size(text: str) -> int:
    """``3g``, ``512m`` → bytes."""
    m = _SIZE.match(str(text).strip())
    if not m:
        raise IngestlabError(f"--memory {text!r} is not a size like 512m or 3g")
    return int(float(m.group(1)) * {"": 1, "k": 1 << 10, "m": MIB, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()])


def parse_rate(text: str) -> int:
    """``1gbit``, ``100mbit`` → bits per second."""
    m = _RATE.match(str(text).strip())
    if not m:
        raise IngestlabError(f"--link {text!r} is not a rate like 100mbit or 1gbit")
    return int(float(m.group(1)) * {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9}[m.group(2).lower()])


@dataclass(frozen=True)
class Hardware:
    """One test host's hardware. ``driver_cpus``: the CPU bandwidth of the host's Rally load driver, in its own cgroup."""

    cpus: float | None = None  # cores of CPU bandwidth (cgroup quota); None: not limited
    memory_bytes: int | None = None
    disk: Disk | None = None
    link_bits: int | None = None
    driver_cpus: float | None = None
    # the coordinator's load driver, when races run there rather than on the hosts (None: as a host's driver_cpus)
    coordinator_cpus: float | None = None
    source: str = "given"  # "given", or the study the profile was scaled from
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def emulated(self) -> bool:
        return any(v is not None for v in (self.cpus, self.memory_bytes, self.disk, self.link_bits))

    @property
    def drivers_limited(self) -> bool:
        """Whether any load driver, a host's or the coordinator's, has a CPU share of its own."""
        return self.driver_cpus is not None or self.coordinator_cpus is not None

    @property
    def coordinator_share(self) -> float | None:
        return self.coordinator_cpus if self.coordinator_cpus is not None else self.driver_cpus

    def group_cpus(self, host: str, role: str) -> float | None:
        """The CPU quota of a lab's group: a host's ``node`` or ``driver``, or the ``coordinator``'s driver."""
        if role == "node":
            return self.cpus
        return self.coordinator_share if host == "coordinator" else self.driver_cpus

    @property
    def heap(self) -> str | None:
        """Half the memory for the JVM heap, as Elasticsearch advises (the rest: off-heap and the page cache)."""
        if self.memory_bytes is None:
            return None
        return f"{max(self.memory_bytes // 2 // MIB, 256)}m"

    @property
    def processors(self) -> int | None:
        """``node.processors``: Elasticsearch sizes its thread pools for the cores the host has."""
        return max(1, round(self.cpus)) if self.cpus is not None else None

    def label(self) -> str:
        parts = [
            f"{self.cpus:g} cores" if self.cpus is not None else None,
            f"{self.memory_bytes / (1 << 30):,.2f} GiB (heap {self.heap})" if self.memory_bytes is not None else None,
            self.disk.label if self.disk is not None else None,
            f"link {self.link_bits / 1e6:,.1f} Mbit/s" if self.link_bits is not None else None,
            f"load driver {self.driver_cpus:g} cores" if self.driver_cpus is not None else None,
            f"the coordinator's load driver {self.coordinator_cpus:g} cores" if self.coordinator_cpus is not None else None,
        ]
        text = ", ".join(p for p in parts if p)
        return text + (f" (scaled from {self.source})" if self.source != "given" else "") if text else "this machine, shared"

    def tag(self) -> str:
        """The profile in a Rally user tag (no ',' or ':'), e.g. ``0.5cpu-1.0gb-raid0x4hdd-41.7mbit``."""
        parts = [
            f"{self.cpus:g}cpu" if self.cpus is not None else None,
            f"{self.memory_bytes / (1 << 30):.1f}gb" if self.memory_bytes is not None else None,
            (f"raid0x{self.disk.devices}" if self.disk.devices > 1 else "") + f"{self.disk.kind}{self.disk.bytes_per_s / 1e6:.1f}mbps"
            if self.disk is not None
            else None,
            f"{self.link_bits / 1e6:.1f}mbit" if self.link_bits is not None else None,
        ]
        return "-".join(p for p in parts if p) or "shared"

    def to_json(self) -> dict:
        out = asdict(self)
        out["disk"] = {**asdict(self.disk), "bytes_per_s": self.disk.bytes_per_s, "iops": self.disk.iops} if self.disk else None
        out["label"] = self.label()
        return out

    @classmethod
    def from_json(cls, data: dict | None) -> "Hardware":
        if not data:
            return cls()
        disk = data.get("disk")
        plain = {k: v for k, v in data.items() if k in ("cpus", "memory_bytes", "link_bits", "driver_cpus", "coordinator_cpus", "source")}
        return cls(
            **plain,
            disk=Disk(disk["kind"], disk["devices"], disk.get("scale", 1.0)) if disk else None,
            notes=tuple(data.get("notes") or ()),
        )


@dataclass(frozen=True)
class StudyMachine:
    """A study's machine, as the article describes it (numbers it does not give are marked as assumed)."""

    name: str
    cores: int
    memory_bytes: int
    disk: str  # a disk class
    link_bits: int
    assumed: tuple[str, ...]


STUDY_MACHINES = {
    # study 5: "12 cores, 24 GB", one plain disk or a RAID0 of 4 (mdadm); the article names no disk model or network
    "study5": StudyMachine(
        "study 5's machines (12 cores, 24 GB, plain disks)",
        12,
        24 << 30,
        "hdd",
        int(1e9),
        ("the plain disk is taken as a 7,200 rpm HDD (150 MB/s, 150 IOPS)", "the network as 1 Gbit/s"),
    ),
    # study 4: 8 HDD nodes of 12 cores; their memory, disk model and network are not given
    "study4": StudyMachine(
        "study 4's nodes (8 HDD nodes x 12 cores)",
        12,
        24 << 30,
        "hdd",
        int(1e9),
        ("24 GB per node, as study 5's (the article gives none)", "a 7,200 rpm HDD (150 MB/s, 150 IOPS)", "1 Gbit/s between nodes"),
    ),
}


def scaled(study: str, cpus: float, devices: int = 1, driver_cpus: float | None = None, coordinator_cpus: float | None = None) -> Hardware:
    """A host with ``cpus`` cores here, and memory, disk and link shrunk from the study's machine by the same factor."""
    try:
        machine = STUDY_MACHINES[study]
    except KeyError:
        raise IngestlabError(f"--scale {study!r}: one of {', '.join(STUDY_MACHINES)}") from None
    factor = cpus / machine.cores
    return Hardware(
        cpus=cpus,
        memory_bytes=int(machine.memory_bytes * factor),
        disk=Disk(machine.disk, devices, factor),
        link_bits=int(machine.link_bits * factor),
        driver_cpus=driver_cpus,
        coordinator_cpus=coordinator_cpus,
        source=machine.name,
        notes=(f"× {factor:.4f} of the study's machine ({cpus:g} of {machine.cores} cores)", *machine.assumed),
    )


def from_options(
    cpus: float | None = None,
    memory: str | None = None,
    disk: str | None = None,
    link: str | None = None,
    driver_cpus: float | None = None,
    scale: str | None = None,
    coordinator_cpus: float | None = None,
) -> Hardware:
    """The profile the ``hosts up`` options describe; with ``scale``, the study's machine at ``cpus`` cores, overridden."""
    for name, value in (("--cpus", cpus), ("--driver-cpus", driver_cpus), ("--coordinator-cpus", coordinator_cpus)):
        if value is not None and not 0.01 <= value <= 64:
            raise IngestlabError(f"{name} {value}: a number of cores between 0.01 and 64")
    parsed_disk = Disk.parse(disk) if disk else None
    if scale:
        if cpus is None:
            raise IngestlabError("--scale needs --cpus: the cores each host gets here, which set the scale")
        base = scaled(scale, cpus, parsed_disk.devices if parsed_disk else 1, driver_cpus, coordinator_cpus)
        if parsed_disk is not None:
            base = replace(base, disk=Disk(parsed_disk.kind, parsed_disk.devices, base.disk.scale))
        return replace(
            base, memory_bytes=parse_size(memory) if memory else base.memory_bytes, link_bits=parse_rate(link) if link else base.link_bits
        )
    return Hardware(
        cpus=cpus,
        memory_bytes=parse_size(memory) if memory else None,
        disk=parsed_disk,
        link_bits=parse_rate(link) if link else None,
        driver_cpus=driver_cpus,
        coordinator_cpus=coordinator_cpus,
    )


def check_fits(hardware: Hardware, hosts: int, cores: int, memory_bytes: int, coordinator_cpus: float = 0.0) -> None:
    """The shares of every host (node and load driver) must fit in this machine, or the emulation cannot hold."""
    cpu = hosts * ((hardware.cpus or 0) + (hardware.driver_cpus or 0)) + coordinator_cpus
    if hardware.cpus is not None and cpu > cores + 1e-9:
        raise IngestlabError(
            f"{hosts} hosts × ({hardware.cpus:g} + {hardware.driver_cpus or 0:g} load-driver) cores"
            + (f" + {coordinator_cpus:g} for the coordinator's load driver" if coordinator_cpus else "")
            + f" = {cpu:g} cores, more than this machine's {cores}: lower --cpus or the number of hosts"
        )
    if hardware.memory_bytes is not None and hosts * hardware.memory_bytes > memory_bytes * 0.9:
        raise IngestlabError(
            f"{hosts} hosts × {hardware.memory_bytes / (1 << 30):.1f} GiB is more than 90 % of this machine's "
            f"{memory_bytes / (1 << 30):.1f} GiB: lower --memory or the number of hosts"
        )
