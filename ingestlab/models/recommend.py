"""What a sweep recommends, from the same models the studies use: the smallest bulk size within 5 % of the modelled
maximum throughput, and the clients at the Universal Scalability Law's peak N*, each with its uncertainty or the reason
the points cannot carry a fit, never a number the data do not carry.

Bulk size: 1/throughput = c + r/b, within 5 % of the maximum 1/c from b* = 19·r/c on; b*'s interval is the delta
method on log r − log c with the fit's covariance of r and c (they are negatively correlated).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ingestlab.models import linear, usl

WITHIN = 0.05


@dataclass(frozen=True)
class Recommendation:
    what: str  # "bulk size" or "clients"
    text: str  # the recommendation, or why there is none
    value: float | None = None
    low: float | None = None
    high: float | None = None


def _log_ratio_interval(fitted: linear.Fit) -> tuple[tuple[float, float] | None, str]:
    """The 95 % interval of r/c (delta method on log r − log c with their covariance), or None and why not."""
    r, c = fitted.per("request"), fitted.per("document")
    if fitted.covariance is None:
        return None, r.why or "no interval"
    if r.low is not None and r.low <= 0:
        return None, "no interval: the request cost's interval reaches 0"
    i, j = fitted.terms.index("request"), fitted.terms.index("document")
    cov = fitted.covariance
    var = cov[i, i] / r.value**2 + cov[j, j] / c.value**2 - 2 * cov[i, j] / (r.value * c.value)
    half = linear.t975(fitted.dof) * math.sqrt(max(var, 0.0))
    ratio = r.value / c.value
    return (ratio * math.exp(-half), ratio * math.exp(half)), ""


def bulk_size(points: list[tuple[float, float]]) -> Recommendation:
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
        return Recommendation(
            "bulk size",
            "cannot fit: the points do not follow 1/throughput = c + r/b "
            + (f"(R² {fitted.r_squared:.2f})" if fitted.r_squared is not None else "(a negative cost)"),
        )
    factor = 1.0 / (1.0 - WITHIN) - 1.0
    best = r.value / (c.value * factor)
    found, why = _log_ratio_interval(fitted)
    low, high = (found[0] / factor, found[1] / factor) if found else (None, None)
    tried = sorted(b for b, _ in points)
    above = next((b for b in tried if b >= best), None)
    span = f" (95 %: {low:,.0f}–{high:,.0f})" if low is not None else f" ({why})"
    text = f"the smallest bulk size within {WITHIN:.0%} of the modelled maximum ({1 / c.value:,.0f} docs/s) is about {best:,.0f}{span}" + (
        f"; of the sizes tried, {above:g}" if above is not None else "; larger than any size tried"
    )
    return Recommendation("bulk size", text, best, low, high)


def clients(points: list[tuple[float, float]]) -> Recommendation:
    """``points``: (clients, docs/s) at a fixed bulk size."""
    fitted, why = usl.try_fit(points)
    if fitted is None:
        return Recommendation("clients", f"cannot fit: {why}")
    peak = fitted.peak
    if peak is None:
        return Recommendation(
            "clients",
            f"no peak: throughput keeps rising toward {fitted.lam.value / fitted.sigma.value:,.0f} docs/s "
            f"(σ {fitted.sigma.value:.3f}, κ 0); more clients keep helping, less and less"
            if fitted.sigma.value > 0
            else "no peak: throughput rises in proportion to the clients",
        )
    interval = fitted.peak_interval()
    span = (
        f" (95 %: {interval[0]:,.1f}–{interval[1]:,.1f})"
        if interval
        else f" (no interval: {fitted.sigma.why or fitted.kappa.why or 'σ or κ has none'})"
    )
    return Recommendation(
        "clients",
        f"the clients' peak N* is {peak:,.1f}{span}, at {fitted.at(peak):,.0f} docs/s ({fitted.describe()})",
        peak,
        interval[0] if interval else None,
        interval[1] if interval else None,
    )
