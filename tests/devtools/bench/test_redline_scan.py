"""The redline bench: the dense scan's steps and answer, and how the search is judged against it (the races are the
bench's own, run by hand: `python -m devtools.bench redline`)."""

import math
from types import SimpleNamespace

from devtools.bench import redline_scan
from ingestlab.redline import search
from ingestlab.redline.search import DRIVER_BOUND, FAIL, PASS, Probe


def test_the_scan_steps_down_by_the_resolution_from_full_speed_to_its_low_share():
    got = redline_scan.steps(60_000, 0.05, 0.5)
    assert got[0] == 60_000 and all(math.isclose(a / b, 1.05) for a, b in zip(got, got[1:]))
    assert got[-1] >= 30_000 > got[-1] / 1.05 and len(got) == 15


def test_the_scans_answer_is_the_highest_step_whose_probes_all_passed():
    probes = [Probe(r, PASS if r < 40_000 else FAIL, "") for _ in range(3) for r in (45_000, 42_000, 39_000, 36_000)]
    assert redline_scan.answer(probes, 3) == 39_000
    flaky = probes + [Probe(39_000, FAIL, "one of four")]
    assert redline_scan.answer(flaky, 3) == 36_000
    bound = [Probe(39_000, DRIVER_BOUND, "worker at its core")] + probes[1:]
    assert redline_scan.answer(bound, 3) == 39_000  # three of its four passed, one was neither
    assert redline_scan.answer([p for p in bound if p.rate == 39_000][:3], 3) is None  # two passed: not enough


def test_within_one_step_is_a_ratio_of_at_most_one_resolution_either_way():
    assert redline_scan.within_one_step(38_649, 39_000, 0.05) and redline_scan.within_one_step(39_000 * 1.05, 39_000, 0.05)
    assert not redline_scan.within_one_step(39_000 * 1.06, 39_000, 0.05)
    assert redline_scan.within_one_step(None, 39_000, 0.05) is None


def _result(search_rate, scan_rate, search_s=120.0, scan_s=900.0):
    searched = search.Outcome(
        search_rate, None if search_rate is None else search_rate * 1.04, "stopped", [Probe(search_rate or 1, PASS, "")] * 3
    )
    scanned = [Probe(scan_rate, PASS, "")] * 3 if scan_rate else [Probe(30_000, FAIL, "p99 900 ms > 200 ms")] * 3
    step = SimpleNamespace(
        task="redline-bulk",
        bulk_size=1000,
        target=SimpleNamespace(hosts="127.0.0.1:9200"),
        latency=SimpleNamespace(percentile="99", ms=200.0),
    )  # as LatencyTarget holds them
    r = redline_scan._result("S", "posts", step, SimpleNamespace(full=60_000.0), searched, scanned, [search_s], [scan_s], 0.05, 0.5, 3, [])
    return {**r, "command": "python -m devtools.bench redline"}


def test_the_sentence_says_how_far_apart_and_what_share_of_the_scans_time():
    r = _result(38_649.0, 39_000.0)
    assert r["within_one_step"] and r["met_time"] and math.isclose(r["time_share"], 120 / 900)
    text = redline_scan.sentence(r)
    assert "-0.9 % from the scan's 39,000 docs/s (within one 5% step)" in text and "13% of it (at most a third)" in text
    slow = redline_scan.sentence(_result(38_649.0, 39_000.0, search_s=400.0))
    assert "more than a third" in slow
    assert "not judged against it" in redline_scan.sentence(_result(38_649.0, None))
    text = redline_scan.markdown(_result(38_649.0, 39_000.0))
    assert "| 39,000 | 3/3 | — |" in text and "p99 <= 200 ms" in text


def test_anchored_steps_below_the_anchor_are_the_dense_scans_own_floats():
    from tests.unit.redline.test_search import ANCHORED, knee

    probe, seen = knee(7_000)
    search.search(probe, ANCHORED, log=lambda *_: None)
    grid = set(redline_scan.steps(10_000, 0.05, 0.5))
    assert [r for r in seen if r <= 10_000 and r >= 5_000 and r not in grid] == []
