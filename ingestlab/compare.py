"""Compare races: a baseline against contenders, each side one race or several aggregated, and a verdict on each
task's throughput that names its evidence (:mod:`ingestlab.report.comparison` writes it out). The default rule (``t``)
is :mod:`ingestlab.verdicts.judge`'s; ``margin`` is the earlier rule (twice the larger coefficient of variation, or a
fixed margin). Races with failed requests, test-mode races, races whose emulated hardware did not hold, and set-up
tasks are left out."""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field

from ingestlab.rally import side_words
from ingestlab.rally.results import task_results
from ingestlab.verdicts import judge as judging
from ingestlab.verdicts.noise import Floor

SETUP_PREFIXES = ("recreate-", "check-", "delete-", "create-", "load-source", "searchable-refresh-interval-")
MARGIN_FACTOR = 2.0  # margin = this × the larger coefficient of variation of the two sides
NOT_ENOUGH = judging.NOT_ENOUGH


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
    values: tuple = ()  # each race's median, in race order
    times: tuple = ()  # each race's start, in race order (for the trend checks)
    service: dict = field(default_factory=dict)  # p50/p90/p99 service time, ms: the median over the races
    error_rate: float = 0.0
    unit: str | None = None
    load_side: str | None = None  # the load side's verdicts over the races (ingestlab.rally.side_words.in_words); None: none said
    pairs: tuple = ()  # each race's pair (its ``ab-pair`` tag) where every race was raced in a pair by ``ingestlab ab``
    primary: bool = False  # the task ``ingestlab ab`` planned its races for (its ``ab-task`` tag)

    @classmethod
    def of(
        cls,
        values: list[float],
        samples: list | None = None,
        times: list | None = None,
        service: list | None = None,
        error_rate: float = 0.0,
        unit: str | None = None,
        load_side: str | None = None,
        pairs: list | None = None,
        primary: bool = False,
    ) -> "Aggregate":
        """``samples``: each race's (slowest, fastest) sample, or None for a race with one sample (shown, never judged);
        ``times``: each race's start; ``service``: each race's service-time percentiles."""
        cv = statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else None
        known = [s for s in (samples or []) if s]
        pooled = (min(lo for lo, _ in known), max(hi for _, hi in known)) if known and len(known) == len(samples or []) else None
        got = {p: [s[p] for s in service or [] if s.get(p) is not None] for p in ("p50", "p90", "p99")}
        percentiles = {p: statistics.median(v) for p, v in got.items() if v}
        return cls(
            statistics.median(values),
            min(values),
            max(values),
            cv,
            len(values),
            pooled,
            tuple(values),
            tuple(times or ()),
            percentiles,
            error_rate,
            unit,
            load_side,
            tuple(pairs or ()),
            primary,
        )

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
    why = [(race, left_out(race, test_mode)) for race in races]
    return [r for r, w in why if not w], [f"race {r.get('race-id')} left out: {w}" for r, w in why if w]


def aggregate(races: list[dict]) -> dict[str, Aggregate]:
    """Each task's figures over ``races``, taken in race order (their start)."""
    per_task: dict[str, list[tuple]] = {}  # task → (median, samples, start, service times, error rate, unit, pair) a race
    for race in sorted(races, key=lambda r: str(r.get("race-timestamp", ""))):
        within, results, tags = task_samples(race), task_results(race), race.get("user-tags", {}) or {}
        for task, value in task_figures(race).items():
            r = results[task]
            service = {p: r.service_time(p) for p in ("p50", "p90", "p99")}
            row = (value, within.get(task), str(race.get("race-timestamp", "")), service, r.error_rate, r.unit, tags.get("ab-pair"))
            per_task.setdefault(task, []).append(row)
    sides = side_words.in_words(races, lambda race: list(task_figures(race)))
    planned = {(r.get("user-tags", {}) or {}).get("ab-task") for r in races}
    primary = planned.pop() if len(planned) == 1 else None
    out = {}
    for task, rows in per_task.items():
        values, samples, times, service, errors, units, pairs = (list(column) for column in zip(*rows))
        times, pairs = times if all(times) else None, pairs if all(pairs) else None
        out[task] = Aggregate.of(values, samples, times, service, max(0.0, *errors), units[-1], sides.get(task), pairs, task == primary)
    return out


@dataclass(frozen=True)
class Difference:
    task: str
    baseline: Aggregate
    contender: Aggregate
    change: float  # the t rule: the ratio of geometric means less one; the margin rule: of the medians
    margin: float | None = None  # the margin rule: the change a difference must exceed; None: no spread to judge by
    low: float | None = None  # the t rule: the interval of the change, at the level Holm judged it
    high: float | None = None
    method: str = "t"
    basis: str = ""  # what the verdict rests on, or why there is none
    call: str = ""  # the t rule's verdict (ingestlab.verdicts.judge)
    smallest: float | None = None  # the smallest change this comparison could find (80 % power)
    needs: int | None = None  # races a side the change seen would need
    trend: str | None = None  # what the race order shows
    design: str = "sides"  # how the sides were raced (ingestlab.verdicts.judge.Verdict.design)

    @property
    def verdict(self) -> str:
        if self.method == "t":
            return self.call
        if self.margin is None:
            return NOT_ENOUGH
        if self.change > self.margin:
            return "faster"
        if self.change < -self.margin:
            return "slower"
        return "within noise"


def margin_for(baseline: Aggregate, contender: Aggregate, fixed: float | None) -> float | None:
    """The change a difference must exceed; None with a side of one race and no fixed margin (a race's own samples are
    never a spread to judge by)."""
    if fixed is not None:
        return fixed
    if baseline.n > 1 and contender.n > 1:
        return max(MARGIN_FACTOR * max(baseline.cv, contender.cv), 0.01)
    return None


def _side(a: Aggregate) -> judging.Side:
    return judging.Side(a.values, a.times, a.pairs)


def compare(
    baseline: dict[str, Aggregate],
    contender: dict[str, Aggregate],
    margin: float | None = None,
    method: str = "t",
    floors: dict[str, Floor | None] | None = None,
) -> list[Difference]:
    """Each task both sides measured, judged together (the t rule corrects across them)."""
    tasks = [t for t in baseline if t in contender]
    if method == "margin" or margin is not None:
        change = {t: contender[t].median / baseline[t].median - 1.0 for t in tasks}
        return [
            Difference(t, baseline[t], contender[t], change[t], margin_for(baseline[t], contender[t], margin), method="margin")
            for t in tasks
        ]
    primary = next((t for t in tasks if baseline[t].primary and contender[t].primary), None)
    verdicts = judging.judge({t: (_side(baseline[t]), _side(contender[t])) for t in tasks}, floors, primary=primary)
    return [Difference(baseline=baseline[v.task], contender=contender[v.task], **asdict(v)) for v in verdicts]


def difference(
    task: str, baseline: Aggregate, contender: Aggregate, margin: float | None = None, method: str = "t", floor: Floor | None = None
) -> Difference:
    """One task alone (no correction across tasks)."""
    return compare({task: baseline}, {task: contender}, margin, method, {task: floor})[0]
