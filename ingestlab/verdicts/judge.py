"""Each task's verdict in a comparison, the race the unit of replication (never a race's own samples): Welch on log
race medians with 3 races or more a side (Holm across tasks, each interval at the level Holm judged its task at); with
fewer, only against a measured noise floor; sides raced in pairs (``ab``) by a paired t test, a primary task at the
plain level; sides raced one after the other fitted as a step plus a drift, judged on the step where the drift explains
half the difference or more; a side that trends in race order is named (Mann–Kendall)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace
from datetime import datetime, timezone

from ingestlab.verdicts import ordering, stats
from ingestlab.verdicts.noise import Floor

NOT_ENOUGH = "not enough races"
TREND = "drift, not called"
MIN_RACES = 3
DRIFT_SEEN = stats.ALPHA  # the drift within the sides must be seen at this level (its own test)
DRIFT_SHARE = 0.5  # the drift explains at least this share of the sides' difference: judged as a step beyond the drift
BLOCKS = (
    "the sides ran one after the other: a drift of the machine between the two blocks cannot be told from the change"
    "{between}; interleave the sides (`ingestlab ab`) to tell them apart"
)


@dataclass(frozen=True)
class Side:
    values: tuple  # each race's median, in race order
    times: tuple = ()  # each race's start (sortable), in race order
    pairs: tuple = ()  # each race's pair where the sides were raced in pairs (``ingestlab ab``), in race order


def matched(baseline: Side, contender: Side) -> tuple[list[float], list[float], list[str]] | None:
    """Two sides raced in pairs: (the baseline's and the contender's median of each pair both sides kept, in pair order,
    the pairs that lost a race); None where the races are not labelled with their pairs on both sides."""
    if not (baseline.pairs and contender.pairs) or not all((*baseline.pairs, *contender.pairs)):
        return None
    a, b = dict(zip(baseline.pairs, baseline.values)), dict(zip(contender.pairs, contender.values))
    if len(a) != len(baseline.pairs) or len(b) != len(contender.pairs):
        return None  # a pair labelled twice on one side: not a paired design
    in_order = lambda labels: sorted(labels, key=lambda k: (len(str(k)), str(k)))  # pair 2 before pair 10
    both, lost = in_order(set(a) & set(b)), in_order(set(a) ^ set(b))
    return [a[k] for k in both], [b[k] for k in both], [str(k) for k in lost]


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
    design: str = "sides"  # how the sides were raced: "blocks" one after the other, "pairs" (ab), else "sides" (mixed in time)


def side_trend(name: str, side: Side, found: ordering.Trend | None = None) -> str | None:
    """A side whose medians trend in race order (Mann–Kendall), in words; ``found``: its test, where already run."""
    found = found or ordering.mann_kendall(list(side.values))
    if found is None:
        return None
    ratio = found.last / found.first
    way = "rose" if found.rising else "fell"
    warm = ": the node was warming up" if found.rising else ""
    return f"{name} {way} {ratio:.2f}× over its {len(side.values)} races (Mann–Kendall p={found.p:.3f}){warm}"


def _minutes(stamp: str) -> float | None:
    """A race's start (Rally's ``20261202T032925Z``, or ISO) in minutes since the epoch; None when it is not a time."""
    for form in ("%Y%m%dT%H%M%SZ", "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(str(stamp), form).replace(tzinfo=timezone.utc).timestamp() / 60.0
        except ValueError:
            continue
    return None


def blocks(baseline: Side, contender: Side) -> tuple[list[float], list[float]] | None:
    """Each side's races' starts, in minutes from the first race, when the two sides ran one after the other; None when
    they interleaved or their start times are not known."""
    if not (baseline.times and contender.times):
        return None
    if not (max(baseline.times) < min(contender.times) or max(contender.times) < min(baseline.times)):
        return None
    minutes = [_minutes(t) for t in (*baseline.times, *contender.times)]
    if any(m is None for m in minutes):  # starts that are not times: their order alone
        ordered = sorted(range(len(minutes)), key=lambda i: (*baseline.times, *contender.times)[i])
        minutes = [float(ordered.index(i)) for i in range(len(minutes))]
    first = min(minutes)
    at = [m - first for m in minutes]
    return at[: len(baseline.times)], at[len(baseline.times) :]


def _session_trend(baseline: Side, contender: Side) -> str | None:
    """Two blocks' races that rose or fell over the session in time order (Mann–Kendall), in words."""
    ordered = [v for _, v in sorted(zip((*baseline.times, *contender.times), (*baseline.values, *contender.values)))]
    found = ordering.mann_kendall(ordered)
    if found is None or found.p >= stats.ALPHA:
        return None
    way = "rose" if found.rising else "fell"
    return (
        f"over the session the races {way} to {found.last / found.first:.2f}× the first in time order (Mann–Kendall p={found.p:.3f}): "
        "a node warming up and a step between the blocks both look so"
    )


