"""``ingestlab bench changepoints``: how often the nightly's change-point rule calls a change in a series with none, and
how soon it finds a real step, by simulation with this machine's noise: a calibration's own races, drawn again (their
skew and their slow races kept), or log-normal noise at a σ (a calibration's, or given). No-change series are
``nights`` nights of that noise; step series drop by ``step`` after ``nights`` nights and are judged ``after`` nights
later (found: a change point within two nights of the step, in its direction). Each rate carries its exact 95 %
interval."""
from __future__ import annotations

import math
import random
import statistics
import time

from ingestlab import ledger, machine
from ingestlab.nightly import changepoints
from ingestlab.verdicts.stats import clopper_pearson


def simulate(sigma: float, series: int = 300, nights: int = 30, step: float = 0.10, after: int = 3, seed: int = 1,
             log=print, repeat: int = 1, races: tuple = ()) -> dict:
    """``repeat``: races a night, the night's figure their median (as ``nightly --repeat`` takes it). ``races``: log
    race medians of identical races (a calibration's); each simulated race is one of them drawn at random, centred on
    their mean, instead of a normal draw at ``sigma``."""
    rng = random.Random(seed)
    centre = statistics.fmean(races) if races else 0.0

    def one() -> float:
        return races[rng.randrange(len(races))] - centre if races else rng.gauss(0, sigma)

    def night(level: float) -> float:
        return level * statistics.median(math.exp(one()) for _ in range(repeat))

    def noise(n: int, level: float = 1000.0) -> list[float]:
        return [night(level) for _ in range(n)]

    flat = {f"flat-{i}": noise(nights) for i in range(series)}
    stepped = {f"step-{i}": noise(nights) + noise(after, 1000.0 * (1 - step)) for i in range(series)}
    started = time.monotonic()
    found = changepoints.detect({**flat, **stepped}, log=log)
    false = sum(1 for k in flat if found.get(k))
    hits = sum(1 for k in stepped if any(abs(cp.index - nights) <= 2 and cp.change < 0 for cp in found.get(k, [])))
    return {"sigma": sigma, "series": series, "nights": nights, "step": step, "after": after, "seed": seed, "repeat": repeat,
            "drawn_from": len(races),
            "false_alarms": [false, series], "found": [hits, series], "seconds": time.monotonic() - started,
            "rule": {"max_pvalue": changepoints.MAX_PVALUE, "permutations": changepoints.PERMUTATIONS,
                     "min_magnitude": changepoints.MIN_MAGNITUDE, "min_segment": changepoints.MIN_SEGMENT}}


def markdown(data: dict) -> str:
    lines = [f"## The nightly's change points, simulated (σ {data['sigma']:.1%} of log medians)", "",
             f"{data['series']} series of {data['nights']} nights with no change (a night: the median of {data.get('repeat', 1)} race(s), "
             + (f"each drawn from {data['drawn_from']} real races" if data.get("drawn_from") else "each a normal draw at σ") + "), and "
             f"{data['series']} with a {data['step']:.0%} drop after "
             f"{data['nights']} nights judged {data['after']} nights later; rule: " + ", ".join(f"{k} {v}" for k, v in data["rule"].items()) + ".", "",
             "| | count | rate | 95 % interval |", "|---|---:|---:|---:|"]
    for key, label in (("false_alarms", f"series with a false change point ({data['nights']} nights)"),
                       ("found", f"{data['step']:.0%} steps found within {data['after']} nights")):
        k, n = data[key]
        low, high = clopper_pearson(k, n)
        lines.append(f"| {label} | {k}/{n} | {k / n:.1%} | {low:.1%}–{high:.1%} |")
    lines += ["", f"- {machine.one_line()}; {data['seconds']:,.0f} s."]
    return "\n".join(lines) + "\n"


def to_ledger(data: dict, command: str, source: str = "") -> None:
    figures = {}
    for key in ("false_alarms", "found"):
        k, n = data[key]
        low, high = clopper_pearson(k, n)
        figures[key] = ledger.Figure(round(100 * k / n, 2), "%", f"{key.replace('_', ' ')}: {k}/{n}")
        figures[f"{key}-count"] = ledger.Figure(k, "series", f"{key.replace('_', ' ')}: series called")
        figures[f"{key}-of"] = ledger.Figure(n, "series", f"{key.replace('_', ' ')}: series simulated")
        figures[f"{key}-low"] = ledger.Figure(round(100 * low, 2), "%", f"{key.replace('_', ' ')}: exact 95 % interval, low")
        figures[f"{key}-high"] = ledger.Figure(round(100 * high, 2), "%", f"{key.replace('_', ' ')}: exact 95 % interval, high")
    ledger.record(time.strftime("%Y-%m-%dT%H%M%S") + "-changepoints", "bench changepoints", command, figures,
                  conditions=f"σ {data['sigma']:.3f} of a race, a night the median of {data.get('repeat', 1)} race(s)"
                             + (f" each drawn from the {data['drawn_from']} races of {source} (their skew kept)" if data.get("drawn_from") else
                                " each a normal draw at σ") + f", {data['series']} series a kind, "
                             f"{data['nights']} nights, a {data['step']:.0%} step judged "
                             f"{data['after']} nights after; " + ", ".join(f"{k} {v}" for k, v in data["rule"].items()))
