"""Aggregating repeated races, noise margins and verdicts, on real race.json fixtures."""
import copy
import json
from pathlib import Path

import pytest

from ingestlab import compare
from ingestlab.rally.results import SAMPLES_KEY



FIXTURE = Path(__file__).parents[2] / "fixtures" / "posts-test-mode-race.json"


def race(scale=1.0, spread=0.0, test_mode=False, errors=0.0):
    """The posts fixture (a test-mode race: one sample per task) scaled; ``spread`` widens Rally's min–max to
    ±spread around the median, as a race with several samples per task has."""
    r = json.loads(FIXTURE.read_text())
    r["user-tags"]["test-mode"] = test_mode
    for op in r["results"]["op_metrics"]:
        for k in ("min", "median", "max", "mean"):
            op["throughput"][k] *= scale
        op["throughput"]["min"] = op["throughput"]["median"] * (1 - spread)
        op["throughput"]["max"] = op["throughput"]["median"] * (1 + spread)
        op["error_rate"] = errors
    return r


def test_aggregate_of_repeated_races():
    agg = compare.aggregate([race(1.0), race(1.1), race(0.9)])["bulk-1000"]
    base = compare.task_figures(race())["bulk-1000"]
    assert agg.n == 3 and agg.median == pytest.approx(base) and agg.minimum == pytest.approx(0.9 * base)
    assert agg.cv == pytest.approx(0.1, rel=1e-6)


def test_margin_comes_from_the_spread_and_flags_only_beyond_it():
    baseline = compare.aggregate([race(1.0), race(1.02), race(0.98)])  # CV 2 % → margin 4 %
    slower = compare.aggregate([race(0.90), race(0.91), race(0.89)])
    same = compare.aggregate([race(0.99), race(1.0), race(1.01)])
    d = {x.task: x for x in compare.compare(baseline, slower, method="margin")}["bulk-1000"]
    assert d.margin == pytest.approx(0.04, rel=1e-3) and d.verdict == "slower" and d.change == pytest.approx(-0.10)
    assert {x.task: x for x in compare.compare(baseline, same, method="margin")}["bulk-1000"].verdict == "within noise"


def test_one_race_a_side_takes_its_margin_from_rallys_samples_or_makes_no_call():
    one, faster = compare.aggregate([race()]), compare.aggregate([race(1.5)])
    d = compare.compare(one, faster, method="margin")[0]
    assert d.margin is None and d.verdict == "not enough data to call"  # one sample each: no spread to call by
    assert compare.compare(one, faster, margin=0.6)[0].verdict == "within noise"
    wide, wide_faster = compare.aggregate([race(spread=0.2)]), compare.aggregate([race(1.5, spread=0.1)])
    d = compare.compare(wide, wide_faster, method="margin")[0]
    assert d.margin == pytest.approx(1.2 / 0.9 - 1) and d.verdict == "faster"  # its slowest (0.9 × 1.5) beats the baseline's fastest (1.2)


def measured(low, median, high):
    """A one-race side as Rally stored it: the task's slowest, median and fastest sample (docs/s)."""
    r = race()
    op = next(o for o in r["results"]["op_metrics"] if o["task"] == "bulk-1000")
    op["throughput"].update(min=low, median=median, max=high)
    return compare.aggregate([r])["bulk-1000"]


def test_an_a_a_pair_measured_here_is_within_noise_and_a_real_change_is_not():
    """Two posts races of the same code on this machine (5 runs each, bulk 1000: +21.6 %, samples ±9–12 %), and
    eventdata at bulk 10 against bulk 1000 (100,000 docs each), as Rally stored them."""
    a, b = measured(29360.6, 30970.5, 35186.6), measured(33013.5, 37665.5, 41744.6)
    assert compare.difference("bulk-1000", a, b, method="margin").verdict == "within noise"
    assert compare.difference("bulk-1000", b, a, method="margin").verdict == "within noise"
    small, large = measured(1294.3, 2085.9, 2940.1), measured(26403.4, 27190.8, 29882.7)
    assert compare.difference("bulk-1000", small, large, method="margin").verdict == "faster"
    assert compare.difference("bulk-1000", large, small, method="margin").verdict == "slower"


def test_a_a_pairs_come_out_within_noise_and_a_real_change_does_not():
    """The same code twice (medians apart by the noise Rally's samples show) against a 2x change."""
    a = compare.aggregate([race(1.0, spread=0.25)])
    for drift in (0.82, 0.9, 1.15):  # the A/A drifts seen between posts races on this machine
        assert {d.verdict for d in compare.compare(a, compare.aggregate([race(drift, spread=0.25)]), method="margin")} == {"within noise"}
    assert {d.verdict for d in compare.compare(a, compare.aggregate([race(2.0, spread=0.25)]), method="margin")} == {"faster"}
    five = [race(x) for x in (0.9, 1.0, 1.1, 0.95, 1.05)]
    other = [race(x) for x in (0.85, 1.02, 1.08, 0.97, 1.1)]
    assert {d.verdict for d in compare.compare(compare.aggregate(five), compare.aggregate(other))} == {"within noise"}
    assert {d.verdict for d in compare.compare(compare.aggregate(five), compare.aggregate(other), method="margin")} == {"within noise"}