def _race_gap(order: tuple[list[float], list[float]]) -> float:
    """The median time between one race's start and the next within the sides (the unit a drift is said in)."""
    gaps = [b - a for side in order for a, b in zip(sorted(side), sorted(side)[1:]) if b > a]
    return statistics.median(gaps) if gaps else 1.0


def pooled_sigma(baseline: Side, contender: Side) -> tuple[float, int] | None:
    """σ of the log medians within the sides, pooled, and its degrees of freedom; None without a side of 2 races."""
    parts = [stats.logs(s.values) for s in (baseline, contender)]
    df = sum(len(p) - 1 for p in parts if len(p) > 1)
    if df < 1:
        return None
    ss = sum(sum((x - statistics.fmean(p)) ** 2 for x in p) for p in parts if len(p) > 1)
    return math.sqrt(ss / df), df


def judge(
    tasks: dict[str, tuple[Side, Side]],
    floors: dict[str, Floor | None] | None = None,
    names: tuple[str, str] = ("the baseline", "the contender"),
    primary: str | None = None,
) -> list[Verdict]:
    """A verdict per task of one comparison (``tasks``: task → (baseline, contender)); ``floors``: each task's noise
    floor where one was measured; ``primary``: a task named before the races (``ab`` plans its races for it), judged at
    the plain level, the others corrected among themselves."""
    floors = floors or {}
    prepared = [_prepare(task, base, cont, floors.get(task)) for task, (base, cont) in tasks.items()]
    _side_trends(prepared, names)
    rejected, levels, family = [None] * len(prepared), [None] * len(prepared), [""] * len(prepared)
    first = primary if primary in tasks else None
    for members in ([i for i, r in enumerate(prepared) if r["task"] == first], [i for i, r in enumerate(prepared) if r["task"] != first]):
        ps = [prepared[i]["p"] for i in members]
        m = sum(p is not None for p in ps)
        for i, hit, at in zip(members, stats.holm(ps), stats.holm_levels(ps)):
            rejected[i], levels[i], family[i] = hit, at, _family(prepared[i]["task"], first, m)
            prepared[i]["m"] = m
    for row, judged_at in zip(prepared, levels):
        _at_level(row, judged_at)
    return [
        replace(
            _verdict(row, rejected[i], floors.get(row["task"]), family[i], stats.holm_level(row["m"])),
            design="blocks" if row["blocks"] else "pairs" if "pairs" in row else "sides",
        )
        for i, row in enumerate(prepared)
    ]


