"""Aggregating repeated races, noise margins and verdicts, on real race.json fixtures."""
import copy
import json
from pathlib import Path

import pytest

from ingestlab import compare

FIXTURE = Path(__file__).parent.parent / "fixtures" / "posts-test-mode-race.json"


def race(scale=1.0):
    r = json.loads(FIXTURE.read_text())
    for op in r["results"]["op_metrics"]:
        for k in ("min", "median", "max", "mean"):
            op["throughput"][k] *= scale
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


def test_single_races_use_the_default_or_a_fixed_margin():
    one, faster = compare.aggregate([race()]), compare.aggregate([race(1.5)])
    d = compare.compare(one, faster)[0]
    assert d.margin == compare.DEFAULT_MARGIN and d.verdict == "faster"
    assert compare.compare(one, faster, margin=0.6)[0].verdict == "within noise"


def test_setup_tasks_are_left_out():
    r = copy.deepcopy(race())
    r["results"]["op_metrics"].append({**r["results"]["op_metrics"][0], "task": "recreate-b1-t1"})
    assert "recreate-b1-t1" not in compare.task_figures(r)


def test_markdown_table():
    text = compare.markdown("run:a (2 races)", compare.aggregate([race(), race(1.1)]), [("run:b (1 race)", compare.aggregate([race(0.5)]))])
    assert "### run:b (1 race) against the baseline" in text and "| slower |" in text and "CV " in text
