"""Gunther's Universal Scalability Law, X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted to throughput at N clients (or
nodes, or load drivers): λ the throughput of one, σ the contention, κ the coherency cost (peak N* = √((1−σ)/κ)).

Bounded least squares (λ > 0, 0 ≤ σ ≤ 1, κ ≥ 0) on relative errors, intervals from the covariance (Student's t), N*'s
by the delta method on log N*. A parameter at its bound has no interval; fewer than 3 points, or R² < 0.8, is refused.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ingestlab.models.linear import CannotFit, Parameter, t975

MIN_R_SQUARED = 0.8
MIN_DOF = 2  # residual degrees of freedom for an interval (a t quantile at 1 is 12.7: no interval to speak of)
KAPPA_ZERO = 1e-12  # κ at or below this is at its bound 0: no crosstalk measured, so no peak (√((1−σ)/κ) would be a number
# of the optimizer's rounding, not of the data)


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
    covariance: np.ndarray | None = None
    dof: int = 0

    @property
    def peak(self) -> float | None:
        """N*, where more N stops helping; None when κ is at its bound 0 (no peak: the curve only flattens) or σ at its
        bound 1 (no gain from a second N at all: the curve only falls from N = 1)."""
        if self.kappa.value <= KAPPA_ZERO or self.sigma.value >= 1 - 1e-9:
            return None
        return math.sqrt(max(1.0 - self.sigma.value, 0.0) / self.kappa.value)

    def peak_interval(self) -> tuple[float, float] | None:
        """N*'s 95 % interval from σ and κ with their covariance (delta method on log N*), or None where σ or κ has none."""
        peak = self.peak
        if peak is None or self.covariance is None or self.sigma.low is None or self.kappa.low is None or self.sigma.value >= 1:
            return None
        gradient = np.array([0.0, -0.5 / (1.0 - self.sigma.value), -0.5 / self.kappa.value])  # d log N* / d(λ, σ, κ)

        se = math.sqrt(max(float(gradient @ self.covariance @ gradient), 0.0))
        half = t975(self.dof) * se
        return peak * math.exp(-half), peak * math.exp(half)

    def at(self, n: float) -> float:
        return float(throughput(n, self.lam.value, self.sigma.value, self.kappa.value))

    def describe(self, unit: str = "docs/s") -> str:
        peak = self.peak
        where = (
            f"peak at N* = {peak:,.1f} ({self.at(peak):,.0f} {unit})"
            if peak is not None
            else "no gain past N = 1 (σ = 1: the curve only falls)"
            if self.sigma.value >= 1 - 1e-9
            else "no peak (κ = 0: the curve only flattens)"
        )
        return f"λ {self.lam.interval(digits=0)} {unit}, σ {self.sigma.interval(digits=3)}, κ {self.kappa.interval(digits=4)}; {where}" + (
            f"; R² {self.r_squared:.2f}" if self.r_squared is not None else ""
        )


def fit(points: list[tuple[float, float]]) -> Usl:
    """``points``: (N, throughput)."""
    from scipy import optimize  # heavy: loaded where a fit is made

    points = sorted((float(n), float(x)) for n, x in points if x and x > 0)
    if len({n for n, _ in points}) < 3:
        raise CannotFit(f"{len(points)} point(s) at {len({n for n, _ in points})} distinct N: the law's three parameters need at least 3")
    n = np.array([p[0] for p in points])
    x = np.array([p[1] for p in points])
    start = [max(x[0] / n[0], 1e-9), 0.05, 0.001]
    try:
        with warnings.catch_warnings():  # no covariance with 3 points for 3 parameters: the fit says so in words below
            warnings.simplefilter("ignore", optimize.OptimizeWarning)
            values, covariance = optimize.curve_fit(
                throughput, n, x, p0=start, sigma=x, bounds=([0, 0, 0], [np.inf, 1, np.inf]), maxfev=20000
            )
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
    held = dof >= MIN_DOF and np.all(np.isfinite(covariance))
    why = "exact: 3 points for 3 parameters" if dof == 0 else f"{dof} degree of freedom: no interval"
    for i, name in enumerate(("λ", "σ", "κ")):
        bound = (name == "σ" and (values[i] <= 1e-9 or values[i] >= 1 - 1e-9)) or (name == "κ" and values[i] <= KAPPA_ZERO)
        if held and not bound:
            half = t975(dof) * math.sqrt(max(covariance[i, i], 0.0))
            low = max(values[i] - half, 0.0)
            high = values[i] + half if name != "σ" else min(values[i] + half, 1.0)
            parameters.append(Parameter(name, float(values[i]), float(low), float(high)))
        else:
            parameters.append(Parameter(name, float(values[i]), None, None, "at its bound: no interval" if bound else why))
    return Usl(*parameters, points, r_squared, covariance if held else None, dof)


def try_fit(points: list[tuple[float, float]]) -> tuple[Usl | None, str | None]:
    """(the fit, None) or (None, why it cannot be made)."""
    try:
        return fit(points), None
    except CannotFit as e:
        return None, str(e)