def _prepare(task: str, base: Side, cont: Side, floor: Floor | None) -> dict:
    """One task's test before the correction across tasks: the step beyond drift for blocks raced one after the other,
    the paired test for pairs, Welch's for sides of enough races, else the prediction against a noise floor; its p
    (None: no test) and the notes on the race order."""
    change = stats.geometric_mean(cont.values) / stats.geometric_mean(base.values) - 1
    row = {"task": task, "base": base, "cont": cont, "change": change, "p": None, "notes": [], "floor": floor}
    n_a, n_b = len(base.values), len(cont.values)
    order = blocks(base, cont)
    row["blocks"] = bool(order)
    if order:
        fit = ordering.step_and_drift(base.values, cont.values, *order, confidence=1 - stats.ALPHA / 2)
        if fit is not None and min(n_a, n_b) >= MIN_RACES and fit.explained >= DRIFT_SHARE and fit.drift_p < DRIFT_SEEN:
            row["step"], row["gap"], row["order"] = fit, _race_gap(order), order
            row["p"] = min(1.0, 2 * fit.p)
        else:
            between = f" (σ between calibration sessions here: {floor.between:.1%})" if floor and floor.between else ""
            row["notes"].append(BLOCKS.format(between=between))
        session = _session_trend(base, cont)
        if session:
            row["notes"].append(session)
    pairs = None if order else matched(base, cont)
    if pairs is None and not order and (base.pairs or cont.pairs):
        row["notes"].append("the races are labelled with pairs, but not one race a side per pair: judged as sides, not as pairs")
    if "step" in row:
        pass
    elif pairs and len(pairs[0]) >= MIN_RACES:
        if pairs[2]:
            lost = f"pair{'s' if len(pairs[2]) > 1 else ''} {', '.join(pairs[2])}"
            row["notes"].append(f"{lost} lost a race (left out): not in the paired test")
        row["pairs"] = pairs[:2]
        row["welch"] = stats.paired(*pairs[:2])
        row["p"] = row["welch"].p if row["welch"] else None
    elif n_a >= MIN_RACES and n_b >= MIN_RACES:
        if pairs:
            row["notes"].append(f"only {len(pairs[0])} complete pairs: judged as sides, not as pairs")
        row["welch"] = stats.welch(base.values, cont.values)
        row["p"] = row["welch"].p if row["welch"] else None
    elif floor is not None:
        row["prediction"] = _predict(base, cont, floor)
        row["p"] = row["prediction"].p if row["prediction"] else None
    return row


def _family(task: str, primary: str | None, m: int) -> str:
    """The family a task's test was corrected in, in words (``m`` tests in it)."""
    if primary and task == primary:
        return "the primary task (named before the races), alone"
    if m > 1:
        return f"Holm over {m} {'other ' if primary else ''}tasks"
    return "the other task alone" if primary else "one task"


def _at_level(row: dict, level: float | None) -> None:
    """The row's interval at the level Holm judged it (``level``), so that it excludes no change exactly when the call
    is a change."""
    if level is None or level == stats.ALPHA:
        row["confidence"] = 1 - stats.ALPHA
        return
    row["confidence"] = 1 - level
    base, cont, floor = row["base"], row["cont"], row.get("floor")
    if "step" in row:
        row["step"] = ordering.step_and_drift(base.values, cont.values, *row["order"], confidence=1 - level / 2)
    elif row.get("welch") and "pairs" in row:
        row["welch"] = stats.paired(*row["pairs"], confidence=1 - level)
    elif row.get("welch"):
        row["welch"] = stats.welch(base.values, cont.values, confidence=1 - level)
    elif row.get("prediction"):
        row["prediction"] = _predict(base, cont, floor, 1 - level)


def _predict(base: Side, cont: Side, floor: Floor, confidence: float = 1 - stats.ALPHA) -> stats.Prediction | None:
    """Two sides judged against a noise floor: the differences of its races where kept, else its σ."""
    if floor.logs:
        return stats.against_pool(base.values, cont.values, floor.logs, confidence)
    return stats.against_floor(base.values, cont.values, floor.sigma, floor.df, confidence)


def _side_trends(rows: list[dict], names: tuple[str, str]) -> None:
    """Each side's trend in race order, Mann–Kendall, Holm across every side of the comparison; named where found."""
    tests = [
        (row, name, side, ordering.mann_kendall(list(side.values))) for row in rows for name, side in zip(names, (row["base"], row["cont"]))
    ]
    found = stats.holm([t.p if t else None for *_, t in tests])
    for (row, name, side, trend), hit in zip(tests, found):
        if hit:
            row["notes"].insert(0, side_trend(name, side, trend))


