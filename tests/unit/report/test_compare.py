"""Aggregating repeated races, noise margins and verdicts, on real race.json fixtures."""
import copy
import json
from pathlib import Path

import pytest

from ingestlab import compare

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
    d = {x.task: x for x in compare.compare(baseline, slower)}["bulk-1000"]
    assert d.margin == pytest.approx(0.04, rel=1e-3) and d.verdict == "slower" and d.change == pytest.approx(-0.10)
    assert {x.task: x for x in compare.compare(baseline, same)}["bulk-1000"].verdict == "within noise"


def test_one_race_a_side_takes_its_margin_from_rallys_samples_or_makes_no_call():
    one, faster = compare.aggregate([race()]), compare.aggregate([race(1.5)])
    d = compare.compare(one, faster)[0]
    assert d.margin is None and d.verdict == "not enough data to call"  # one sample each: no spread to call by
    assert compare.compare(one, faster, margin=0.6)[0].verdict == "within noise"
    wide, wide_faster = compare.aggregate([race(spread=0.2)]), compare.aggregate([race(1.5, spread=0.1)])
    d = compare.compare(wide, wide_faster)[0]
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
    assert compare.difference("bulk-1000", a, b).verdict == "within noise"
    assert compare.difference("bulk-1000", b, a).verdict == "within noise"
    small, large = measured(1294.3, 2085.9, 2940.1), measured(26403.4, 27190.8, 29882.7)
    assert compare.difference("bulk-1000", small, large).verdict == "faster"
    assert compare.difference("bulk-1000", large, small).verdict == "slower"


def test_a_a_pairs_come_out_within_noise_and_a_real_change_does_not():
    """The same code twice (medians apart by the noise Rally's samples show) against a 2x change."""
    a = compare.aggregate([race(1.0, spread=0.25)])
    for drift in (0.82, 0.9, 1.15):  # the A/A drifts seen between posts races on this machine
        assert {d.verdict for d in compare.compare(a, compare.aggregate([race(drift, spread=0.25)]))} == {"within noise"}
    assert {d.verdict for d in compare.compare(a, compare.aggregate([race(2.0, spread=0.25)]))} == {"faster"}
    five = [race(x) for x in (0.9, 1.0, 1.1, 0.95, 1.05)]
    other = [race(x) for x in (0.85, 1.02, 1.08, 0.97, 1.1)]
    assert {d.verdict for d in compare.compare(compare.aggregate(five), compare.aggregate(other))} == {"within noise"}


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
    assert "### run:b (1 race) against the baseline" in text and "| slower |" in text and "CV " in text
