"""time = requests × r + documents × c (+ refreshes × f): what a request, a document and a refresh cost, fitted by least
squares, each with its 95 % confidence interval (Student's t on the fit's own residuals). With no residual degrees of
freedom there is no interval, and a fit with fewer cells than parameters is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

TERMS = ("request", "document", "refresh")


@dataclass(frozen=True)
class Cell:
    label: str
    requests: float
    documents: float
    seconds: float
    refreshes: float = 0.0


@dataclass(frozen=True)
class Parameter:
    name: str
    value: float
    low: float | None  # 95 % interval; None where the fit leaves none (see ``why``)
    high: float | None
    why: str = ""  # why there is no interval, in words: "exact" (as many cells as costs), "at its bound", too few points

    def interval(self, scale: float = 1.0, digits: int = 1, unit: str = "") -> str:
        value = f"{self.value * scale:,.{digits}f}{unit}"
        if self.low is None:
            return f"{value} ({self.why})" if self.why else value
        return f"{value} ({self.low * scale:,.{digits}f}–{self.high * scale:,.{digits}f})"


@dataclass(frozen=True)
class Fit:
    parameters: dict[str, Parameter]
    cells: list[Cell]
    predicted: list[float]
    r_squared: float | None
    terms: tuple[str, ...] = field(default=())
    covariance: np.ndarray | None = None  # of the parameters, in ``terms`` order; None for an exact fit
    dof: int = 0  # residual degrees of freedom

    def per(self, term: str) -> Parameter | None:
        return self.parameters.get(term)

    def predict(self, requests: float, documents: float, refreshes: float = 0.0) -> float:
        values = {"request": requests, "document": documents, "refresh": refreshes}
        return sum(self.parameters[t].value * values[t] for t in self.terms)


class CannotFit(ValueError):
    """Too few cells, or cells that cannot separate the costs (the reason says which)."""


def _column(cell: Cell, term: str) -> float:
    return {"request": cell.requests, "document": cell.documents, "refresh": cell.refreshes}[term]


def t975(dof: float) -> float:
    """Student's t at 0.975 for ``dof`` degrees of freedom: the half-width of a 95 % interval in standard errors
    (from scipy.special, which loads in much less time than scipy.stats)."""
    from scipy.special import stdtrit  # loaded where an interval is computed

    return float(stdtrit(dof, 0.975))


def fit(cells: list[Cell], terms: tuple[str, ...] = ("request", "document")) -> Fit:
    """Least squares, weighted so that every cell counts by its relative error (a 6 s cell and a 0.25 s cell alike)."""
    cells = [c for c in cells if c.seconds and c.seconds > 0]
    if len(cells) < len(terms):
        raise CannotFit(f"{len(cells)} measured cells for {len(terms)} costs ({', '.join(terms)}): too few to fit")
    x = np.array([[_column(c, t) for t in terms] for c in cells], dtype=float)
    y = np.array([c.seconds for c in cells], dtype=float)
    w = 1.0 / y  # relative errors
    xw, yw = x * w[:, None], y * w
    if np.linalg.matrix_rank(xw) < len(terms):
        raise CannotFit(f"the cells do not separate the costs ({', '.join(terms)}): every cell has them in the same proportion")
    beta, *_ = np.linalg.lstsq(xw, yw, rcond=None)
    residuals = yw - xw @ beta
    dof = len(cells) - len(terms)
    parameters, covariance = {}, None
    if dof > 0:
        sigma2 = float(residuals @ residuals) / dof
        covariance = sigma2 * np.linalg.inv(xw.T @ xw)
        t = t975(dof)
        for i, term in enumerate(terms):  # a cost is never below 0: the interval is cut there
            half = t * math.sqrt(max(covariance[i, i], 0.0))
            parameters[term] = Parameter(term, float(beta[i]), max(float(beta[i] - half), 0.0), float(beta[i] + half))
    else:
        exact = f"exact: {len(cells)} cells for {len(terms)} costs, no interval"
        parameters = {term: Parameter(term, float(beta[i]), None, None, exact) for i, term in enumerate(terms)}
    predicted = x @ beta
    total = float(((y - y.mean()) ** 2).sum())  # R² of the times themselves (the weighted response is 1 for every cell)
    r_squared = 1.0 - float(((y - predicted) ** 2).sum()) / total if total > 0 and dof > 0 else None
    predicted = [float(v) for v in predicted]
    return Fit(parameters, cells, predicted, r_squared, tuple(terms), covariance, dof)


def compare_sentence(here: Fit, there: Fit, what: str = "the speed-ups") -> str:
    """One sentence on where two machines differ, part by part: per document and per request (and per refresh)."""
    ratios = {}
    for term in ("document", "request", "refresh"):
        a, b = here.per(term), there.per(term)
        if a is not None and b is not None and a.value > 0 and b.value > 0:
            ratios[term] = a.value / b.value
    if not ratios:
        return ""
    phrases = [
        f"per {term} within {abs(r - 1):.0%}"
        if abs(r - 1) <= 0.10
        else f"per {term} {max(r, 1 / r):,.1f}× {'slower' if r > 1 else 'faster'} here"
        for term, r in ratios.items()
    ]
    why = ""
    if "request" in ratios and "document" in ratios:
        if ratios["request"] > ratios["document"] * 1.1:
            why = (
                f": {what} come out larger here because a request's fixed cost weighs {ratios['request'] / ratios['document']:,.1f}× "
                "more against a document's than on the article's machine"
            )
        elif ratios["request"] * 1.1 < ratios["document"]:
            why = (
                f": {what} come out smaller here because a request's fixed cost weighs less against a document's "
                f"({ratios['request'] / ratios['document']:,.2f}×) than on the article's machine"
            )
        else:
            why = f": the two costs keep their proportion, so {what} agree"
    return "Against the article's machine: " + "; ".join(phrases) + why + "."
