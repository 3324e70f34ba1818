"""The statistics behind every verdict, on log race medians (the race is the unit of replication): tests, intervals,
power, prediction against a noise floor or a history, and Clopper–Pearson intervals for measured rates (what the race
order shows: :mod:`ingestlab.verdicts.ordering`)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import lru_cache

import numpy as np


def scipy_stats():
    """scipy.stats, imported where a test is computed (about 1.5 s of CPU here): a report that judges no trend, such as a
    test-mode race's, never loads it."""
    from scipy import stats

    return stats


ALPHA = 0.05
POWER = 0.80


def logs(values) -> list[float]:
    return [math.log(v) for v in values if v and v > 0]


def geometric_mean(values) -> float:
    """exp of the mean log of the positive ``values``; NaN when there is none."""
    got = logs(values)
    return math.exp(sum(got) / len(got)) if got else float("nan")


@dataclass(frozen=True)
class Welch:
    change: float  # exp(mean log contender − mean log baseline) − 1: the ratio of geometric means, less one
    low: float
    high: float
    p: float
    se: float  # standard error of the difference of mean logs
    df: float


def welch(baseline, contender, confidence: float = 1 - ALPHA) -> Welch | None:
    """Welch's test on the logarithms of two sides' race medians; None when a side has fewer than 2 races or neither
    side varies."""
    a, b = logs(baseline), logs(contender)
    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    se = math.sqrt(va + vb)
    if se == 0:
        return None
    df = (va + vb) ** 2 / ((va**2 / (len(a) - 1)) + (vb**2 / (len(b) - 1)))
    diff = sum(b) / len(b) - sum(a) / len(a)
    t = scipy_stats().t.ppf(0.5 + confidence / 2, df)
    p = 2 * scipy_stats().t.sf(abs(diff) / se, df)
    return Welch(math.expm1(diff), math.expm1(diff - t * se), math.expm1(diff + t * se), p, se, df)


def paired(baseline, contender, confidence: float = 1 - ALPHA) -> Welch | None:
    """The paired t test on the log ratio of each pair (``baseline[i]`` and ``contender[i]`` raced together); ``se`` of
    the mean log ratio, ``df`` pairs less one. None with fewer than 2 pairs or when every pair's ratio is the same."""
    a, b = logs(baseline), logs(contender)
    if len(a) != len(b) or len(a) < 2:
        return None
    d = [y - x for x, y in zip(a, b)]
    se = statistics.stdev(d) / math.sqrt(len(d))
    if se == 0:
        return None
    df = len(d) - 1
    mean = statistics.fmean(d)
    t = scipy_stats().t.ppf(0.5 + confidence / 2, df)
    return Welch(math.expm1(mean), math.expm1(mean - t * se), math.expm1(mean + t * se), 2 * scipy_stats().t.sf(abs(mean) / se, df), se, df)


def holm(p_values: list[float | None], alpha: float = ALPHA) -> list[bool | None]:
    """Holm's step-down correction: which of the tests reject at family-wise level ``alpha`` (None where no test ran)."""
    return [None if p is None else p <= level for p, level in zip(p_values, holm_levels(p_values, alpha))]


def holm_levels(p_values: list[float | None], alpha: float = ALPHA) -> list[float | None]:
    """The level at which Holm's step-down judged each test (None where no test ran): a rejected test its own step's
    ``alpha / (m - rank)``; a test not rejected the level of the step where Holm stopped, which its p exceeds. An interval
    at one less that level excludes no change exactly when the test was rejected, so interval and call agree."""
    tested = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    out: list[float | None] = [None] * len(p_values)
    m, stop = len(tested), None
    for rank, (p, i) in enumerate(tested):
        step = alpha / (m - rank)
        if stop is None and p > step:
            stop = step
        out[i] = step if stop is None else stop
    return out


def holm_level(m: int, alpha: float = ALPHA) -> float:
    """The strictest level a test meets under Holm's correction of ``m`` tests (its first step)."""
    return alpha / max(m, 1)


