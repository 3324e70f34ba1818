"""Small pieces every report uses: numbers shown with a dash where they are missing, the line that names
the machine and versions, and the one verdict on failed requests."""
from __future__ import annotations

from ingestlab import machine
from ingestlab.rally.results import RaceResult


def fmt(value, pattern: str, suffix: str = "") -> str:
    return "—" if value is None else format(value, pattern) + suffix


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    return numerator / denominator if numerator and denominator else None


def machine_line(result: RaceResult) -> str:
    return machine.one_line(result.machine or machine.describe())


def load_generator(race: dict) -> str:
    """What raced it: ``esrally 2.13.0``, or ``opensearch-benchmark 2.4.0``."""
    return race.get("load-generator") or f"esrally {race.get('rally-version')}"


def engine_name(race: dict) -> str:
    return "OpenSearch" if race.get("engine") == "opensearch" else "Elasticsearch"


def this_machine(result: RaceResult) -> str:
    """"This machine: …" with the Elasticsearch and esrally versions and the race id, as every report states it,
    and what the race cost where the pack ran it (duration, disk, memory)."""
    cluster = result.cluster
    line = (f"This machine: {machine_line(result)}; {engine_name(result.race)} {cluster.get('distribution-version')} "
            f"({cluster.get('distribution-flavor')}), {load_generator(result.race)}, race {result.race_id}")
    cost = footprint_line(result.footprint)
    return f"{line}. {cost}" if cost else line


def duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else (f"{minutes} min {rest} s" if minutes else f"{rest} s")


def footprint_line(footprint: dict | None) -> str:
    """"The race took …, its indices held … on disk, Rally's largest process peaked at … RSS" (what is known)."""
    footprint = footprint or {}
    parts = []
    if footprint.get("seconds"):
        parts.append(f"the race took {duration(footprint['seconds'])}")
    if footprint.get("indices_bytes"):
        parts.append(f"its indices held {footprint['indices_bytes'] / 1e9:,.2f} GB on disk at the end")
    memory = footprint.get("rally_memory") or {}
    if memory.get("largest_mib"):
        parts.append(f"Rally's largest process (of {memory['processes']}) peaked at {memory['largest_mib']:,.0f} MiB RSS")
    return (", ".join(parts)[0].upper() + ", ".join(parts)[1:]) if parts else ""


def invalid_lines(result: RaceResult) -> list[str]:
    """Every report's verdict on the race: on emulated hardware, the profile and whether the emulation held
    (:mod:`ingestlab.hosts.fidelity`); then failed requests: any task of the race with errors (a check task too)
    marks the whole report INVALID, with the error rates and, where the pack's runners recorded them, the first
    error of each task."""
    from ingestlab.hosts import fidelity

    emulation = fidelity.lines(result.footprint.get("emulation") or {})
    failed = {name: r.error_rate for name, r in result.tasks.items() if r.error_rate}
    if not failed:
        return emulation
    rates = ", ".join(f"{name} ({rate:.1%} of requests)" for name, rate in failed.items())
    lines = [*emulation, f"- **INVALID**: requests failed in {rates}; the numbers above are not clean."]
    first_errors: dict = {}
    for entry in result.runner_stats:
        if entry.get("error"):
            first_errors.setdefault(entry.get("task"), [0, entry["error"]])[0] += 1
    for task, (count, message) in first_errors.items():
        lines.append(f"  - {task}: {count} failed call{'s' if count != 1 else ''}; first: {message}")
    return lines
