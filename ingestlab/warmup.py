"""A node warmed before any race counts: races of one setup, not kept, until ``agree`` in a row agree within
``tolerance`` (a fresh node's throughput rises over its first races)."""

from __future__ import annotations

from typing import Callable

from ingestlab.errors import IngestlabError
from ingestlab.verdicts import calibration


def warm_up(race_once: Callable[[], float | None], agree: int, tolerance: float, label: str, log=print, most: int = 15) -> list[float]:
    """Race (``race_once`` gives the figure of one race) until the node is warm; the figures of the races not kept."""
    seen: list[float] = []
    while len(seen) < most:
        seen.append(race_once() or 0.0)
        log(f"[ingestlab] {label}: warm-up race {len(seen)}: {seen[-1]:,.0f}")
        if calibration.warm(seen, agree, tolerance) is not None:
            return seen
    raise IngestlabError(
        f"{label}: the node did not settle: no {agree} races in a row of {most} agreed within {tolerance:.0%} "
        f"({', '.join(f'{v:,.0f}' for v in seen)}); raise the tolerance or the race's size"
    )
