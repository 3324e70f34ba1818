"""Fidelity monitor of an emulated lab: while a race runs, each host's and role's CPU against its quota, its throttling
and waiting for CPU (``/proc/<tid>/schedstat``, counted only in seconds it was not throttled), disk rates against each
throttle, memory against the limit, link traffic and drops, and what processes outside the lab took. The emulation
*held* when every share got what it was entitled to; otherwise the race is marked like an invalid one."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from ingestlab import machine as this_machine
from ingestlab.hosts import cgroups, disks, links
from ingestlab.procs import Poller

STARVED_LIMIT = 0.10  # a group that waited for CPU, unthrottled, for more than 10 % of its entitlement: the emulation broke
SATURATED_LIMIT = 0.10  # seconds with the machine saturated while processes outside the lab took more than the spare CPU
SATURATED = 0.95
OVER_LIMIT = 1.10  # a device serving more than 110 % of its throttle
# a device's peak rate is taken over windows this long: the throttle lets a large bio through whole once its budget allows
DISK_WINDOW_S = 5.0


@dataclass
class _Watched:
    host: str
    role: str  # node, driver, coordinator
    group: cgroups.Group
    first: dict = field(default_factory=dict)
    waited_ns: int = 0  # every wait of its threads
    contended_ns: int = 0  # waits in seconds it was not throttled: waiting for a CPU its quota allowed
    last_delay: dict = field(default_factory=dict)  # tid -> run_delay ns at the last look
    last: dict = field(default_factory=dict)  # its stats at the last look


def _cores(cpus: float) -> str:
    return f"{cpus:g} core{'s' if cpus != 1 else ''}"


def _run_delay(tid: int) -> int | None:
    try:
        return int(Path(f"/proc/{tid}/schedstat").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None


class Monitor(Poller):
    """``with Monitor(lab) as m:`` around a race; ``m.report`` afterwards."""

    def __init__(self, lab, interval: float = 1.0):
        self.lab, self.interval = lab, interval
        self.hardware = lab.profile
        self.watched = [_Watched(h.name, role, lab.group(h.name, role)) for h in lab.hosts for role in ("node", "driver")]
        self.watched.append(_Watched("coordinator", "driver", lab.group("coordinator", "driver")))
        self.disks = {d["host"]: d for d in lab.disks}
        self.peak_disk: dict = {}
        self._disk_history: list = []  # (time, device counters), the newest at least a window old first
        self.report: dict = {}

    def look(self) -> None:
        used = 0
        for w in self.watched:
            waited = 0
            for tid in w.group.threads():
                delay = _run_delay(tid)
                if delay is None:
                    continue
                waited += max(0, delay - w.last_delay.get(tid, delay))
                w.last_delay[tid] = delay
            stats = w.group.stats()
            if w.last and stats["nr_throttled"] == w.last["nr_throttled"]:
                w.contended_ns += waited
            if w.last:
                used += stats["usage_ns"] - w.last["usage_ns"]
            w.waited_ns += waited
            w.last = stats
        stamp, busy = time.monotonic(), this_machine.busy_ns()
        if getattr(self, "_cpu_last", None):
            span = (stamp - self._cpu_last[0]) * 1e9
            outside = max(0.0, (busy - self._cpu_last[1] - used) / span)
            self.seconds_seen += 1
            if (busy - self._cpu_last[1]) / span >= SATURATED * self.cores and outside > self.spare + 0.05:
                self.saturated_seconds += 1
        self._cpu_last = (stamp, busy)
        self._disk_peaks(stamp, disks.counters())

    def _disk_peaks(self, stamp: float, now: dict) -> None:
        """Each device's highest rate over any window of at least DISK_WINDOW_S seconds so far."""
        history = self._disk_history
        history.append((stamp, now))
        while len(history) > 1 and stamp - history[1][0] >= DISK_WINDOW_S:
            history.pop(0)  # keep the newest sample at least a window old, and those after it
        then, before_all = history[0]
        span = stamp - then
        if span < DISK_WINDOW_S:
            return
        for number, c in now.items():
            before = before_all.get(number, {})
            for key in ("bytes", "ios"):
                moved = sum(c.get(key, {}).values()) - sum(before.get(key, {}).values())
                self.peak_disk[(number, key)] = max(self.peak_disk.get((number, key), 0), moved / span)

    def __enter__(self) -> "Monitor":
        self.started = time.monotonic()
        self.machine_first = this_machine.busy_ns()
        self.cores = os.cpu_count() or 1
        self.seconds_seen = self.saturated_seconds = 0
        for w in self.watched:
            w.first = w.group.stats()
        quotas = sum(w.first["quota_us"] for w in self.watched if w.first["quota_us"] > 0) / cgroups.PERIOD_US
        self.spare = max(0.0, self.cores - quotas)
        self.disk_first = disks.counters()
        self.link_first = {h.name: links.counters(h) for h in self.lab.hosts} if self.hardware.link_bits else {}
        self.look()
        return super().__enter__()

    def __exit__(self, *exc) -> None:
        super().__exit__()
        self.look()
        self.report = self._verdict(time.monotonic() - self.started)

    def _verdict(self, seconds: float) -> dict:
        cores = os.cpu_count() or 1
        problems, groups = [], []
        used_total = 0.0
        for w in self.watched:
            last = w.group.stats()
            used = (last["usage_ns"] - w.first.get("usage_ns", 0)) / 1e9 / seconds
            used_total += used
            quota = last["quota_us"] / cgroups.PERIOD_US if last["quota_us"] > 0 else None
            periods = last["nr_periods"] - w.first.get("nr_periods", 0)
            throttled = (last["nr_throttled"] - w.first.get("nr_throttled", 0)) / periods if periods else 0.0
            waited = w.waited_ns / 1e9 / seconds
            starved = None
            if quota:
                starved = min(w.contended_ns / 1e9 / seconds, max(0.0, quota - used)) / quota
                if starved > STARVED_LIMIT:
                    problems.append(
                        f"the {w.role} of {w.host} waited for CPU its quota allowed {starved:.0%} of the time "
                        f"(used {used:.2f} of {quota:g} cores)"
                    )
            row = {
                "host": w.host,
                "role": w.role,
                "quota_cores": quota,
                "used_cores": round(used, 3),
                "throttled_periods": round(throttled, 3),
                "waiting_threads": round(waited, 3),
                "starved": None if starved is None else round(starved, 3),
                "memory_peak_mib": round(last["memory_peak"] / (1 << 20), 1),
                "memory_limit_mib": round(last["memory_limit"] / (1 << 20), 1) if last["memory_limit"] else None,
                # usage reaching the limit: the page cache is reclaimed there, as on a machine with that much memory
                "memory_limit_hits": last["memory_failcnt"] - w.first.get("memory_failcnt", 0),
                "oom_kills": last.get("oom_kills", 0) - w.first.get("oom_kills", 0),
            }
            if row["oom_kills"]:
                problems.append(f"the kernel killed {row['oom_kills']} process(es) of the {w.role} of {w.host} for memory")
            wanted = self.hardware.group_cpus(w.host, w.role)  # the quota emulation.hold put on
            if max(last["quota_us"], -1) != cgroups.quota_us(wanted):
                problems.append(
                    f"the {w.role} of {w.host} ran under {f'a quota of {_cores(quota)}' if quota else 'no CPU quota'} where the "
                    f"profile gives it {_cores(wanted) if wanted else 'none'} (a `hosts up` cut short before its quotas?)"
                )
            groups.append(row)
        machine = (this_machine.busy_ns() - self.machine_first) / 1e9 / seconds
        quotas = sum(g["quota_cores"] or 0 for g in groups)
        outside = max(0.0, machine - used_total)
        spare = max(0.0, cores - quotas)
        if quotas > cores + 1e-9:
            problems.append(f"the shares add up to {quotas:g} cores, more than this machine's {cores}")
        saturated = self.saturated_seconds / self.seconds_seen if self.seconds_seen else 0.0
        if saturated > SATURATED_LIMIT:
            problems.append(
                f"processes outside the lab saturated the machine {saturated:.0%} of the time (on average {outside:.2f} "
                f"cores, {spare:.2f} spare)"
            )
        devices = self._devices(seconds, problems)
        link = self._links(seconds)
        return {
            "held": not problems,
            "problems": problems,
            "seconds": round(seconds, 1),
            "profile": self.hardware.to_json(),
            "machine_cores": cores,
            "machine_busy_cores": round(machine, 3),
            "outside_cores": round(outside, 3),
            "saturated_by_outside": round(saturated, 3),
            "groups": groups,
            "devices": devices,
            "links": link,
        }

    def _devices(self, seconds: float, problems: list) -> list[dict]:
        disk = self.hardware.disk
        if disk is None:
            return []
        last = disks.counters()
        rows = []
        for host, mounted in self.disks.items():
            for number in mounted["numbers"]:
                first, now = self.disk_first.get(number, {}), last.get(number, {})
                moved = sum(now.get("bytes", {}).values()) - sum(first.get("bytes", {}).values())
                ios = sum(now.get("ios", {}).values()) - sum(first.get("ios", {}).values())
                peak_bytes, peak_ios = self.peak_disk.get((number, "bytes"), 0), self.peak_disk.get((number, "ios"), 0)
                rows.append(
                    {
                        "host": host,
                        "device": number,
                        "mb_per_s": round(moved / seconds / 1e6, 3),
                        "iops": round(ios / seconds, 1),
                        "peak_mb_per_s": round(peak_bytes / 1e6, 3),
                        "peak_iops": round(peak_ios, 1),
                        "limit_mb_per_s": round(disk.bytes_per_s / 1e6, 3),
                        "limit_iops": disk.iops,
                    }
                )
                # read and write are throttled apart: together a device may serve up to twice one limit
                if peak_bytes > OVER_LIMIT * 2 * disk.bytes_per_s or peak_ios > OVER_LIMIT * 2 * disk.iops:
                    problems.append(
                        f"device {number} of {host} served {peak_bytes / 1e6:.1f} MB/s, {peak_ios:.0f} IOPS over {DISK_WINDOW_S:g} s, "
                        f"beyond its throttle ({disk.bytes_per_s / 1e6:.1f} MB/s, {disk.iops} IOPS each way)"
                    )
        return rows

    def _links(self, seconds: float) -> list[dict]:
        if not self.link_first:
            return []
        rows = []
        for host in self.lab.hosts:
            now = links.counters(host)
            for direction, c in now.items():
                before = self.link_first.get(host.name, {}).get(direction, {})
                rows.append(
                    {
                        "host": host.name,
                        "direction": direction,
                        "mbit_per_s": round((c["bytes"] - before.get("bytes", 0)) * 8 / seconds / 1e6, 3),
                        "limit_mbit_per_s": round(self.hardware.link_bits / 1e6, 3),
                        "drops": c["drops"] - before.get("drops", 0),
                    }
                )
        return rows


