"""What the race order shows: a monotonic trend within a side (Mann–Kendall, exact where no two races tie, and the fewest
races at which it can reach its level), and, for two sides raced one after the other, the step between them beyond a
linear drift in time."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np

from ingestlab.verdicts.stats import ALPHA, logs, scipy_stats


@dataclass(frozen=True)
class Trend:
    s: int  # Mann–Kendall's S: concordant minus discordant pairs in race order
    p: float  # two-sided: exact without ties, the normal approximation with the tie-corrected variance with them
    first: float
    last: float

    @property
    def rising(self) -> bool:
        return self.s > 0


def fewest_for_trend(alpha: float = ALPHA) -> int:
    """The fewest races at which Mann–Kendall's two-sided exact p can reach ``alpha`` (a perfectly monotone series)."""
    n = 2
    while 2 / math.factorial(n) > alpha:
        n += 1
    return n


def mann_kendall(values: list[float]) -> Trend | None:
    """Mann–Kendall's test for a monotonic trend in ``values`` (in race order), exact where no two values tie. None
    below :func:`fewest_for_trend` races (no outcome could reach the level)."""
    n = len(values)
    if n < fewest_for_trend():
        return None
    s = sum((values[j] > values[i]) - (values[j] < values[i]) for i in range(n) for j in range(i + 1, n))
    method = "exact" if len(set(values)) == n else "asymptotic"
    p = scipy_stats().kendalltau(range(n), values, method=method).pvalue
    return Trend(s, 1.0 if s == 0 or math.isnan(p) else float(p), values[0], values[-1])


@dataclass(frozen=True)
class Step:
    """Two sides raced one after the other, fitted as log median = a + b·contender + c·race: the step ``b`` beyond the
    drift ``c``, and the share of the sides' difference that the drift explains."""

    change: float  # exp(b) − 1
    low: float
    high: float
    p: float
    drift_per_race: float  # exp(c) − 1, per unit of the positions given (a race, or a minute)
    drift_p: float
    explained: float  # c × (the distance between the sides' mean race positions) ÷ the difference of their mean logs
    df: int


def step_and_drift(baseline, contender, order_a, order_b, confidence: float = 1 - ALPHA) -> Step | None:
    """The step-and-drift fit of two sides' race medians (``order_*``: each race's position in the session); None without
    a degree of freedom left, or without positions that vary within a side."""
    a, b = logs(baseline), logs(contender)
    n = len(a) + len(b)
    if len(a) < 2 or len(b) < 2 or n < 5:
        return None
    x = np.column_stack([np.ones(n), np.r_[np.zeros(len(a)), np.ones(len(b))], np.r_[order_a, order_b].astype(float)])
    y = np.r_[a, b]
    xtx = x.T @ x
    if np.linalg.matrix_rank(xtx) < 3:
        return None
    beta = np.linalg.solve(xtx, x.T @ y)
    df = n - 3
    residual = y - x @ beta
    scale = float(residual @ residual) / df
    if scale <= 0:
        return None
    se = np.sqrt(np.diag(scale * np.linalg.inv(xtx)))
    t = scipy_stats().t.ppf(0.5 + confidence / 2, df)
    diff = statistics.fmean(b) - statistics.fmean(a)
    distance = statistics.fmean(order_b) - statistics.fmean(order_a)
    explained = beta[2] * distance / diff if diff else 0.0
    return Step(
        math.expm1(beta[1]),
        math.expm1(beta[1] - t * se[1]),
        math.expm1(beta[1] + t * se[1]),
        float(2 * scipy_stats().t.sf(abs(beta[1]) / se[1], df)),
        math.expm1(beta[2]),
        float(2 * scipy_stats().t.sf(abs(beta[2]) / se[2], df)),
        float(explained),
        df,
    )
