"""Each task's verdict in a comparison, with the race as the unit of replication (never a race's own throughput
samples):

- 3 races or more a side: Welch's test on the log race medians, the change and its 95 % interval on that estimator
  (the ratio of geometric means), Holm's correction across the comparison's tasks;
- fewer: a verdict only against a noise floor measured for that track and task on this machine, named in the row: the
  differences its identical races showed where the calibration kept them (races here are skewed: a normal curve at
  their σ holds too few of their differences), else a prediction interval at σ; without one, "not enough races", with
  how many a side the change seen would need;
- a side whose races trend in race order, or two sides raced one after the other while the medians drift across
  both, is reported as that trend, not as a change.

Each row carries the smallest change the comparison could have found (80 % power at its σ and races, at the
corrected level)."""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from ingestlab.verdicts import stats
from ingestlab.verdicts.noise import Floor

NOT_ENOUGH = "not enough races"
TREND = "drift, not called"
MIN_RACES = 3


@dataclass(frozen=True)
class Side:
    values: tuple  # each race's median, in race order
    times: tuple = ()  # each race's start (sortable), in race order


@dataclass(frozen=True)
class Verdict:
    task: str
    call: str  # faster, slower, within noise, not enough races, drift
    change: float  # the ratio of geometric means less one
    low: float | None = None
    high: float | None = None
    basis: str = ""
    smallest: float | None = None  # the smallest change this comparison could find (80 % power)
    needs: int | None = None  # races a side the change seen would need
    trend: str | None = None  # what the race order shows, in words


def side_trend(name: str, side: Side) -> str | None:
    """A side whose medians trend in race order (Mann–Kendall, 4 races or more), in words."""
    found = stats.mann_kendall(list(side.values))
    if found is None or found.p >= stats.ALPHA:
        return None
    ratio = found.last / found.first
    way = "rose" if found.rising else "fell"
    warm = ": the node was warming up" if found.rising else ""
    return f"{name} {way} {ratio:.2f}× over its {len(side.values)} races (Mann–Kendall p={found.p:.3f}){warm}"


def drift_across(baseline: Side, contender: Side) -> str | None:
    """Two sides raced one after the other (no race of one between races of the other) whose medians, taken together in
    race order, trend (Mann–Kendall): the session's drift and the change cannot be told apart."""
    if not (baseline.times and contender.times) or len(baseline.values) + len(contender.values) < 4:
        return None
    if not (max(baseline.times) < min(contender.times) or max(contender.times) < min(baseline.times)):
        return None
    ordered = [v for _, v in sorted(zip((*baseline.times, *contender.times), (*baseline.values, *contender.values)))]
    found = stats.mann_kendall(ordered)
    if found is None or found.p >= stats.ALPHA:
        return None
    way = "rose" if found.rising else "fell"
    return (f"the two sides ran one after the other and their {len(ordered)} races {way} {found.last / found.first:.2f}× in race order "
            f"(Mann–Kendall p={found.p:.3f}): the change cannot be told from the session's drift; interleave the sides (`ingestlab ab`)")


def pooled_sigma(baseline: Side, contender: Side) -> tuple[float, int] | None:
    """σ of the log medians within the sides, pooled, and its degrees of freedom; None without a side of 2 races."""
    parts = [stats.logs(s.values) for s in (baseline, contender)]
    df = sum(len(p) - 1 for p in parts if len(p) > 1)
    if df < 1:
        return None
    ss = sum(sum((x - statistics.fmean(p)) ** 2 for x in p) for p in parts if len(p) > 1)
    return math.sqrt(ss / df), df