def lines(report: dict) -> list[str]:
    """The report's lines on the emulation: the profile, the verdict, what each share used."""
    if not report:
        return []
    profile = report["profile"]
    out = [f"- Emulated hardware per host: {profile['label']}" + "".join(f"; {n}" for n in profile.get("notes") or ()) + "."]
    if report["held"]:
        out.append(
            f"- Fidelity: **emulation held** over {report['seconds']:,.0f} s (every share got its CPU; the machine ran "
            f"{report['machine_busy_cores']:.2f} of {report['machine_cores']} cores busy, {report['outside_cores']:.2f} outside the lab)."
        )
    else:
        out.append("- Fidelity: **EMULATION DID NOT HOLD** — " + "; ".join(report["problems"]) + ". The figures are not the profile's.")
    busy = [g for g in report["groups"] if g["used_cores"] > 0.01]
    if busy:
        out.append(
            "  - CPU used of quota: "
            + ", ".join(
                f"{g['host']} {g['role']} {g['used_cores']:.2f}/{g['quota_cores'] if g['quota_cores'] is not None else '∞'}"
                f" (throttled {g['throttled_periods']:.0%}" + (f", starved {g['starved']:.0%}" if g["starved"] else "") + ")"
                for g in busy
            )
            + "."
        )
    if report["devices"]:
        out.append(
            "  - Disks (mean / busiest 5 s of limit): "
            + ", ".join(
                f"{d['host']} {d['device']} {d['mb_per_s']:.1f}/{d['peak_mb_per_s']:.1f} of {d['limit_mb_per_s']:.1f} MB/s, "
                f"{d['iops']:.0f}/{d['peak_iops']:.0f} of {d['limit_iops']} IOPS"
                for d in report["devices"]
            )
            + "."
        )
    if report["links"]:
        out.append(
            "  - Links: "
            + ", ".join(
                f"{l['host']} {l['direction']} {l['mbit_per_s']:.1f} of {l['limit_mbit_per_s']:.1f} Mbit/s"
                + (f" ({l['drops']} drops)" if l["drops"] else "")
                for l in report["links"]
            )
            + "."
        )
    return out
