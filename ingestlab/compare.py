"""Compare races: one baseline against one or more contenders, each side one race or several repeated races
aggregated (median, min, max, coefficient of variation), with a noise margin taken from the spread the races
themselves measured, so that a difference counts only when it is larger than that spread.

- Several races per side: the margin is twice the larger coefficient of variation of the two sides.
- Otherwise the samples Rally took of the task decide (its min and max throughput of each race): a
  difference counts only when the two sides' samples do not overlap — the contender's slowest sample faster
  than the baseline's fastest, or its fastest slower than the baseline's slowest. The margin shown is the
  change at which that happens, in the direction of the change. Within-race samples understate the drift
  between races (an A/A pair of posts races here differed by 20 % with ±10 % samples), hence no narrower rule.
  A task Rally sampled once (min = max, as in test mode) has no spread: the verdict is "not enough data to
  call", never a guess.
- Races with failed requests and test-mode races are left out of the aggregate and named.

The figure per task is Rally's median throughput (docs/s or ops/s: higher is better). Set-up tasks
(index creation, count checks) are left out.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

from ingestlab.rally.results import task_results

SETUP_PREFIXES = ("recreate-", "check-", "delete-", "create-", "load-source", "searchable-refresh-interval-")
MARGIN_FACTOR = 2.0  # margin = this × the larger coefficient of variation of the two sides
NOT_ENOUGH = "not enough data to call"


def task_figures(race: dict) -> dict[str, float]:
    return {t: r.throughput_median for t, r in task_results(race).items() if r.throughput_median and not t.startswith(SETUP_PREFIXES)}


def task_samples(race: dict) -> dict[str, tuple[float, float] | None]:
    """Rally's slowest and fastest sample of each task (min and max throughput); None where there was one sample."""
    out = {}
    for t, r in task_results(race).items():
        if r.throughput_median and r.throughput_max is not None and r.throughput_min is not None:
            out[t] = (r.throughput_min, r.throughput_max) if r.throughput_max > r.throughput_min else None
    return out


@dataclass(frozen=True)
class Aggregate:
    median: float
    minimum: float
    maximum: float
    cv: float | None  # stdev / mean across races; None for a single race
    n: int
    samples: tuple[float, float] | None = None  # slowest and fastest of Rally's samples over the races; None: one sample

    @classmethod
    def of(cls, values: list[float], samples: list | None = None) -> "Aggregate":
        """``samples``: each race's (slowest, fastest) sample, or None for a race with one sample."""
        cv = statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else None
        known = [s for s in (samples or []) if s]
        pooled = (min(lo for lo, _ in known), max(hi for _, hi in known)) if known and len(known) == len(samples or []) else None
        return cls(statistics.median(values), min(values), max(values), cv, len(values), pooled)

    @property
    def spread(self) -> float | None:
        """Half the range of the samples, relative to the median (for display)."""
        return (self.samples[1] - self.samples[0]) / 2 / self.median if self.samples else None


def left_out(race: dict, test_mode: bool = False) -> str | None:
    """Why a race does not belong in an aggregate, or None when it does."""
    tags = race.get("user-tags", {}) or {}
    if (str(tags.get("test-mode", "")).lower() == "true") != test_mode:
        return "a test-mode race" if not test_mode else "not a test-mode race"
    failed = [t for t, r in task_results(race).items() if r.error_rate]
    if failed:
        return f"requests failed in {', '.join(failed)}"
    emulation = race.get("ingestlab-emulation")
    if emulation and not emulation.get("held"):
        return "its emulated hardware did not hold (" + "; ".join(emulation.get("problems", [])) + ")"
    return None


def select(races: list[dict], test_mode: bool = False) -> tuple[list[dict], list[str]]:
    """(the races to aggregate, a line for each race left out and why)."""
    kept, notes = [], []
    for race in races:
        why = left_out(race, test_mode)
        if why:
            notes.append(f"race {race.get('race-id')} left out: {why}")
        else:
            kept.append(race)
    return kept, notes


