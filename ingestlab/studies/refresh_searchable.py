"""Study 2's own addition: the time until a write is searchable, per refresh_interval and refresh mode (p50/p90/p99
from Rally's service times of the ``time-to-searchable`` tasks, with the samples behind them counted)."""

from __future__ import annotations

from dataclasses import dataclass

from ingestlab.rally.results import RaceResult
from ingestlab.studies.base import iterations


@dataclass(frozen=True)
class Searchable:
    interval_ms: int
    refresh: str
    samples: int
    percentiles: dict
    error_rate: float
    counted: bool = False  # samples counted from the runner's records (else: from the schedule)


def searchable(result: RaceResult) -> list[Searchable]:
    out = []
    for t in result.schedule:
        r = result.tasks.get(t.name)
        if t.operation_type == "time-to-searchable" and r:
            counted = [s for s in result.runner_stats if s.get("task") == t.operation["name"] and "searchable_ms" in s]
            # the samples behind Rally's percentiles: what the runner recorded, less each client's first (warm-up) calls;
            # without its records (plain esrally), the schedule's
            warm = t.clients * (iterations(result, t.name, warmup=True) or 0)
            samples = len(counted) - warm if counted else t.clients * (iterations(result, t.name) or 0)
            interval, refresh = int(t.param("phase-jitter-ms")), str(t.param("refresh"))
            out.append(Searchable(interval, refresh, samples, r.service_time_ms, r.error_rate, counted=bool(counted)))
    return out


def ms(value) -> str:
    if value is None:
        return "—"
    return format(value, ",.0f" if value >= 100 else ",.1f")


def section(result: RaceResult) -> list[str]:
    rows = searchable(result)
    if not rows:
        return []
    poll = next((t.param("poll-interval-ms") for t in result.schedule if t.operation_type == "time-to-searchable"), None)
    lines = [
        "",
        "### Time to searchable: from the write request's start until a search finds the document, ms",
        "",
        "| refresh_interval | refresh | samples | p50 | p90 | p99 | max |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        shown = " | ".join(ms(r.percentiles.get(p)) for p in ("p50", "p90", "p99", "p100"))
        lines.append(f"| {r.interval_ms:,} ms | {r.refresh} | {r.samples} | {shown} |")
    lines += [
        "",
        f"- Each sample writes one probe at a random point of the refresh cycle and then searches for it every {poll} ms, "
        "so every figure includes one search round trip and up to one poll interval.",
        "- Rally reports p90 from 10 samples and p99 from 100 samples on; a dash means too few samples for it. "
        + (
            "Samples are the runner's records of the race, less the warm-up calls (which Rally leaves out of its percentiles)."
            if all(r.counted for r in rows)
            else "Samples are the schedule's (clients × iterations): this race left no runner records to count."
        ),
        "- The article's own time until searchable is its refresh=true columns above: writes that are searchable when the call "
        "returns. It left refresh=wait_for out on purpose (what it waits for depends on refresh_interval); this table is the "
        "pack's own addition, not a figure of the article.",
    ]
    return lines
