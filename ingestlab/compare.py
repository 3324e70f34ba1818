"""Compare races: one baseline against one or more contenders, each side one race or several repeated races
aggregated (median, min, max, coefficient of variation, service-time percentiles, error rate), and a verdict on
each task's throughput that states its confidence.

Two rules judge a difference:

- ``t`` (the default): Welch's t-test on the logarithm of throughput, which gives a 95 % confidence interval for the
  contender ÷ baseline ratio; the contender is faster or slower when the interval leaves out no change. Its unit of
  replication is the race (each race's median) when both sides have at least 3 races. With one race a side it falls
  back to the task's own throughput samples in each race (kept beside race.json by the pack's races), saying so:
  samples of one race do not show how far two races drift apart. Anything less is "not enough data to call".
- ``margin`` (the rule before it): a difference counts beyond twice the larger coefficient of variation with several
  races per side, or, with one race a side, once the two races' samples (Rally's min to max) stop overlapping.

How often each rule raises a false alarm on A/A pairs and how often it finds a real 10 % change is measured on this
machine with ``ingestlab calibrate`` (see the README); the footnote of every comparison repeats it.
Races with failed requests, test-mode races and races whose emulated hardware did not hold are left out and named.
Set-up tasks (index creation, count checks) are left out.
"""
from __future__ import annotations

import csv
import io
import json
import math
import statistics
from dataclasses import dataclass, field

from ingestlab.rally.results import SAMPLES_KEY, task_results

SETUP_PREFIXES = ("recreate-", "check-", "delete-", "create-", "load-source", "searchable-refresh-interval-")
MARGIN_FACTOR = 2.0  # margin = this × the larger coefficient of variation of the two sides
NOT_ENOUGH = "not enough data to call"
METHODS = ("t", "margin")
MIN_REPLICATES = 3  # per side, for the t rule
CONFIDENCE = 0.95


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
    values: tuple = ()  # each race's median
    within: tuple = ()  # one race's own throughput samples (where kept), for the t rule with one race a side
    service: dict = field(default_factory=dict)  # p50/p90/p99 service time, ms: the median over the races
    error_rate: float = 0.0
    unit: str | None = None

    @classmethod
    def of(cls, values: list[float], samples: list | None = None, within: list | None = None, service: list | None = None,
           error_rate: float = 0.0, unit: str | None = None) -> "Aggregate":
        """``samples``: each race's (slowest, fastest) sample, or None for a race with one sample; ``within``: the one
        race's throughput samples; ``service``: each race's service-time percentiles."""
        cv = statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else None
        known = [s for s in (samples or []) if s]
        pooled = (min(lo for lo, _ in known), max(hi for _, hi in known)) if known and len(known) == len(samples or []) else None
        percentiles = {}
        for p in ("p50", "p90", "p99"):
            got = [s[p] for s in service or [] if s.get(p) is not None]
            if got:
                percentiles[p] = statistics.median(got)
        return cls(statistics.median(values), min(values), max(values), cv, len(values), pooled, tuple(values),
                   tuple(within or ()), percentiles, error_rate, unit)

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
    service: dict[str, list] = {}
    errors: dict[str, float] = {}
    units: dict[str, str | None] = {}
    for race in races:
        within = task_samples(race)
        results = task_results(race)
        for task, value in task_figures(race).items():
            per_task.setdefault(task, []).append(value)
            samples.setdefault(task, []).append(within.get(task))
            service.setdefault(task, []).append({p: results[task].service_time(p) for p in ("p50", "p90", "p99")})
            errors[task] = max(errors.get(task, 0.0), results[task].error_rate)
            units[task] = results[task].unit
    own = (races[0].get(SAMPLES_KEY) or {}) if len(races) == 1 else {}
    return {task: Aggregate.of(values, samples[task], own.get(task), service[task], errors[task], units[task])
            for task, values in per_task.items()}


