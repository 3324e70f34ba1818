"""``python -m devtools.bench changepoints``: how often the nightly's change-point rule calls a change in a series with none, and
how soon it finds a real step, by simulation with this machine's noise; and the same of its drop rule, night by night
(how often one task's figure is called a regression on a night with no change, and how often the step's first night
is). The noise: a calibration's own races, drawn again (their skew and their slow races kept), or log-normal noise at
a σ (a calibration's, or given). No-change series are ``nights`` nights of that noise; step series drop by ``step``
after ``nights`` nights (found: a change point within two nights of the step, in its direction, by ``after`` nights
after it). Each rate carries its exact 95 % interval.

Every series is judged as the nightly judges it: on every night in turn from the first night the rule can judge, over
the nights so far, each change point recorded by the history's own de-duplication (``history.record_change_points``: one
within two nights of a known one, in its direction, is that one) and counted where it is new. So the false rate is of
series that ever raise a false alert over their nights, beside the rate per night judged, and the rate of a night's
report of ``per_report`` series (they share one exit code) that raises one."""

from __future__ import annotations

import math
import random
import statistics
import time
from pathlib import Path

from devtools import ledger
from ingestlab import machine
from ingestlab.nightly import changepoints, history, measured
from ingestlab.verdicts import stats
from ingestlab.verdicts.stats import clopper_pearson


def simulate(
    sigma: float,
    series: int = 300,
    nights: int = 30,
    step: float = 0.10,
    after: int = 3,
    seed: int = 1,
    log=print,
    repeat: int = 1,
    races: tuple = (),
    sessions: tuple = (),
    pairs: tuple = (),
    per_report: int = 6,
) -> dict:
    """``repeat``: races a night, the night's figure their median (as ``nightly --repeat`` takes it). ``races``: log
    race medians of identical races (a calibration's); each simulated race is one of them drawn at random, centred on
    their mean, instead of a normal draw at ``sigma``. ``sessions``: the log race medians of several calibration
    sessions, one tuple each; each night is then one session drawn at random and its races are drawn from that
    session alone, centred on the mean of the sessions' means, so a night keeps its session's shift (see
    :func:`session_sigmas`) and the median of many races a night does not average it away. ``pairs``: sessions of
    pairs raced beside each other (an ``ab`` session's, one tuple of (log baseline, log contender) pairs each); each
    night is one of them drawn at random, ``repeat`` of its pairs drawn, and the night's figure is the contender's median
    over the baseline's (as ``nightly --reference`` takes it), centred on the sessions' mean log ratio."""
    rng = random.Random(seed)
    night = paired_night_of(rng, repeat, pairs) if pairs else night_of(rng, sigma, repeat, races, sessions)

    def noise(n: int, level: float = 1000.0) -> list[float]:
        return [night(level) for _ in range(n)]

    flat = {f"flat-{i}": noise(nights) for i in range(series)}
    stepped = {f"step-{i}": noise(nights) + noise(after, 1000.0 * (1 - step)) for i in range(series)}
    started = time.monotonic()
    new = every_night({**flat, **stepped}, log=log)
    first = changepoints.MIN_POINTS  # the first night the rule can judge
    false = sum(1 for k in flat if new[k])
    hits = sum(1 for k in stepped if any(abs(index - nights) <= 2 and change < 0 for _, index, change in new[k]))
    judged_nights = nights - first + 1
    reports = [list(flat)[i : i + per_report] for i in range(0, series - per_report + 1, per_report)]
    alerts = [{n for k in report for n, _, _ in new[k]} for report in reports]  # the nights a report raised a false alert
    drop_false, drop_found = drop_rates(list(flat.values()), list(stepped.values()), nights)
    return {
        "sigma": sigma,
        "series": series,
        "nights": nights,
        "step": step,
        "after": after,
        "seed": seed,
        "repeat": repeat,
        "drawn_from": sum(len(x) for x in sessions or pairs) if sessions or pairs else len(races),
        "sessions": len(sessions or pairs),
        "paired": bool(pairs),
        **(session_sigmas(sessions) if sessions else pair_sigmas(pairs) if pairs else {}),
        "judged": "every night",
        "per_report": per_report,
        "false_alarms": [false, series],
        "false_per_night": [sum(len(new[k]) for k in flat), series * judged_nights],
        "report_false_per_night": [sum(len(a) for a in alerts), len(reports) * judged_nights],
        "report_false": [sum(1 for a in alerts if a), len(reports)],
        "found": [hits, series],
        "seconds": time.monotonic() - started,
        "drop_false_alarms": drop_false,
        "drop_found": drop_found,
        **measured.rules(),
    }


