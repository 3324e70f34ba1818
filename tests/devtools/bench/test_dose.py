"""`python -m devtools.bench dose`: the doses' order (whole blocks, seeded), bad doses refused in one line, and what made-up races of
two doses give (a real change found and measured with its interval, A/A within a dose not called, a missing value
shown as missing)."""

import random

import pytest

from devtools.bench import dose
from ingestlab.errors import IngestlabError


def test_each_block_races_every_dose_once_in_a_seeded_order():
    plan = dose.order([1.0, 0.9, 0.8], 20, "2026-11-28T010000")
    assert [sorted(plan[i : i + 3]) for i in range(0, 60, 3)] == [[0.8, 0.9, 1.0]] * 20
    assert plan == dose.order([1.0, 0.9, 0.8], 20, "2026-11-28T010000")
    assert len({tuple(plan[i : i + 3]) for i in range(0, 60, 3)}) > 1  # not one fixed order


def test_the_whole_core_comes_first_and_bad_doses_are_refused():
    assert dose.check_doses([0.9]) == [1.0, 0.9]
    assert dose.check_doses([0.9, 1.0, 0.8]) == [1.0, 0.9, 0.8]
    for bad, said in (([0.0], "above 0 and at most 1"), ([1.5], "above 0 and at most 1"), ([0.9, 0.9], "given twice")):
        with pytest.raises(IngestlabError, match=said):
            dose.check_doses(bad)


def _races(n, level, rng, sigma=0.03):
    return [level * rng.lognormvariate(0, sigma) for _ in range(n)]


def test_a_real_ten_per_cent_change_is_measured_with_its_interval_and_found():
    rng = random.Random(4)
    values = {"1": _races(80, 40_000, rng), "0.9": _races(80, 36_000, rng)}
    got = dose.dose_response(values)
    change = got["by_dose"]["0.9"]["change"]
    assert change["low"] < -0.10 < change["high"] and change["high"] < -0.08
    three = got["by_dose"]["0.9"]["rates"]["3"]
    assert three["found"][1] == 26 and three["found"][0] >= 15  # Welch at 3 a side: about 70 % power here
    for d in ("1", "0.9"):
        k, n = got["by_dose"][d]["rates"]["1"]["false_alarms"]
        assert n == 40 and k <= 4
    assert "found" not in got["by_dose"]["1"]["rates"]["1"]  # the baseline is not compared with itself


def test_no_change_is_rarely_found_and_a_missing_median_is_shown_as_missing():
    rng = random.Random(7)
    values = {"1": _races(60, 40_000, rng), "0.95": _races(60, 40_000, rng)}
    got = dose.dose_response(values)
    k, n = got["by_dose"]["0.95"]["rates"]["1"]["found"]
    assert n == 60 and k <= 6
    data = {
        "dose": {
            "doses": ["1", "0.95"],
            "cpu": {"1": {"throttled": None}, "0.95": {"throttled": 0.4}},
            "by_dose": {**got["by_dose"], "1": {**got["by_dose"]["1"], "median": None}},
        }
    }
    text = dose.markdown(data)
    assert "| 1 | 60 | missing | — | — |" in text and "| 40% | +" in text
