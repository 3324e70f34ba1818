"""What a sweep recommends, from the same models the studies use: the smallest bulk size within 5 % of the modelled
maximum throughput, and the number of clients at the peak N* with its throughput — each with its uncertainty, or
the reason the points cannot support a fit (too few, or a poor fit), never a number the data do not carry.

Bulk size: with the clients fixed, a document costs ``c`` and a request ``r``, so 1/throughput = c + r/b; the maximum
is 1/c, and throughput is within 5 % of it from b* = 19·r/c on. The interval of b* comes from drawing (r, c) from
the fit's own uncertainty (a parametric bootstrap).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ingestlab.models import linear, usl

WITHIN = 0.05
DRAWS = 4000


@dataclass(frozen=True)
class Recommendation:
    what: str  # "bulk size" or "clients"
    text: str  # the recommendation, or why there is none
    value: float | None = None
    low: float | None = None
    high: float | None = None


def bulk_size(points: list[tuple[float, float]], seed: int = 1) -> Recommendation:
    """``points``: (bulk size, docs/s) at fixed clients."""
    cells = [linear.Cell(f"bulk {b:g}", requests=1.0 / b, documents=1.0, seconds=1.0 / x) for b, x in points if b and x]
    if len({c.requests for c in cells}) < 3:
        return Recommendation("bulk size", f"cannot fit: {len(cells)} bulk size(s); the model needs at least 3")
    try:
        fitted = linear.fit(cells)
    except linear.CannotFit as e:
        return Recommendation("bulk size", f"cannot fit: {e}")
    r, c = fitted.per("request"), fitted.per("document")
    if c.value <= 0 or r.value < 0 or (fitted.r_squared is not None and fitted.r_squared < usl.MIN_R_SQUARED):
        return Recommendation("bulk size", "cannot fit: the points do not follow 1/throughput = c + r/b "
                              + (f"(R² {fitted.r_squared:.2f})" if fitted.r_squared is not None else "(a negative cost)"))
    factor = 1.0 / (1.0 - WITHIN) - 1.0
    best = r.value / (c.value * factor)
    low = high = None
    if r.low is not None:
        rng = np.random.default_rng(seed)
        rs = rng.normal(r.value, (r.high - r.value) / 1.96, DRAWS)
        cs = rng.normal(c.value, (c.high - c.value) / 1.96, DRAWS)
        keep = (cs > 0) & (rs >= 0)
        draws = rs[keep] / (cs[keep] * factor)
        low, high = (float(v) for v in np.percentile(draws, [2.5, 97.5]))
    tried = sorted(b for b, _ in points)
    above = next((b for b in tried if b >= best), None)
    span = f" (95 %: {low:,.0f}–{high:,.0f})" if low is not None else ""
    text = (f"the smallest bulk size within {WITHIN:.0%} of the modelled maximum ({1 / c.value:,.0f} docs/s) is about {best:,.0f}{span}"
            + (f"; of the sizes tried, {above:g}" if above is not None else "; larger than any size tried"))
    return Recommendation("bulk size", text, best, low, high)


def clients(points: list[tuple[float, float]]) -> Recommendation:
    """``points``: (clients, docs/s) at a fixed bulk size."""
    fitted, why = usl.try_fit(points)
    if fitted is None:
        return Recommendation("clients", f"cannot fit: {why}")
    peak = fitted.peak
    if peak is None:
        return Recommendation("clients", f"no peak: throughput keeps rising toward {fitted.lam.value / fitted.sigma.value:,.0f} docs/s "
                              f"(σ {fitted.sigma.value:.3f}, κ 0); more clients keep helping, less and less"
                              if fitted.sigma.value > 0 else "no peak: throughput rises in proportion to the clients")
    span = ""
    if fitted.kappa.low is not None and fitted.kappa.high:
        slow = np.sqrt(max(1 - fitted.sigma.high, 0) / fitted.kappa.high) if fitted.kappa.high > 0 else None
        fast = np.sqrt(max(1 - fitted.sigma.low, 0) / fitted.kappa.low) if fitted.kappa.low > 0 else None
        span = f" (95 %: {slow:,.1f}–{fast:,.1f})" if slow is not None and fast is not None else (f" (95 %: from {slow:,.1f})" if slow else "")
    return Recommendation("clients", f"the clients' peak N* is {peak:,.1f}{span}, at {fitted.at(peak):,.0f} docs/s ({fitted.describe()})",
                          peak)