def every_night(series: dict[str, list[float]], log=print) -> dict[str, list[tuple[int, int, float]]]:
    """Each series judged on every night in turn, over its nights so far, as the nightly judges it: key → the change
    points new on some night, as (nights judged, index of the new level, change), by the history's own de-duplication."""
    first = changepoints.MIN_POINTS
    found = changepoints.detect(
        {f"{key}@{n}": values[:n] for key, values in series.items() for n in range(first, len(values) + 1)}, log=log
    )
    db = history.open_history(Path(":memory:"))
    out = {}
    for key, values in series.items():
        nights = [f"n{i:03d}" for i in range(len(values))]
        out[key] = []
        for n in range(first, len(values) + 1):
            rows = [(nights[cp.index], cp.change, cp.pvalue) for cp in found.get(f"{key}@{n}", [])]
            for night, change, _ in history.record_change_points(db, "sim", key, "task", rows, nights[n - 1], nights[:n]):
                out[key].append((n, nights.index(night), change))
    db.close()
    return out


def night_of(rng: random.Random, sigma: float, repeat: int, races: tuple = (), sessions: tuple = ()):
    """A function of a level that gives one simulated night's figure at it (see :func:`simulate`)."""
    if sessions:
        centre = statistics.fmean(statistics.fmean(s) for s in sessions)
    else:
        centre = statistics.fmean(races) if races else 0.0

    def one(pool) -> float:
        return pool[rng.randrange(len(pool))] - centre if pool else rng.gauss(0, sigma)

    def night(level: float) -> float:
        pool = sessions[rng.randrange(len(sessions))] if sessions else races
        return level * statistics.median(math.exp(one(pool)) for _ in range(repeat))

    return night


def paired_night_of(rng: random.Random, repeat: int, pairs: tuple):
    """A function of a level that gives one simulated night's figure at it, a reference raced beside the setup (see
    :func:`simulate`)."""
    centre = statistics.fmean(statistics.fmean(c - b for b, c in s) for s in pairs)

    def night(level: float) -> float:
        session = pairs[rng.randrange(len(pairs))]
        drawn = [session[rng.randrange(len(session))] for _ in range(repeat)]
        return (
            level * statistics.median(math.exp(c) for _, c in drawn) / statistics.median(math.exp(b) for b, _ in drawn) / math.exp(centre)
        )

    return night


def pair_sigmas(pairs: tuple) -> dict:
    """:func:`session_sigmas` of the log ratios of paired sessions (between: σ of the sessions' mean log ratios), and the
    same of the baseline's races alone (``between_one``: how far one side's level moves from session to session)."""
    out = session_sigmas(tuple(tuple(c - b for b, c in s) for s in pairs))
    out["between_one"] = session_sigmas(tuple(tuple(b for b, _ in s) for s in pairs))["between"]
    return out


def session_sigmas(sessions: tuple) -> dict:
    """σ of the sessions' mean log race medians around their mean (between sessions) and the mean of their own σ (within
    one): a night's median of n races scatters about √(between² + within²/n), never below ``between``."""
    means = [statistics.fmean(s) for s in sessions]
    return {
        "between": statistics.stdev(means) if len(means) > 1 else None,
        "within": statistics.fmean(statistics.stdev(s) for s in sessions if len(s) > 1),
    }


def drop_rates(flat: list[list[float]], stepped: list[list[float]], nights: int) -> tuple[list[int], list[int]]:
    """The drop rule on simulated series: [called, judged] over every night of ``flat`` with at least
    ``NIGHTS_NEEDED`` nights before it (each against the nights before it, at most ``NIGHTS_COMPARED``, as the nightly
    keeps them), and over the first stepped night (index ``nights``) of each of ``stepped``."""
    false, found = [0, 0], [0, 0]
    for values in flat:
        for i in range(history.NIGHTS_NEEDED, len(values)):
            called = _drop(values[i], values[max(0, i - history.NIGHTS_COMPARED) : i])
            if called is not None:
                false[0] += called
                false[1] += 1
    for values in stepped:
        called = _drop(values[nights], values[max(0, nights - history.NIGHTS_COMPARED) : nights])
        if called is not None:
            found[0] += called
            found[1] += 1
    return false, found


def _drop(tonight: float, past: list[float]) -> bool | None:
    """The nightly's drop rule for one task (Holm over one test is the test itself); None where it judges nothing."""
    test = stats.below_history(tonight, past, history.DROP_LEVEL)
    return None if test is None else history.called_drops([(test.change, test.p)])[0]


ROWS = (
    ("false_alarms", "series with a false change point on any night (judged every night, {nights} nights)"),
    ("false_per_night", "nights judged that raised a new false change point (one series)"),
    ("report_false_per_night", "nights a report of {per_report} series raised a new false change point"),
    ("report_false", "reports of {per_report} series with a false change point on any night ({nights} nights)"),
    ("found", "{step:.0%} steps found within {after} nights"),
    ("drop_false_alarms", "drop rule: nights with no change called a regression (one task)"),
    ("drop_found", "drop rule: the {step:.0%} step's first night called a regression"),
)


