"""The calibration's and the nightly rule's tables, rendered from their ledger entries as the runs record them."""

import math
import random

from devtools import ledger
from devtools.docs import figures, rates
from devtools.ledger import runs
from ingestlab.verdicts import calibration

MACHINE = {"cpu": "AMD EPYC", "cores": 2, "memory_gib": 23.5}


def _entry(run, kind, found):
    return ledger.Entry(
        run=run,
        kind=kind,
        date="2026-11-27T05:43:49Z",
        commit="abc1234",
        machine=MACHINE,
        command=f"ingestlab {kind}",
        figures=found,
        conditions="as run",
    )


def test_a_calibration_renders_each_rate_with_its_count_and_exact_interval(monkeypatch):
    rng = random.Random(3)
    medians = [15000 * math.exp(rng.gauss(0, 0.08)) for _ in range(120)]
    spread = calibration.sigma(medians)
    data = {
        "task": "index-append",
        "tasks": {"index-append": {"sigma": spread}},
        "medians": medians,
        "rates": calibration.rates(medians),
        "races_a_side": calibration.races_a_side(spread, 120),
    }
    entry = _entry("2026-11-27T054349", "calibrate", runs.calibration_figures(data))
    monkeypatch.setattr(figures, "_entries", lambda: {entry.run: entry})
    table = rates.calibration({"run": entry.run})
    k, n = data["rates"]["1"]["false_alarms"]
    assert n == 60 and f"| 1 | 60 | {k}/60 (" in table and "| 3 | 20 | " in table
    assert "–" in table.splitlines()[2] and "run 2026-11-27T054349 (2026-11-27, commit abc1234, AMD EPYC, 2 cores, 23.5 GiB)" in table
    assert "| 10 % | " in table and "σ of log race medians 8." in table


def test_a_rate_the_run_did_not_measure_reads_missing_not_zero(monkeypatch):
    entry = _entry(
        "S",
        "calibrate",
        {
            "sigma": ledger.Figure(3.0, "%"),
            "1-false_alarms": ledger.Figure(None, "%"),
            "1-false_alarms-count": ledger.Figure(0, "comparisons"),
            "1-false_alarms-of": ledger.Figure(0, "comparisons"),
            "1-false_alarms-low": ledger.Figure(None, "%"),
            "1-false_alarms-high": ledger.Figure(None, "%"),
        },
    )
    monkeypatch.setattr(figures, "_entries", lambda: {"S": entry})
    row = next(line for line in rates.calibration({"run": "S"}).splitlines() if line.startswith("| 1 |"))
    assert row == "| 1 | 0 | — | — | — |"


def test_the_change_point_rates_render_with_their_intervals(monkeypatch):
    found = {
        "false_alarms": ledger.Figure(0.0, "%", "false alarms: 0/300"),
        "false_alarms-low": ledger.Figure(0.0, "%"),
        "false_alarms-high": ledger.Figure(1.22, "%"),
        "false_alarms-count": ledger.Figure(0, "series"),
        "false_alarms-of": ledger.Figure(300, "series"),
        "found": ledger.Figure(95.0, "%", "found: 285/300"),
        "found-low": ledger.Figure(91.9, "%"),
        "found-high": ledger.Figure(97.2, "%"),
        "found-count": ledger.Figure(285, "series"),
        "found-of": ledger.Figure(300, "series"),
    }
    entry = _entry("C", "bench changepoints", found)
    monkeypatch.setattr(figures, "_entries", lambda: {"C": entry})
    table = rates.changepoints({"run": "C"})
    assert "| series with a false change point | 0/300 | 0.0 % | 0.0–1.2 % |" in table
    assert "| steps found in time | 285/300 | 95.0 % | 91.9–97.2 % |" in table


def test_a_dose_calibration_renders_each_quota_and_its_change_beside_the_rates(monkeypatch):
    from devtools.bench import dose

    rng = random.Random(5)
    values = {
        "1": [40000 * math.exp(rng.gauss(0, 0.05)) for _ in range(60)],
        "0.8": [34000 * math.exp(rng.gauss(0, 0.05)) for _ in range(60)],
    }
    spread = calibration.sigma(values["1"])
    data = {
        "task": "bulk-1000",
        "tasks": {"bulk-1000": {"sigma": spread}},
        "medians": values["1"],
        "rates": calibration.rates(values["1"]),
        "races_a_side": calibration.races_a_side(spread, 60),
        "dose": {"doses": ["1", "0.8"], "cpu": {"1": {"throttled": None}, "0.8": {"throttled": 0.5}}, **dose.dose_response(values)},
    }
    entry = _entry("D", "calibrate", dose._figures(data))
    monkeypatch.setattr(figures, "_entries", lambda: {"D": entry})
    table = rates.calibration({"run": "D"})
    assert "| 1 | 60 | " in table and "| — | — |" in table  # the whole core: not throttled, no change against itself
    row = next(line for line in table.splitlines() if line.startswith("| 0.8 | 60 | "))
    assert "| 50 % | -1" in row and " to -1" in row
    one = next(line for line in table.splitlines() if line.startswith("| 1 | ") and "·" in line)
    assert one.count("/30 (") == 2 and "/60 (" in one.split("·")[1]
