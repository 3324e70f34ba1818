"""The nightly's change-point and drop rules simulated (``python -m devtools.bench changepoints``): a night's figure as
the median of its races, drawn from a calibration's races, from sessions or from pairs beside a reference, and today's
rules kept in the results."""

import pytest

from devtools.bench import simulate
from ingestlab import nightly
from ingestlab.nightly import measured


def test_the_simulation_keeps_todays_rules_in_its_results(monkeypatch):
    monkeypatch.setattr(simulate.changepoints, "detect", lambda series, log: {})
    data = simulate.simulate(0.05, series=10, nights=6, after=3, log=lambda *_: None)
    assert data["rule"] == measured.rules()["rule"] and data["drop_rule"] == measured.rules()["drop_rule"]
    assert data["rule"]["judged"] == "every night"


def test_every_series_is_judged_on_every_night_in_turn_and_a_change_point_counted_once(monkeypatch):
    """As the nightly judges: each night over the nights so far; a change point that moves a night as the history grows
    is the one already recorded (the history's own de-duplication), one two nights apart in the other direction is new."""
    from ingestlab.nightly.changepoints import ChangePoint

    asked = {}

    def detect(series, log):
        asked.update(series)
        out = {}
        for key, values in series.items():
            n = len(values)
            if key.startswith("a@") and n >= 8:  # seen from night 8 on, moving from index 5 to 6 at night 10
                out[key] = [ChangePoint(5 if n < 10 else 6, 0.001, -0.2, 1.0, 0.8, 5, n - 5)]
            if key.startswith("a@") and n >= 12:  # a second one, rising: new
                out[key].append(ChangePoint(9, 0.001, 0.3, 0.8, 1.04, 4, n - 9))
        return out

    monkeypatch.setattr(simulate.changepoints, "detect", detect)
    new = simulate.every_night({"a": [1.0] * 12, "b": [1.0] * 12})
    assert sorted(k for k in asked if k.startswith("a@")) == sorted(f"a@{n}" for n in range(6, 13))  # nights 6 to 12
    assert new == {"a": [(8, 5, -0.2), (12, 9, 0.3)], "b": []}


def test_a_reports_rate_counts_a_night_on_which_any_of_its_series_raised_a_new_false_alert(monkeypatch):
    monkeypatch.setattr(
        simulate, "every_night", lambda series, log: {k: ([(7, 3, -0.1)] if k in ("flat-0", "flat-1") else []) for k in series}
    )
    monkeypatch.setattr(simulate, "drop_rates", lambda *a: ([0, 1], [0, 1]))
    data = simulate.simulate(0.05, series=12, nights=8, after=3, log=lambda *_: None, per_report=6)
    assert data["false_alarms"] == [2, 12] and data["false_per_night"] == [2, 12 * 3]
    assert data["report_false_per_night"] == [1, 2 * 3] and data["report_false"] == [1, 2]  # flat-0 and flat-1: one report, one night


@pytest.mark.slow
def test_the_change_point_simulation_takes_a_nights_median_of_its_races():
    """`bench changepoints --repeat N`: a night is the median of N races, as `nightly --repeat` makes it, so its noise
    is narrower than one race's; the data and the ledger conditions say how many races a night."""
    import math
    import statistics

    one = simulate.simulate(0.10, series=3, nights=8, step=0.10, after=3, log=lambda *_: None)
    nine = simulate.simulate(0.10, series=3, nights=8, step=0.10, after=3, log=lambda *_: None, repeat=9)
    assert one["repeat"] == 1 and nine["repeat"] == 9 and "median of 9 race(s)" in simulate.markdown(nine)
    import random

    rng = random.Random(3)
    spread = statistics.stdev(math.log(statistics.median(math.exp(rng.gauss(0, 0.10)) for _ in range(9))) for _ in range(2000))
    assert spread < 0.06  # about 0.10 × 1.25 / 3


@pytest.mark.slow
def test_the_change_point_simulation_draws_a_calibrations_own_races_when_given_them():
    """A calibration's races, drawn again, keep their skew (a slow race now and then); the data, the report and the
    ledger conditions say the nights were drawn from real races."""
    import math

    races = tuple(math.log(v) for v in [100.0] * 18 + [70.0, 72.0])
    data = simulate.simulate(0.1, series=3, nights=8, step=0.10, after=3, log=lambda *_: None, races=races)
    assert data["drawn_from"] == 20 and "each drawn from 20 real races" in simulate.markdown(data)
    assert simulate.simulate(0.1, series=3, nights=8, log=lambda *_: None)["drawn_from"] == 0


