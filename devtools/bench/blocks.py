"""``python -m devtools.bench blocks``: how `compare` judges the usual workflow (N races of a baseline, then N of a
contender, one block after the other), simulated with made-up races: each race's median log-normal with ``sigma``, a
step between the blocks, a linear drift across the session, or neither. Each case is judged by `compare` itself (the
same code a user's races go through) and the share called a change is written with its exact interval, into the
ledger as "simulated from made-up races", never as a property of real ones."""

from __future__ import annotations

import math
import random
import time

from devtools import ledger
from ingestlab import compare
from ingestlab.verdicts import stats

CASES = (  # (name, races a side, step, drift across the session)
    ("step10-5", 5, 0.10, 0.0),
    ("step10-10", 10, 0.10, 0.0),
    ("aa-5", 5, 0.0, 0.0),
    ("aa-10", 10, 0.0, 0.0),
    ("drift10-5", 5, 0.0, 0.10),
    ("drift40-5", 5, 0.0, 0.40),
    ("drift10-10", 10, 0.0, 0.10),
    ("drift40-10", 10, 0.0, 0.40),
)


def session(rng: random.Random, n: int, step: float, drift: float, sigma: float) -> tuple[compare.Aggregate, compare.Aggregate]:
    races = 2 * n
    medians = [
        10_000 * math.exp(rng.gauss(0, sigma) + (math.log1p(step) if i >= n else 0.0) + math.log1p(drift) * i / (races - 1))
        for i in range(races)
    ]
    times = [f"20261202T{i // 60:02d}{i % 60:02d}00Z" for i in range(races)]
    return compare.Aggregate.of(medians[:n], times=times[:n]), compare.Aggregate.of(medians[n:], times=times[n:])


def simulate(comparisons: int = 1000, sigma: float = 0.03, seed: int = 0) -> dict:
    """Each case's share of comparisons called a change (faster or slower), with its exact interval."""
    out = {}
    for name, n, step, drift in CASES:
        rng = random.Random(f"{seed}-{name}")
        called = sum(
            compare.difference("t", *session(rng, n, step, drift, sigma)).verdict in ("faster", "slower") for _ in range(comparisons)
        )
        low, high = stats.clopper_pearson(called, comparisons)
        out[name] = {"races": n, "step": step, "drift": drift, "called": called, "of": comparisons, "low": low, "high": high}
    return out


LABELS = {
    "step": "a {step:.0%} step between the blocks, {races} races a side: called",
    "aa": "identical blocks, {races} races a side: called different",
    "drift": "a {drift:.0%} drift across the session and no step, {races} races a side: called a change",
}


def to_ledger(data: dict, sigma: float, command: str) -> None:
    figures = {}
    for name, r in data.items():
        label = LABELS[name.rstrip("-0123456789").rstrip("0123456789")].format(**r)
        figures[name] = ledger.Figure(round(100 * r["called"] / r["of"], 1), "%", f"{label} {r['called']}/{r['of']}")
        figures[f"{name}-low"] = ledger.Figure(round(100 * r["low"], 1), "%", "its exact 95 % interval, low")
        figures[f"{name}-high"] = ledger.Figure(round(100 * r["high"], 1), "%", "its exact 95 % interval, high")
    ledger.record(
        time.strftime("%Y-%m-%dT%H%M%S") + "-blocks",
        "compare blocks simulated",
        command,
        figures,
        conditions=f"simulated from made-up races: log-normal race medians, σ {sigma:.0%}, each comparison judged by compare "
        "(the step-and-drift rule for sides raced one after the other); not a measurement of real races",
    )


def markdown(data: dict, sigma: float) -> str:
    lines = [
        f"Simulated from made-up races (σ {sigma:.0%}), each judged by `compare`:",
        "",
        "| case | called | exact 95 % interval |",
        "|---|---:|---:|",
    ]
    for name, r in data.items():
        label = LABELS[name.rstrip("-0123456789").rstrip("0123456789")].format(**r)
        lines.append(f"| {label} | {r['called']}/{r['of']} ({r['called'] / r['of']:.1%}) | {r['low']:.1%}–{r['high']:.1%} |")
    return "\n".join(lines)