def _verdict(row: dict, rejected: bool | None, floor: Floor | None, family: str, level: float) -> Verdict:
    task, base, cont, change = row["task"], row["base"], row["cont"], row["change"]
    n_a, n_b = len(base.values), len(cont.values)
    trend = "; ".join(row["notes"]) or None
    confidence = row.get("confidence", 1 - stats.ALPHA)
    correction = f"{family}, its interval at the {confidence:.1%} Holm judged this task at" if row["m"] > 1 else family
    if "step" in row:
        fit = row["step"]
        per_race = math.expm1(math.log1p(fit.drift_per_race) * row["gap"])
        way = "rose" if per_race > 0 else "fell"
        drift = (
            f"the sides ran one after the other and the races {way} {abs(per_race):.1%} a race within them "
            f"(p={fit.drift_p:.3f}): that drift explains {fit.explained:.0%} of the sides' difference"
        )
        trend = "; ".join([*row["notes"], drift])
        basis = (
            f"{n_a} vs {n_b} races one after the other: the step beyond a linear drift in time "
            f"(log median = a + step + drift × time) is {fit.change:+.1%} ({1 - (1 - confidence) / 2:.1%} interval "
            f"{fit.low:+.1%} to {fit.high:+.1%}), p doubled for the two explanations, {family}"
        )
        if not rejected:
            trend += ", and no step beyond it is found; interleave the sides (`ingestlab ab`) to tell them apart"
            return Verdict(task, TREND, change, basis=basis, trend=trend)
        call = "faster" if fit.change > 0 else "slower"  # the row's change is the sides' ratio; the step is in its basis
        return Verdict(task, call, change, basis=basis, trend=trend)
    if "welch" in row:
        w = row["welch"]
        if w is None:
            return Verdict(task, NOT_ENOUGH, change, basis=f"{n_a} vs {n_b} races that measured the same figure: no spread", trend=trend)
        call = ("faster" if w.change > 0 else "slower") if rejected else "within noise"
        if "pairs" in row:  # a pair's σ of log ratios, as two sides' σ each (smallest_change and races_needed take sides)
            k = len(row["pairs"][0])
            sigma, n_a, n_b = w.se * math.sqrt(k / 2), k, k
            how = f"{k} pairs, each raced in a random order: a paired t test on each pair's log ratio, {correction}"
        else:
            sigma = w.se / math.sqrt(1 / n_a + 1 / n_b)
            how = f"{n_a} vs {n_b} races, Welch on log medians, {correction}"
        smallest = stats.smallest_change(sigma, n_a, n_b, df=w.df, alpha=level)
        needs = None if rejected else stats.races_needed(change, sigma, alpha=level, paired="pairs" in row)
        return Verdict(task, call, w.change, w.low, w.high, how, smallest, needs, trend)
    if floor is not None and row.get("prediction"):
        pred = row["prediction"]
        call = ("faster" if pred.change > 0 else "slower") if rejected else "within noise"
        smallest = stats.smallest_change(floor.sigma, n_a, n_b, df=floor.df, alpha=level)
        how = f", read from the differences of its {len(floor.logs)} races (no normal curve)" if floor.logs else ""
        basis = f"{n_a} vs {n_b} races against the noise floor σ {floor.sigma:.1%} of {floor.source}{how}, {correction}"
        needs = None if rejected else stats.races_needed(change, floor.sigma, alpha=level)
        return Verdict(task, call, pred.change, pred.low, pred.high, basis, smallest, needs, trend)
    pooled = pooled_sigma(base, cont)
    if pooled:
        needs = stats.races_needed(change, pooled[0], alpha=level)
        why = (
            f"{n_a} vs {n_b} races and no noise floor measured for this task here: the change seen would need "
            + (f"about {needs} races a side" if needs else "more races than are practical")
            + f" at the spread these races show (σ {pooled[0]:.1%})"
        )
        return Verdict(task, NOT_ENOUGH, change, basis=why, needs=needs, trend=trend)
    why = f"{n_a} vs {n_b} races and no noise floor measured for this task here: race {MIN_RACES} or more a side, or run "
    return Verdict(task, NOT_ENOUGH, change, basis=why + "`ingestlab calibrate` for this track", trend=trend)
