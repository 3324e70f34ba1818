"""A calibration measures its rates on the design users run as well as on shuffled splits (issue 62, item 3): blocks
of consecutive races with their start times, judged as compare judges sides raced one after the other; a comparison's
footnote quotes the rates of its own design and names it."""

import math
import random

from ingestlab.report import comparison
from ingestlab.verdicts import calibration, rates


def test_blocks_are_consecutive_races_against_the_next_ones():
    assert calibration.blocks(10, 2) == [([0, 1], [2, 3]), ([4, 5], [6, 7])]
    assert calibration.blocks(5, 3) == []


def test_both_designs_are_measured_and_a_drifting_session_shows_in_the_blocks_only():
    rng = random.Random(4)
    # a session whose races fell 40 % and rose back every nine races (a machine slowing by the hour): shuffled splits spread it
    # over both sides, consecutive blocks meet it as a step
    values = [10_000 * math.exp(rng.gauss(0, 0.02)) * (0.6 if i % 18 >= 9 else 1.0) for i in range(120)]
    times = [f"20261202T{10 + i // 60:02d}{i % 60:02d}00Z" for i in range(120)]
    got = calibration.rates(values, (1, 3), times=times)
    for size, comparisons in (("1", 60), ("3", 20)):
        assert got[size]["false_alarms"][1] == comparisons and got[size]["blocks"]["false_alarms"][1] == comparisons
    assert got["3"]["blocks"]["false_alarms"][0] > got["3"]["false_alarms"][0]
    assert "blocks" not in calibration.rates(values, (3,))["3"]  # no start times: no blocks


def test_the_footnote_quotes_the_comparisons_own_design_and_names_it():
    cal = {
        "stamp": "S",
        "track": "posts",
        "task": "bulk-1000",
        "versions": {"version": "7.17.29"},
        "command": "ingestlab calibrate",
        "rates": {"3": {"false_alarms": [1, 20], "detect_10": [5, 20], "blocks": {"false_alarms": [4, 20], "detect_10": [9, 20]}}},
    }
    mixed = rates.sentence(cal, 3)
    assert "on shuffled splits of its identical races: the default rule called 1/20" in mixed
    blocks = rates.sentence(cal, 3, in_blocks=True)
    assert "on blocks of its identical races raced one after the other, as these sides were: the default rule called 4/20" in blocks
    older = {**cal, "rates": {"3": {"false_alarms": [1, 20]}}}
    assert "a design that calibration did not measure" in rates.sentence(older, 3, in_blocks=True)
    assert "called 4/20" in comparison.footnote("t", None, cal, 3, in_blocks=True)


def test_abs_design_is_measured_too_pairs_of_consecutive_races_in_a_random_order():
    comparisons = calibration.paired(12, 3, seed=2)
    assert len(comparisons) == 2
    for a, b in comparisons:
        assert [sorted(p) for p in zip(a, b)] == [[i, i + 1] for i in range(min(a + b), min(a + b) + 6, 2)]
    assert any(x > y for a, b in comparisons for x, y in zip(a, b))  # the order within a pair is drawn
    rng = random.Random(5)
    values = [10_000 * math.exp(rng.gauss(0, 0.03)) for _ in range(60)]
    got = calibration.rates(values, (1, 3))
    assert got["3"]["pairs"]["false_alarms"][1] == 10 and "pairs" not in got["1"]  # three pairs or more: as compare judges
    cal = {"stamp": "S", "track": "posts", "versions": {"version": "7.17.29"}, "rates": {"3": {**got["3"]}}}
    k = got["3"]["pairs"]["false_alarms"][0]
    assert f"on pairs of its consecutive identical races, as `ab` races them: the default rule called {k}/10" in rates.sentence(
        cal, 3, in_pairs=True
    )
