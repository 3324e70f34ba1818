"""Gunther's Universal Scalability Law, X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted to throughput at N clients (or
nodes, or load drivers): λ the throughput of one, σ the contention (the serial part), κ the coherency cost (the
crosstalk that makes more N slower beyond the peak N* = √((1−σ)/κ)).

Fitted with scipy's bounded least squares (λ > 0, 0 ≤ σ ≤ 1, κ ≥ 0) on the relative errors, intervals from the
fit's covariance (Student's t). Three parameters need four points for an interval and at least three for a value;
fewer, or a fit that explains too little (R² < 0.8), is refused with the reason, never printed as if it held.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from ingestlab.models.linear import CannotFit, Parameter

MIN_R_SQUARED = 0.8


def throughput(n, lam: float, sigma: float, kappa: float):
    n = np.asarray(n, dtype=float)
    return lam * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0))


@dataclass(frozen=True)
class Usl:
    lam: Parameter
    sigma: Parameter
    kappa: Parameter
    points: list[tuple[float, float]]
    r_squared: float | None

    @property
    def peak(self) -> float | None:
        """N*, where more N stops helping; None when κ is 0 (no peak: the curve only flattens)."""
        if self.kappa.value <= 0:
            return None
        return math.sqrt(max(1.0 - self.sigma.value, 0.0) / self.kappa.value)

    def at(self, n: float) -> float:
        return float(throughput(n, self.lam.value, self.sigma.value, self.kappa.value))

    def describe(self, unit: str = "docs/s") -> str:
        peak = self.peak
        where = (f"peak at N* = {peak:,.1f} ({self.at(peak):,.0f} {unit})" if peak is not None
                 else "no peak (κ = 0: the curve only flattens)")
        return (f"λ {self.lam.interval(digits=0)} {unit}, σ {self.sigma.interval(digits=3)}, κ {self.kappa.interval(digits=4)}; {where}"
                + (f"; R² {self.r_squared:.2f}" if self.r_squared is not None else ""))


def fit(points: list[tuple[float, float]]) -> Usl:
    """``points``: (N, throughput)."""
    points = sorted((float(n), float(x)) for n, x in points if x and x > 0)
    if len({n for n, _ in points}) < 3:
        raise CannotFit(f"{len(points)} point(s) at {len({n for n, _ in points})} distinct N: the law's three parameters need at least 3")
    n = np.array([p[0] for p in points])
    x = np.array([p[1] for p in points])
    start = [max(x[0] / n[0], 1e-9), 0.05, 0.001]
    try:
        values, covariance = optimize.curve_fit(throughput, n, x, p0=start, sigma=x, bounds=([0, 0, 0], [np.inf, 1, np.inf]),
                                                maxfev=20000)
    except (RuntimeError, ValueError) as e:
        raise CannotFit(f"the fit did not converge ({e})") from None
    predicted = throughput(n, *values)
    residuals = (x - predicted) / x
    total = float((((x - x.mean()) / x) ** 2).sum())
    dof = len(points) - 3
    r_squared = 1.0 - float(residuals @ residuals) / total if total > 0 and dof > 0 else None
    if r_squared is not None and r_squared < MIN_R_SQUARED:
        raise CannotFit(f"the law explains too little of these points (R² {r_squared:.2f} < {MIN_R_SQUARED})")
    parameters = []
    for i, name in enumerate(("λ", "σ", "κ")):
        if dof > 0 and np.all(np.isfinite(covariance)):
            half = stats.t.ppf(0.975, dof) * math.sqrt(max(covariance[i, i], 0.0))
            low = max(values[i] - half, 0.0)
            high = values[i] + half if name != "σ" else min(values[i] + half, 1.0)
            parameters.append(Parameter(name, float(values[i]), float(low), float(high)))
        else:
            parameters.append(Parameter(name, float(values[i]), None, None))
    return Usl(*parameters, points, r_squared)


def try_fit(points: list[tuple[float, float]]) -> tuple[Usl | None, str | None]:
    """(the fit, None) or (None, why it cannot be made)."""
    try:
        return fit(points), None
    except CannotFit as e:
        return None, str(e)