def judge(tasks: dict[str, tuple[Side, Side]], floors: dict[str, Floor | None] | None = None,
          names: tuple[str, str] = ("the baseline", "the contender")) -> list[Verdict]:
    """A verdict per task of one comparison (``tasks``: task → (baseline, contender)); ``floors``: each task's noise
    floor where one was measured."""
    floors = floors or {}
    prepared, p_values = [], []
    for task, (base, cont) in tasks.items():
        change = stats.geometric_mean(cont.values) / stats.geometric_mean(base.values) - 1
        notes = [t for t in (side_trend(names[0], base), side_trend(names[1], cont)) if t]
        across = drift_across(base, cont)
        row = {"task": task, "base": base, "cont": cont, "change": change, "trend": "; ".join(notes + ([across] if across else [])) or None,
               "drift": across is not None, "p": None}
        n_a, n_b = len(base.values), len(cont.values)
        floor = floors.get(task)
        if n_a >= MIN_RACES and n_b >= MIN_RACES:
            row["welch"] = stats.welch(base.values, cont.values)
            row["p"] = row["welch"].p if row["welch"] else None
        elif floor is not None:
            row["prediction"] = (stats.against_pool(base.values, cont.values, floor.logs) if floor.logs
                                 else stats.against_floor(base.values, cont.values, floor.sigma, floor.df))
            row["p"] = row["prediction"].p if row["prediction"] else None
        prepared.append(row)
        p_values.append(None if row["drift"] else row["p"])
    rejected = stats.holm(p_values)
    m = sum(p is not None for p in p_values)
    level = stats.holm_level(m)
    return [_verdict(row, rejected[i], floors.get(row["task"]), m, level) for i, row in enumerate(prepared)]


def _verdict(row: dict, rejected: bool | None, floor: Floor | None, m: int, level: float) -> Verdict:
    task, base, cont, change = row["task"], row["base"], row["cont"], row["change"]
    n_a, n_b = len(base.values), len(cont.values)
    correction = f"Holm over {m} tasks" if m > 1 else "one task"
    if row["drift"]:
        return Verdict(task, TREND, change, basis=f"{n_a} vs {n_b} races", trend=row["trend"])
    if "welch" in row:
        w = row["welch"]
        if w is None:
            return Verdict(task, NOT_ENOUGH, change, basis=f"{n_a} vs {n_b} races that measured the same figure: no spread",
                           trend=row["trend"])
        call = ("faster" if w.change > 0 else "slower") if rejected else "within noise"
        sigma = w.se / math.sqrt(1 / n_a + 1 / n_b)
        smallest = stats.smallest_change(sigma, n_a, n_b, df=w.df, alpha=level)
        needs = None if rejected else stats.races_needed(change, sigma, alpha=level)
        return Verdict(task, call, w.change, w.low, w.high, f"{n_a} vs {n_b} races, Welch on log medians, {correction}", smallest,
                       needs, row["trend"])
    if floor is not None and row.get("prediction"):
        pred = row["prediction"]
        call = ("faster" if pred.change > 0 else "slower") if rejected else "within noise"
        smallest = stats.smallest_change(floor.sigma, n_a, n_b, df=floor.df, alpha=level)
        how = (f", read from the differences of its {len(floor.logs)} races (no normal curve)" if floor.logs else "")
        return Verdict(task, call, pred.change, pred.low, pred.high,
                       f"{n_a} vs {n_b} races against the noise floor σ {floor.sigma:.1%} of {floor.source}{how}, {correction}", smallest,
                       None if rejected else stats.races_needed(change, floor.sigma, alpha=level), row["trend"])
    pooled = pooled_sigma(base, cont)
    if pooled:
        needs = stats.races_needed(change, pooled[0], alpha=level)
        why = (f"{n_a} vs {n_b} races and no noise floor measured for this task here: the change seen would need "
               + (f"about {needs} races a side" if needs else "more races than are practical")
               + f" at the spread these races show (σ {pooled[0]:.1%})")
        return Verdict(task, NOT_ENOUGH, change, basis=why, needs=needs, trend=row["trend"])
    return Verdict(task, NOT_ENOUGH, change, basis=f"{n_a} vs {n_b} races and no noise floor measured for this task here: race "
                   f"{MIN_RACES} or more a side, or run `ingestlab calibrate` for this track", trend=row["trend"])
