"""The bottleneck law of operational analysis: a system completes no more work per second than the least of its
resources' capacity ÷ demand, where a resource's demand per unit of work is what it was busy for over the work done
(the utilisation law, U = X · D, read backwards). On emulated hosts the fidelity monitor measures the use and the
emulation sets the capacity, so one race's demands predict another setup's rate from its capacities alone.

The work is document copies for the nodes' resources (a replica indexes a document twice) and documents for the load
driver. Use is over the whole race, so a bound is below the bulk task's own median: the ratios between setups carry over.
"""

from __future__ import annotations

from dataclasses import dataclass

NODE_CPU, IOPS, DISK_MB, LINK, DRIVER = "node CPU", "disk IOPS", "disk MB/s", "link", "load driver CPU"
RESOURCES = (NODE_CPU, IOPS, DISK_MB, LINK, DRIVER)
UNITS = {NODE_CPU: "cores", IOPS: "IOPS", DISK_MB: "MB/s", LINK: "Mbit/s", DRIVER: "cores"}


@dataclass(frozen=True)
class Setup:
    """One race's resources: ``capacity`` (in :data:`UNITS`) and ``used`` (mean over the race, same units), with the
    race's ``seconds``; resources without a limit (a share with no quota) have no capacity and never bind."""

    capacity: dict[str, float]
    used: dict[str, float]
    seconds: float

    @classmethod
    def of(cls, report: dict) -> "Setup":
        """From the fidelity monitor's report of a race (:func:`ingestlab.hosts.fidelity.Monitor`)."""
        capacity, used = {}, {}
        nodes = [g for g in report.get("groups", []) if g["role"] == "node"]
        drivers = [g for g in report.get("groups", []) if g["role"] != "node" and g["used_cores"] > 0.01]
        for resource, groups in ((NODE_CPU, nodes), (DRIVER, drivers)):
            if groups:
                used[resource] = sum(g["used_cores"] for g in groups)
                if all(g["quota_cores"] for g in groups):
                    capacity[resource] = sum(g["quota_cores"] for g in groups)
        devices = report.get("devices") or []
        if devices:
            used[IOPS], capacity[IOPS] = sum(d["iops"] for d in devices), sum(d["limit_iops"] for d in devices)
            used[DISK_MB], capacity[DISK_MB] = sum(d["mb_per_s"] for d in devices), sum(d["limit_mb_per_s"] for d in devices)
        busiest: dict[str, float] = {}
        limits: dict[str, float] = {}
        for link in report.get("links") or []:
            busiest[link["host"]] = max(busiest.get(link["host"], 0.0), link["mbit_per_s"])
            limits[link["host"]] = link["limit_mbit_per_s"]
        if busiest:
            used[LINK], capacity[LINK] = sum(busiest.values()), sum(limits.values())
        return cls(capacity, used, float(report["seconds"]))

    def busiest(self) -> tuple[str, float] | None:
        """The resource that binds this race, with its utilisation (use ÷ capacity over the race)."""
        shares = {r: self.used[r] / c for r, c in self.capacity.items() if c and self.used.get(r)}
        return max(shares.items(), key=lambda kv: kv[1]) if shares else None

    def demands(self, documents: float, copies: float) -> dict[str, float]:
        """Each resource's demand per unit of work (unit-seconds): per document copy, the load driver per document."""
        return {r: u * self.seconds / (documents if r == DRIVER else copies) for r, u in self.used.items() if u > 0}


@dataclass(frozen=True)
class Bound:
    rate: float  # documents per second at most
    resource: str  # the one that binds


def bound(demands: dict[str, float], capacity: dict[str, float], copies_per_doc: float) -> Bound | None:
    """The most documents per second ``capacity`` allows at ``demands`` when each document costs ``copies_per_doc``
    copies; None when no resource with a capacity has a demand."""
    limits = {r: capacity[r] / (d * (1.0 if r == DRIVER else copies_per_doc)) for r, d in demands.items() if capacity.get(r) and d > 0}
    if not limits:
        return None
    resource = min(limits, key=limits.get)
    return Bound(limits[resource], resource)