def smallest_change(sigma: float, n_a: int, n_b: int, df: float | None = None, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest change (as a ratio less one, either way) that a two-sided test at ``alpha`` finds with ``power``,
    for races whose log medians spread by ``sigma``; ``df``: degrees of freedom of σ's estimate (None: known σ)."""
    se = sigma * math.sqrt(1 / n_a + 1 / n_b)
    quantile = (lambda q: scipy_stats().t.ppf(q, df)) if df else scipy_stats().norm.ppf
    return math.expm1((quantile(1 - alpha / 2) + quantile(power)) * se)


def races_needed(
    change: float, sigma: float, alpha: float = ALPHA, power: float = POWER, most: int = 1000, paired: bool = False
) -> int | None:
    """Races a side (equal sides, at least 3) for a t test at ``alpha`` to find ``change`` with ``power``; None beyond
    ``most``. ``paired``: pairs for the paired t test, a pair's log ratio spreading by σ·√2."""
    effect = abs(math.log1p(change))

    def enough(n: int) -> bool:
        df = n - 1 if paired else 2 * n - 2
        return (scipy_stats().t.ppf(1 - alpha / 2, df) + scipy_stats().t.ppf(power, df)) * sigma * math.sqrt(2 / n) <= effect

    if effect == 0 or sigma <= 0 and effect == 0 or not enough(most):
        return None
    low, high = 3, most  # enough() holds at high and only grows with n: the least n where it holds
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle + 1, high)
    return low


@dataclass(frozen=True)
class Prediction:
    change: float
    low: float
    high: float
    p: float  # two-sided, of no change


def against_floor(baseline, contender, sigma: float, floor_df: int, confidence: float = 1 - ALPHA) -> Prediction | None:
    """The change of the sides' geometric means with a prediction interval from a noise floor ``sigma`` (the spread of
    log race medians of this setup, measured with ``floor_df`` degrees of freedom), for sides of one or two races."""
    a, b = logs(baseline), logs(contender)
    if not a or not b or floor_df < 1:
        return None
    diff = sum(b) / len(b) - sum(a) / len(a)
    se = sigma * math.sqrt(1 / len(a) + 1 / len(b))
    if se <= 0:
        return None
    half = scipy_stats().t.ppf(0.5 + confidence / 2, floor_df) * se
    return Prediction(math.expm1(diff), math.expm1(diff - half), math.expm1(diff + half), 2 * scipy_stats().t.sf(abs(diff) / se, floor_df))


@dataclass(frozen=True)
class AgainstHistory:
    change: float  # the new figure ÷ the history's geometric mean, less one
    low: float  # the lower end of the history's one-sided prediction bound, as a change (a new figure below it is a drop at ``level``)
    p: float  # one-sided, of a figure this low or lower from the history's own distribution
    sigma: float  # σ of the history's log figures
    df: int


def _prediction(history) -> tuple[float, float, float, int] | None:
    """Of ``history``'s log figures: their mean, their σ, the scale of one new log figure about the mean (σ × √(1 + 1/n))
    and σ's degrees of freedom; None with fewer than 3 figures or no spread."""
    past = logs(history)
    sigma = statistics.stdev(past) if len(past) >= 3 else 0.0
    if sigma <= 0:
        return None
    return statistics.fmean(past), sigma, sigma * math.sqrt(1 + 1 / len(past)), len(past) - 1


def below_history(value: float, history, level: float = ALPHA) -> AgainstHistory | None:
    """Is ``value`` lower than figures like ``history``'s would be? A one-sided t prediction on log figures with
    ``len(history) − 1`` degrees of freedom at ``level``. None with fewer than 3 figures of history, a history with no
    spread, or a value that is not a positive figure."""
    predicted = _prediction(history)
    if predicted is None or not value or value <= 0:
        return None
    mean, sigma, scale, df = predicted
    t = (math.log(value) - mean) / scale
    return AgainstHistory(
        math.expm1(math.log(value) - mean), math.expm1(scipy_stats().t.ppf(level, df) * scale), float(scipy_stats().t.cdf(t, df)), sigma, df
    )