def test_the_t_rule_states_its_interval_and_needs_three_races_a_side_or_samples():
    base = compare.aggregate([race(x) for x in (1.0, 1.02, 0.98)])
    slower = compare.aggregate([race(x) for x in (0.90, 0.91, 0.89)])
    d = {x.task: x for x in compare.compare(base, slower)}["bulk-1000"]
    assert d.method == "t" and d.verdict == "slower" and d.low < -0.10 < d.high < 0 and d.basis == "3 vs 3 races"
    two = compare.aggregate([race(1.0), race(1.01)])
    d = compare.compare(two, slower)[0]
    assert d.verdict == "not enough data to call" and "the rule needs 3 a side" in d.basis
    one_a, one_b = race(), race(1.3)
    one_a[SAMPLES_KEY] = {"bulk-1000": [100.0, 102.0, 98.0, 101.0]}
    one_b[SAMPLES_KEY] = {"bulk-1000": [130.0, 128.0, 133.0, 131.0]}
    d = {x.task: x for x in compare.compare(compare.aggregate([one_a]), compare.aggregate([one_b]))}["bulk-1000"]
    assert d.verdict == "faster" and "samples of one race a side" in d.basis


def test_every_format_carries_service_times_and_error_rates():
    import csv
    import io
    import json as jsonlib

    base = compare.aggregate([race(x) for x in (1.0, 1.02, 0.98)])
    other = compare.aggregate([race(x, errors=0.01) for x in (0.90, 0.91, 0.89)])
    text = compare.render("markdown", "a", base, [("b", other)])
    assert "service p50 / p90 / p99 ms" in text and "0.0% → 1.0%" in text
    rows = list(csv.DictReader(io.StringIO(compare.render("csv", "a", base, [("b", other)]))))
    assert rows and {"baseline_service_p90_ms", "contender_error_rate", "interval_low", "verdict"} <= set(rows[0])
    data = jsonlib.loads(compare.render("json", "a", base, [("b", other)]))
    assert data["method"] == "t" and data["rows"][0]["verdict"] in ("slower", "within noise", "faster")
    assert "<table>" in compare.render("html", "a", base, [("b", other)])


def test_failed_and_test_mode_races_are_left_out_and_named():
    kept, notes = compare.select([race(), race(test_mode=True), race(errors=0.1)])
    assert len(kept) == 1 and len(notes) == 2
    assert "a test-mode race" in notes[0] and "requests failed in index-api" in notes[1]
    kept, _ = compare.select([race(), race(test_mode=True)], test_mode=True)
    assert len(kept) == 1


def test_setup_tasks_are_left_out():
    r = copy.deepcopy(race())
    r["results"]["op_metrics"].append({**r["results"]["op_metrics"][0], "task": "recreate-b1-t1"})
    assert "recreate-b1-t1" not in compare.task_figures(r)


def test_markdown_table():
    text = compare.markdown("run:a (2 races)", compare.aggregate([race(spread=0.1), race(1.1, spread=0.1)]),
                            [("run:b (1 race)", compare.aggregate([race(0.5, spread=0.1)]))])
    assert "### run:b (1 race) against the baseline" in text and "not enough data to call" in text and "CV " in text
    text = compare.markdown("run:a (2 races)", compare.aggregate([race(spread=0.1), race(1.1, spread=0.1)]),
                            [("run:b (1 race)", compare.aggregate([race(0.5, spread=0.1)]))], method="margin")
    assert "| slower |" in text


def test_calibration_counts_false_alarms_on_a_a_pairs_and_detections_on_known_changes():
    from ingestlab.bench import calibrate

    rng = __import__("random").Random(5)

    def run(level):
        r = race(level * (1 + rng.gauss(0, 0.02)), spread=0.05)
        for op in r["results"]["op_metrics"]:
            op["task"] = "index-append" if op["task"] == "bulk-1000" else op["task"]
        return r

    pool_a, pool_b = [run(1.0) for _ in range(12)], [run(0.9) for _ in range(12)]
    rates = calibrate.rates(pool_a, pool_b, pairs=10, size=3)
    t3, margin1 = rates["3 race(s) a side"]["t"], rates["1 race(s) a side"]["margin"]
    assert t3["detections"] >= 8 and t3["false_alarms"] <= 2 and t3["wrong_direction"] == 0
    assert rates["1 race(s) a side"]["t"]["not_enough_aa"] == 10  # no samples kept here: the t rule makes no call
    assert margin1["not_enough_aa"] == margin1["not_enough_ab"] == 0 and set(rates) == {"3 race(s) a side", "1 race(s) a side"}
    text = calibrate.markdown({"stamp": "s", "races": 12, "pairs": 10, "size": 3, "quota": 1.5, "docs": 1000, "median_a": 100.0,
                               "median_b": 90.0, "rates": rates, "machine": "m", "seconds": 60})
    assert "| t | 3 | " in text and "| margin | 1 | " in text