def markdown(data: dict, source: str = "") -> str:
    lines = [
        f"## The nightly's change points, simulated (σ {data['sigma']:.1%} of "
        + ("a pair's log ratio" if data.get("paired") else "log medians")
        + ")",
        "",
        f"{data['series']} series of {data['nights']} nights with no change (a night: the median of {data.get('repeat', 1)} race(s), "
        + _drawn(data, source)
        + "), and "
        f"{data['series']} with a {data['step']:.0%} drop after "
        f"{data['nights']} nights and {data['after']} more, every series judged on every night in turn as the nightly judges it; rule: "
        + ", ".join(f"{k} {v}" for k, v in data["rule"].items())
        + ".",
        "",
        "| | count | rate | 95 % interval |",
        "|---|---:|---:|---:|",
    ]
    for key, label in ROWS:
        if key not in data or not data[key][1]:
            continue
        k, n = data[key]
        label = label.format(**data)
        low, high = clopper_pearson(k, n)
        lines.append(f"| {label} | {k}/{n} | {k / n:.1%} | {low:.1%}–{high:.1%} |")
    lines += ["", f"- {machine.one_line()}; {data['seconds']:,.0f} s."]
    return "\n".join(lines) + "\n"


def _drawn(data: dict, source: str = "") -> str:
    if data.get("paired"):
        return (
            f"each night one of {data['sessions']} sessions of a setup and a reference raced in pairs"
            f"{' (' + source + ')' if source else ''}, "
            f"drawn at random, its pairs drawn from that session's alone and the night's figure the setup's median over the reference's "
            f"({data['drawn_from']} pairs in all; σ of the log ratio between sessions {data['between']:.1%}, of one pair within one "
            f"{data['within']:.1%}; of one side's level between sessions {data['between_one']:.1%})"
        )
    if data.get("sessions"):
        return (
            f"each night one of {data['sessions']} sessions ({source or 'calibration sessions'}) drawn at random and its "
            f"races drawn from that session's alone ({data['drawn_from']} races in all; σ between sessions "
            f"{data['between']:.1%}, within one {data['within']:.1%})"
        )
    if data.get("drawn_from"):
        return (
            f"each drawn from the {data['drawn_from']} races of {source} (their skew kept)"
            if source
            else f"each drawn from {data['drawn_from']} real races"
        )
    return "each a normal draw at σ"


def to_ledger(data: dict, command: str, source: str = "", nights: tuple[str, ...] = ()) -> str:
    """Write the run's rates into the ledger; its run id. ``nights``: the real nights drawn from (named by their start),
    counted with the days they ran on, so that a page citing the rates cites what they rest on from the same run."""
    figures = {}
    if nights:
        nights = tuple(dict.fromkeys(nights))
        figures["nights-drawn"] = ledger.Figure(len(nights), "real nights", "real nights drawn from")
        figures["days-drawn"] = ledger.Figure(len(measured.days_of(nights)), "days", "days those nights ran on")
    for key in (key for key, _ in ROWS if data.get(key) and data[key][1]):
        k, n = data[key]
        low, high = clopper_pearson(k, n)
        figures[key] = ledger.Figure(round(100 * k / n, 2), "%", f"{key.replace('_', ' ')}: {k}/{n}")
        unit = "nights" if key.startswith("drop") or key.endswith("per_night") else "reports" if key == "report_false" else "series"
        figures[f"{key}-count"] = ledger.Figure(k, unit, f"{key.replace('_', ' ')}: {unit} called")
        figures[f"{key}-of"] = ledger.Figure(n, unit, f"{key.replace('_', ' ')}: {unit} judged")
        figures[f"{key}-low"] = ledger.Figure(round(100 * low, 2), "%", f"{key.replace('_', ' ')}: exact 95 % interval, low")
        figures[f"{key}-high"] = ledger.Figure(round(100 * high, 2), "%", f"{key.replace('_', ' ')}: exact 95 % interval, high")
    what = "of the log ratio" if data.get("paired") else "of log race medians"
    for key, label in (
        ("between", f"σ {what} between sessions"),
        ("within", f"σ {what} within one session"),
        ("between_one", "σ of one side's log race medians between sessions"),
    ):
        if data.get(key) is not None:
            figures[f"sigma-{key.replace('_', '-')}"] = ledger.Figure(round(100 * data[key], 2), "%", label)
    run = time.strftime("%Y-%m-%dT%H%M%S") + "-changepoints"
    ledger.record(
        run,
        "bench changepoints",
        command,
        figures,
        conditions=f"σ {data['sigma']:.3f} of a race, a night the median of {data.get('repeat', 1)} race(s) "
        + _drawn(data, source)
        + f", {data['series']} series a kind, "
        f"{data['nights']} nights, a {data['step']:.0%} step after them and {data['after']} nights more, every series judged on "
        f"every night in turn (the history's de-duplication), a report {data['per_report']} series; "
        + ", ".join(f"{k} {v}" for k, v in data["rule"].items())
        + "; drop rule: "
        + ", ".join(f"{k} {v}" for k, v in data["drop_rule"].items()),
    )
    return run
