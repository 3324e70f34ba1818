"""How sure a median of rounds is: a confidence interval for the median that assumes no distribution.

Sorted, ``n`` rounds' values bracket the true median between the ``k``-th lowest and the ``k``-th highest with
probability ``1 − 2·P(B ≤ k − 1)``, ``B`` binomial(``n``, ½) (each round falls on either side of the median with even
odds). The bench's ratios swing 10–30 % between rounds on a shared machine and are not normal; this needs neither.
Below 6 rounds not even the lowest-to-highest span reaches 95 %: there is no such interval, and it is shown as missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

CONFIDENCE = 0.95  # the bench's one confidence level: its extra rounds, its report and its log all use it


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    coverage: float  # the probability that it holds the true median (at least the confidence asked for)
    rounds: int

    @property
    def width(self) -> float:
        return self.high - self.low


def coverage(n: int, k: int) -> float:
    """The chance that the k-th lowest and k-th highest of n values bracket the median."""
    return 1 - 2 * sum(comb(n, i) for i in range(k)) / 2**n


def median_interval(values: list, confidence: float = CONFIDENCE) -> Interval | None:
    """The narrowest order-statistics interval that holds the median with at least ``confidence``; None when the rounds
    are too few for any (``None`` values, missing measurements, are left out)."""
    xs = sorted(v for v in values if v is not None)
    n, found = len(xs), None
    for k in range(1, (n + 1) // 2 + 1):
        c = coverage(n, k)
        if c < confidence:
            break
        found = Interval(xs[k - 1], xs[n - k], c, n)
    return found


def settled(values: list, width: float, confidence: float = CONFIDENCE) -> bool:
    """Enough rounds: an interval at ``confidence`` exists and is at most ``width`` wide."""
    found = median_interval(values, confidence)
    return found is not None and found.width <= width