def history_band(history, level: float = ALPHA) -> tuple[float, float] | None:
    """The figures a new one of ``history``'s setup falls between with probability ``1 − 2 × level`` (the band whose lower
    edge is :func:`below_history`'s bound); None where that test gives none."""
    predicted = _prediction(history)
    if predicted is None:
        return None
    mean, _, scale, df = predicted
    half = -scipy_stats().t.ppf(level, df) * scale
    return math.exp(mean - half), math.exp(mean + half)


def session_bound(sigmas, level: float = 1 - ALPHA) -> float | None:
    """The σ a new session's identical races stay within with probability ``level``, from the σ of k ≥ 2 earlier
    sessions: a one-sided t prediction on log σ with k − 1 degrees of freedom. None for fewer than 2 sessions."""
    got = logs(sigmas)
    if len(got) < 2:
        return None
    return math.exp(statistics.fmean(got) + scipy_stats().t.ppf(level, len(got) - 1) * statistics.stdev(got) * math.sqrt(1 + 1 / len(got)))


POOL_DRAWS = 200_000  # seeded draws of distinct races for sides of two races (one a side takes every pair)


@lru_cache(maxsize=8)
def _null(pool: tuple, n_a: int, n_b: int) -> np.ndarray:
    """The differences of mean logs (contender − baseline) that identical races give: every ordered pair of distinct
    races of ``pool`` (log medians) for one race a side; seeded draws of distinct races otherwise."""
    x = np.asarray(pool, dtype=float)
    if n_a == n_b == 1:
        d = x[None, :] - x[:, None]
        return d[~np.eye(len(x), dtype=bool)]
    idx = np.random.default_rng(0).integers(0, len(x), size=(POOL_DRAWS, n_a + n_b))
    ordered = np.sort(idx, axis=1)
    idx = idx[(np.diff(ordered, axis=1) > 0).all(axis=1)]
    return x[idx[:, n_a:]].mean(axis=1) - x[idx[:, :n_a]].mean(axis=1)


def against_pool(baseline, contender, pool: tuple, confidence: float = 1 - ALPHA) -> Prediction | None:
    """The change of the sides' geometric means judged against the differences that identical races of this setup
    showed (``pool``: a calibration's log race medians), no normal curve assumed (races here are skewed). p is the
    share of the pool's differences at least as large; the interval inverts the same test."""
    a, b = logs(baseline), logs(contender)
    if not a or not b or len(pool) < len(a) + len(b) + 1:
        return None
    null = _null(tuple(pool), len(a), len(b))
    diff = sum(b) / len(b) - sum(a) / len(a)
    p = (1 + np.count_nonzero(np.abs(null) >= abs(diff) - 1e-12)) / (1 + len(null))
    # the interval inverts the same test: p ≤ 1 − confidence exactly where |diff| exceeds the (k+1)-th largest |null|
    allowed = math.floor((1 - confidence) * (1 + len(null)) + 1e-9) - 1  # the most differences as large a call allows
    largest = np.sort(np.abs(null))[::-1]
    half = float(largest[allowed]) + 1e-12 if 0 <= allowed < len(largest) else math.inf
    return Prediction(math.expm1(diff), math.expm1(diff - half), math.expm1(diff + half), float(p))


def clopper_pearson(k: int, n: int, confidence: float = 1 - ALPHA) -> tuple[float, float]:
    """The exact interval of a rate measured as ``k`` of ``n``."""
    if n == 0:
        return 0.0, 1.0
    a = (1 - confidence) / 2
    low = 0.0 if k == 0 else scipy_stats().beta.ppf(a, k, n - k + 1)
    high = 1.0 if k == n else scipy_stats().beta.ppf(1 - a, k + 1, n - k)
    return float(low), float(high)