@pytest.mark.slow
def test_a_simulated_night_of_sessions_keeps_its_sessions_shift_however_many_races_it_takes():
    """`bench changepoints --sessions`: each night is one calibration session, its races drawn from that session alone,
    so the median of many races a night still carries the session's shift; the data and the report name the sessions and both σ."""
    import math
    import random

    sessions = (tuple([math.log(100.0)] * 40), tuple([math.log(80.0)] * 40))
    night = simulate.night_of(random.Random(1), 0.1, 36, sessions=sessions)
    centre = math.exp((math.log(100.0) + math.log(80.0)) / 2)
    seen = {round(night(1000.0), 6) for _ in range(50)}
    assert seen == {round(1000 * 100 / centre, 6), round(1000 * 80 / centre, 6)}
    data = simulate.simulate(0.1, series=3, nights=8, log=lambda *_: None, sessions=sessions)
    assert data["sessions"] == 2 and data["drawn_from"] == 80
    assert abs(data["between"] - abs(math.log(100 / 80)) / math.sqrt(2)) < 1e-12 and data["within"] == 0
    assert "each night one of 2 sessions (calibration sessions) drawn at random" in simulate.markdown(data)


@pytest.mark.slow
def test_a_simulated_night_beside_a_reference_cancels_the_shift_both_sides_share():
    """`bench changepoints --ab`: each night one ab session, its pairs drawn from it alone, the night's figure the
    contender's median over the baseline's; a shift the two sides share (here 25 %) is gone from the night's figure,
    and the data names both σ (of the ratio, and of one side's level)."""
    import math
    import random

    pairs = (tuple((math.log(100.0), math.log(101.0)) for _ in range(20)), tuple((math.log(80.0), math.log(80.8)) for _ in range(20)))
    night = simulate.paired_night_of(random.Random(1), 5, pairs)
    assert {round(night(1000.0), 6) for _ in range(50)} == {1000.0}
    data = simulate.simulate(0.1, series=3, nights=8, log=lambda *_: None, pairs=pairs)
    assert data["paired"] and data["sessions"] == 2 and data["drawn_from"] == 40
    assert data["between"] < 1e-12 and abs(data["between_one"] - math.log(100 / 80) / math.sqrt(2)) < 1e-12
    assert "a setup and a reference raced in pairs" in simulate.markdown(data)


def test_the_drop_rule_simulated_keeps_its_level_on_flat_nights_and_finds_a_step_far_above_the_noise():
    import random

    rng = random.Random(3)
    flat = [[1000 * rng.lognormvariate(0, 0.05) for _ in range(30)] for _ in range(100)]
    stepped = [[1000 * rng.lognormvariate(0, 0.01) for _ in range(30)] + [800.0] for _ in range(50)]
    false, found = simulate.drop_rates(flat, stepped, 30)
    assert false[1] == 100 * (30 - nightly.NIGHTS_NEEDED) and false[0] / false[1] <= nightly.DROP_LEVEL
    assert found == [50, 50]


def test_a_simulation_drawn_from_real_nights_records_how_many_and_on_how_many_days(tmp_path, monkeypatch):
    """The page that quotes the rates cites what they rest on from the same run, not a count typed beside it."""
    import json

    from devtools import ledger

    monkeypatch.setattr(ledger, "target", lambda: tmp_path)
    monkeypatch.setattr(simulate, "every_night", lambda series, log: {k: [] for k in series})
    monkeypatch.setattr(simulate, "drop_rates", lambda *a: ([0, 1], [0, 1]))
    data = simulate.simulate(0.05, series=10, nights=6, after=3, log=lambda *_: None)
    nights = ("2026-12-02T101128", "2026-12-02T110659", "2026-12-04T161926", "2026-12-02T101128")  # one named twice
    simulate.to_ledger(data, "python -m devtools.bench changepoints", "nights", nights)
    got = json.loads(next(tmp_path.glob("*.json")).read_text())["figures"]
    assert got["nights-drawn"]["value"] == 3 and got["days-drawn"]["value"] == 2