def aggregate(races: list[dict]) -> dict[str, Aggregate]:
    per_task: dict[str, list[float]] = {}
    samples: dict[str, list] = {}
    for race in races:
        within = task_samples(race)
        for task, value in task_figures(race).items():
            per_task.setdefault(task, []).append(value)
            samples.setdefault(task, []).append(within.get(task))
    return {task: Aggregate.of(values, samples[task]) for task, values in per_task.items()}


@dataclass(frozen=True)
class Difference:
    task: str
    baseline: Aggregate
    contender: Aggregate
    change: float  # contender ÷ baseline − 1
    margin: float | None  # None: no spread to call a difference by

    @property
    def verdict(self) -> str:
        if self.margin is None:
            return NOT_ENOUGH
        if self.change > self.margin:
            return "faster"
        if self.change < -self.margin:
            return "slower"
        return "within noise"


def margin_for(baseline: Aggregate, contender: Aggregate, fixed: float | None, change: float = 0.0) -> float | None:
    """The change a difference must exceed, in the direction of ``change``; None when there is no spread to judge by."""
    if fixed is not None:
        return fixed
    if baseline.n > 1 and contender.n > 1:
        return max(MARGIN_FACTOR * max(baseline.cv, contender.cv), 0.01)
    if not (baseline.samples and contender.samples):
        return None
    (b_lo, b_hi), (c_lo, c_hi) = baseline.samples, contender.samples
    if change >= 0:  # faster only once the contender's slowest sample beats the baseline's fastest
        return (b_hi / baseline.median) / (c_lo / contender.median) - 1.0
    return 1.0 - (b_lo / baseline.median) / (c_hi / contender.median)  # slower: its fastest below the baseline's slowest


def difference(task: str, baseline: Aggregate, contender: Aggregate, margin: float | None = None) -> Difference:
    change = contender.median / baseline.median - 1.0
    return Difference(task, baseline, contender, change, margin_for(baseline, contender, margin, change))


def compare(baseline: dict[str, Aggregate], contender: dict[str, Aggregate], margin: float | None = None) -> list[Difference]:
    return [difference(task, baseline[task], contender[task], margin) for task in baseline if task in contender]


def _agg(a: Aggregate) -> str:
    spread = f", CV {a.cv:.1%}" if a.cv is not None else (f", samples ±{a.spread:.1%}" if a.spread else ", one sample")
    return f"{a.median:,.1f} ({a.minimum:,.1f}–{a.maximum:,.1f}, n={a.n}{spread})"


def markdown(baseline_name: str, baseline: dict[str, Aggregate], contenders: list[tuple[str, dict[str, Aggregate]]],
             margin: float | None = None, notes: list[str] | None = None) -> str:
    lines = [f"## Compare: baseline {baseline_name}", ""]
    for name, contender in contenders:
        lines += [f"### {name} against the baseline", "",
                  "| task | baseline: median (min–max, n, spread) | contender | change | margin | verdict |",
                  "|---|---:|---:|---:|---:|---|"]
        for d in compare(baseline, contender, margin):
            shown = f"±{d.margin:.1%}" if d.margin is not None else "—"
            lines.append(f"| {d.task} | {_agg(d.baseline)} | {_agg(d.contender)} | {d.change:+.1%} | {shown} | {d.verdict} |")
        lines.append("")
    lines.append("Figures are Rally's median throughput per task (higher is better). The margin is "
                 + (f"fixed at {margin:.1%}." if margin is not None else
                    f"{MARGIN_FACTOR:g}× the larger coefficient of variation of the two sides with several races per side; with one "
                    "race on a side, the change at which the two sides' samples of the task (Rally's min to max) stop overlapping; "
                    f"with a single sample there is none, and the verdict says {NOT_ENOUGH}. One race a side cannot show the "
                    "drift between races, which can exceed the samples' spread (an A/A pair of races here once came out 7 % apart "
                    "with no samples overlapping): repeat the races before trusting such a verdict."))
    for note in notes or []:
        lines.append(f"- {note}")
    return "\n".join(lines) + "\n"
