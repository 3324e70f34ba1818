"""During a race with ``--load-driver-hosts``: watch the load-driver hosts, and gather their runner stats. ``drivers``
is a lab of test hosts (:class:`ingestlab.hosts.lab.Lab`) or anything alike: ``hosts``, ``actor_port`` and
``runner_stats_file(host)``."""

from __future__ import annotations

import time
from pathlib import Path

import orjson

from ingestlab.net import answers


class DriverWatch:
    """Notices a load-driver host that stops answering on the actor port for ``grace`` seconds; says which, since when."""

    def __init__(self, drivers, grace: float = 5.0):
        self.drivers, self.grace = drivers, grace
        self.started = time.time()
        self._silent_since: dict[str, float] = {}

    def check(self) -> str | None:
        now = time.time()
        for host in self.drivers.hosts:
            if answers(host.address, self.drivers.actor_port, timeout=0.5):
                self._silent_since.pop(host.name, None)
                continue
            since = self._silent_since.setdefault(host.name, now)
            if now - since >= self.grace:
                return (
                    f"load-driver host {host.name} ({host.address}) stopped answering on Rally's actor port {self.drivers.actor_port} "
                    f"at {time.strftime('%H:%M:%S', time.localtime(since))}, {since - self.started:.0f} s into the race: "
                    f"the coordinator cannot hear from the clients there, so the race was stopped and nothing of it is kept "
                    f"as a result"
                )
        return None


class DriverStats:
    """The lines each host's runners append during one race, gathered into the race's own file, marked with the host."""

    def __init__(self, drivers):
        self.drivers = drivers
        self.offsets = {h.name: self._size(drivers.runner_stats_file(h)) for h in drivers.hosts}

    @staticmethod
    def _size(f: Path) -> int:
        return f.stat().st_size if f.is_file() else 0

    def collect(self, into: Path) -> int:
        lines = 0
        into.parent.mkdir(parents=True, exist_ok=True)
        with open(into, "ab") as out:
            for host in self.drivers.hosts:
                f = self.drivers.runner_stats_file(host)
                if not f.is_file():
                    continue
                with open(f, "rb") as src:
                    src.seek(self.offsets[host.name])
                    for line in src:
                        if line.strip():
                            out.write(orjson.dumps({**orjson.loads(line), "load_driver": host.name}) + b"\n")
                            lines += 1
        return lines