@dataclass(frozen=True)
class Difference:
    task: str
    baseline: Aggregate
    contender: Aggregate
    change: float  # contender ÷ baseline − 1 (of the medians)
    margin: float | None = None  # the margin rule: the change a difference must exceed; None: no spread to judge by
    low: float | None = None  # the t rule: the 95 % interval of the change
    high: float | None = None
    method: str = "t"
    basis: str = ""  # what the t rule compared: races, or one race's samples a side; why not, where it could not

    @property
    def verdict(self) -> str:
        if self.method == "t":
            if self.low is None:
                return NOT_ENOUGH
            return "faster" if self.low > 0 else "slower" if self.high < 0 else "within noise"
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


def interval(baseline: list[float], contender: list[float], confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The confidence interval of contender ÷ baseline − 1, from Welch's t-test on the logarithms."""
    from scipy import stats

    a, b = [math.log(v) for v in baseline if v > 0], [math.log(v) for v in contender if v > 0]
    test = stats.ttest_ind(b, a, equal_var=False)
    low, high = test.confidence_interval(confidence)
    return math.exp(low) - 1.0, math.exp(high) - 1.0


def t_rule(baseline: Aggregate, contender: Aggregate) -> tuple[float | None, float | None, str]:
    if baseline.n >= MIN_REPLICATES and contender.n >= MIN_REPLICATES:
        if len(set(baseline.values)) > 1 or len(set(contender.values)) > 1:
            low, high = interval(list(baseline.values), list(contender.values))
            return low, high, f"{baseline.n} vs {contender.n} races"
        return None, None, "the races measured the same figure: no spread"
    if baseline.n == 1 and contender.n == 1 and len(baseline.within) >= MIN_REPLICATES and len(contender.within) >= MIN_REPLICATES:
        low, high = interval(list(baseline.within), list(contender.within))
        return low, high, f"{len(baseline.within)} vs {len(contender.within)} samples of one race a side (no drift between races in it)"
    return None, None, f"{baseline.n} vs {contender.n} races; the rule needs {MIN_REPLICATES} a side, or one race a side with its samples kept"


def difference(task: str, baseline: Aggregate, contender: Aggregate, margin: float | None = None, method: str = "t") -> Difference:
    change = contender.median / baseline.median - 1.0
    if method == "margin" or margin is not None:
        return Difference(task, baseline, contender, change, margin_for(baseline, contender, margin, change), method="margin")
    low, high, basis = t_rule(baseline, contender)
    return Difference(task, baseline, contender, change, None, low, high, "t", basis)


def compare(baseline: dict[str, Aggregate], contender: dict[str, Aggregate], margin: float | None = None,
            method: str = "t") -> list[Difference]:
    return [difference(task, baseline[task], contender[task], margin, method) for task in baseline if task in contender]


def _agg(a: Aggregate) -> str:
    spread = f", CV {a.cv:.1%}" if a.cv is not None else (f", samples ±{a.spread:.1%}" if a.spread else ", one sample")
    return f"{a.median:,.1f} ({a.minimum:,.1f}–{a.maximum:,.1f}, n={a.n}{spread})"


def _judged(d: Difference) -> str:
    if d.method == "t":
        return f"{d.low:+.1%} to {d.high:+.1%}" if d.low is not None else "—"
    return f"±{d.margin:.1%}" if d.margin is not None else "—"


def _service(a: Aggregate) -> str:
    return " / ".join("—" if a.service.get(p) is None else f"{a.service[p]:,.1f}" for p in ("p50", "p90", "p99"))


def rows(baseline_name: str, baseline: dict[str, Aggregate], contenders: list[tuple[str, dict[str, Aggregate]]],
         margin: float | None = None, method: str = "t") -> list[dict]:
    """One plain row per contender and task: what the csv and json formats write."""
    out = []
    for name, contender in contenders:
        for d in compare(baseline, contender, margin, method):
            row = {"baseline": baseline_name, "contender": name, "task": d.task, "unit": d.baseline.unit,
                   "baseline_median": d.baseline.median, "baseline_n": d.baseline.n, "contender_median": d.contender.median,
                   "contender_n": d.contender.n, "change": d.change, "method": d.method, "interval_low": d.low, "interval_high": d.high,
                   "margin": d.margin, "verdict": d.verdict, "basis": d.basis,
                   "baseline_error_rate": d.baseline.error_rate, "contender_error_rate": d.contender.error_rate}
            for side, a in (("baseline", d.baseline), ("contender", d.contender)):
                row.update({f"{side}_service_{p}_ms": a.service.get(p) for p in ("p50", "p90", "p99")})
            out.append(row)
    return out


def footnote(method: str, margin: float | None, rates: str | None = None) -> str:
    if margin is not None:
        text = f"The margin is fixed at {margin:.1%}."
    elif method == "t":
        text = (f"Verdicts by Welch's t-test on log throughput: the {CONFIDENCE:.0%} confidence interval of the change; faster or "
                f"slower when it leaves out no change. It needs {MIN_REPLICATES} races a side; with one race a side it uses each "
                "race's own throughput samples (those cannot show drift between races); else it says " + NOT_ENOUGH + ".")
    else:
        text = (f"The margin rule: {MARGIN_FACTOR:g}× the larger coefficient of variation of the two sides with several races per side; "
                "with one race on a side, the change at which the two sides' samples (Rally's min to max) stop overlapping; with "
                f"a single sample there is none, and the verdict says {NOT_ENOUGH}.")
    return text + (f" {rates}" if rates else "")


def markdown(baseline_name: str, baseline: dict[str, Aggregate], contenders: list[tuple[str, dict[str, Aggregate]]],
             margin: float | None = None, notes: list[str] | None = None, method: str = "t", rates: str | None = None) -> str:
    judged = "95 % interval of the change" if method == "t" and margin is None else "margin"
    lines = [f"## Compare: baseline {baseline_name}", ""]
    for name, contender in contenders:
        lines += [f"### {name} against the baseline", "",
                  f"| task | baseline: median (min–max, n, spread) | contender | change | {judged} | verdict | service p50 / p90 / p99 ms: "
                  "baseline → contender | error rate |",
                  "|---|---:|---:|---:|---:|---|---|---:|"]
        for d in compare(baseline, contender, margin, method):
            errors = f"{d.baseline.error_rate:.1%} → {d.contender.error_rate:.1%}"
            lines.append(f"| {d.task} | {_agg(d.baseline)} | {_agg(d.contender)} | {d.change:+.1%} | {_judged(d)} "
                         f"| {d.verdict}{f' ({d.basis})' if d.method == 't' and d.basis else ''} | {_service(d.baseline)} → {_service(d.contender)} "
                         f"| {errors} |")
        lines.append("")
    lines.append("Figures are Rally's median throughput per task (higher is better). " + footnote(method, margin, rates))
    for note in notes or []:
        lines.append(f"- {note}")
    return "\n".join(lines) + "\n"


def render(fmt: str, baseline_name: str, baseline: dict[str, Aggregate], contenders: list[tuple[str, dict[str, Aggregate]]],
           margin: float | None = None, notes: list[str] | None = None, method: str = "t", rates: str | None = None) -> str:
    """The comparison as markdown, csv, json or a self-contained html page."""
    if fmt in ("markdown", "html"):
        text = markdown(baseline_name, baseline, contenders, margin, notes, method, rates)
        if fmt == "markdown":
            return text
        from ingestlab.report import html

        return html.page(f"ingestlab compare: {baseline_name}", text, [])
    table = rows(baseline_name, baseline, contenders, margin, method)
    if fmt == "json":
        return json.dumps({"rows": table, "notes": notes or [], "method": method, "footnote": footnote(method, margin, rates)}, indent=2)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(table[0]) if table else ["baseline", "contender", "task"])
    writer.writeheader()
    writer.writerows(table)
    return out.getvalue()
