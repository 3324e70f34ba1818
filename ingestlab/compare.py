"""Compare races: one baseline against one or more contenders, each side one race or several
repeated races aggregated (median, min, max, coefficient of variation), with a noise margin so that
a difference counts only when it is larger than the spread the races themselves show.

The figure per task is Rally's median throughput (docs/s or ops/s: higher is better). Set-up tasks
(index creation, count checks) are left out.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from ingestlab.rally.results import task_results

SETUP_PREFIXES = ("recreate-", "check-", "delete-", "create-", "load-source", "searchable-refresh-interval-")
DEFAULT_MARGIN = 0.05  # with a single race per side there is no spread to derive one from
MARGIN_FACTOR = 2.0  # margin = this × the larger coefficient of variation of the two sides


def task_figures(race: dict) -> dict[str, float]:
    return {t: r.throughput_median for t, r in task_results(race).items() if r.throughput_median and not t.startswith(SETUP_PREFIXES)}


@dataclass(frozen=True)
class Aggregate:
    median: float
    minimum: float
    maximum: float
    cv: float | None  # stdev / mean; None for a single race
    n: int

    @classmethod
    def of(cls, values: list[float]) -> "Aggregate":
        cv = statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else None
        return cls(statistics.median(values), min(values), max(values), cv, len(values))


def aggregate(races: list[dict]) -> dict[str, Aggregate]:
    per_task: dict[str, list[float]] = {}
    for race in races:
        for task, value in task_figures(race).items():
            per_task.setdefault(task, []).append(value)
    return {task: Aggregate.of(values) for task, values in per_task.items()}


@dataclass(frozen=True)
class Difference:
    task: str
    baseline: Aggregate
    contender: Aggregate
    change: float  # contender ÷ baseline − 1
    margin: float

    @property
    def verdict(self) -> str:
        if self.change > self.margin:
            return "faster"
        if self.change < -self.margin:
            return "slower"
        return "within noise"


def margin_for(baseline: Aggregate, contender: Aggregate, fixed: float | None) -> float:
    if fixed is not None:
        return fixed
    spreads = [a.cv for a in (baseline, contender) if a.cv is not None]
    return max(MARGIN_FACTOR * max(spreads), 0.01) if spreads else DEFAULT_MARGIN


def compare(baseline: dict[str, Aggregate], contender: dict[str, Aggregate], margin: float | None = None) -> list[Difference]:
    out = []
    for task in baseline:
        if task in contender:
            b, c = baseline[task], contender[task]
            out.append(Difference(task, b, c, c.median / b.median - 1.0, margin_for(b, c, margin)))
    return out


def _agg(a: Aggregate) -> str:
    spread = f", CV {a.cv:.1%}" if a.cv is not None else ""
    return f"{a.median:,.1f} ({a.minimum:,.1f}–{a.maximum:,.1f}, n={a.n}{spread})"


def markdown(baseline_name: str, baseline: dict[str, Aggregate], contenders: list[tuple[str, dict[str, Aggregate]]],
             margin: float | None = None) -> str:
    lines = [f"## Compare: baseline {baseline_name}", ""]
    for name, contender in contenders:
        lines += [f"### {name} against the baseline", "",
                  "| task | baseline: median (min–max, n, CV) | contender | change | margin | verdict |",
                  "|---|---:|---:|---:|---:|---|"]
        for d in compare(baseline, contender, margin):
            lines.append(f"| {d.task} | {_agg(d.baseline)} | {_agg(d.contender)} | {d.change:+.1%} | ±{d.margin:.1%} | {d.verdict} |")
        lines.append("")
    lines.append("Figures are Rally's median throughput per task (higher is better). The margin is "
                 + (f"fixed at {margin:.1%}." if margin is not None else
                    f"{MARGIN_FACTOR:g}× the larger coefficient of variation of the two sides (or {DEFAULT_MARGIN:.0%} with one race per side)."))
    return "\n".join(lines) + "\n"
