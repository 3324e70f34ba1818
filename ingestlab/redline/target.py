"""A latency target as a user writes it: ``p99<=500ms`` (a percentile Rally reports, and a duration in ms or s)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingestlab.errors import IngestlabError

PERCENTILES = ("50", "90", "99", "99.9", "99.99", "100")  # what Rally reports of a task's latency
_FORM = re.compile(r"^\s*p(?P<p>\d+(?:\.\d+)?)\s*<=\s*(?P<v>\d+(?:\.\d+)?)\s*(?P<u>ms|s)\s*$")


@dataclass(frozen=True)
class LatencyTarget:
    percentile: str  # as Rally names it: "99", "99.9"
    ms: float

    @property
    def key(self) -> str:
        """The key of :attr:`ingestlab.rally.results.TaskResult.latency_ms`."""
        return f"p{self.percentile}"

    def __str__(self) -> str:
        return f"p{self.percentile} <= {self.ms:g} ms"


def parse(text: str) -> LatencyTarget:
    m = _FORM.match(text or "")
    if not m:
        raise IngestlabError(f"--latency {text!r}: write a percentile and a duration, e.g. p99<=500ms or p90<=1.5s")
    if m["p"] not in PERCENTILES:
        raise IngestlabError(f"--latency {text!r}: Rally reports the latency percentiles {', '.join('p' + p for p in PERCENTILES)}")
    ms = float(m["v"]) * (1000.0 if m["u"] == "s" else 1.0)
    if ms <= 0:
        raise IngestlabError(f"--latency {text!r}: the duration must be above 0")
    return LatencyTarget(m["p"], ms)


def error_rate(text: str) -> float:
    """``--error-rate``: the largest share of failed requests a step may have (0 to 1, or a percentage like 0.5%)."""
    try:
        value = float(text[:-1]) / 100.0 if str(text).endswith("%") else float(text)
    except ValueError:
        raise IngestlabError(f"--error-rate {text!r}: a share of requests, e.g. 0 or 0.001 or 0.1%") from None
    if not 0.0 <= value < 1.0:
        raise IngestlabError(f"--error-rate {text!r}: from 0 up to (not including) 1")
    return value
