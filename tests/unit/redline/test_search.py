"""The redline search decides which rate to probe and what the probes add up to; here a probe is a rule on the rate
(the races are in tests/integration/test_redline.py)."""

import pytest

from ingestlab.errors import IngestlabError
from ingestlab.redline import search, target
from ingestlab.redline.search import DRIVER_BOUND, FAIL, PASS, Probe, Settings


def knee(at: float, flaky: set = frozenset(), driver_at: float | None = None):
    """Passes below ``at``; the n-th probe (1-based) in ``flaky`` fails whatever its rate."""
    seen = []

    def probe(rate):
        seen.append(rate)
        if driver_at is not None and rate >= driver_at:
            return Probe(rate, DRIVER_BOUND, "worker at 1.00 of 1.00 cores")
        ok = rate < at and len(seen) not in flaky
        return Probe(rate, PASS if ok else FAIL, "p99 ok" if ok else "p99 too high")

    return probe, seen


SETTINGS = Settings(start=1000, ceiling=64_000, floor=100)


def test_the_answer_is_within_one_resolution_step_below_the_knee_and_confirmed_by_three_probes():
    probe, seen = knee(5_500)
    out = search.search(probe, SETTINGS, log=lambda *_: None)
    assert 5_500 / 1.05 <= out.rate < 5_500
    assert out.failed_above >= 5_500 and out.failed_above / out.rate <= 1.05
    steps = out.steps()
    assert len(steps[out.rate]) == 3 and all(p.outcome == PASS for p in steps[out.rate])
    # the climb doubled from the first step to the first failure
    assert seen[:4] == [1000, 2000, 4000, 8000]
    # never two probes of the answer back to back
    last = [i for i, r in enumerate(seen) if r == out.rate]
    assert all(b - a > 1 for a, b in zip(last, last[1:]))


def test_a_confirming_probe_that_fails_moves_the_answer_down():
    probe, seen = knee(5_500)
    first = search.search(probe, SETTINGS, log=lambda *_: None)
    n_first = len(seen)
    confirm_of_answer = [i for i, r in enumerate(seen, 1) if r == first.rate][1]  # the answer's second probe
    probe, seen = knee(5_500, flaky={confirm_of_answer})
    out = search.search(probe, SETTINGS, log=lambda *_: None)
    assert out.rate < first.rate
    assert all(p.outcome == PASS for p in out.steps()[out.rate]) and len(out.steps()[out.rate]) >= 3
    assert len(seen) > n_first


def test_a_first_step_that_fails_descends_and_a_target_never_met_says_so():
    probe, _ = knee(300)
    out = search.search(probe, SETTINGS, log=lambda *_: None)
    assert 300 / 1.05 <= out.rate < 300
    probe, _ = knee(50)
    out = search.search(probe, SETTINGS, log=lambda *_: None)
    assert out.rate is None and "cannot be met even at the lowest step" in out.stopped


def test_a_driver_bound_step_stops_the_search_and_is_neither_pass_nor_fail():
    probe, _ = knee(50_000, driver_at=4_000)
    out = search.search(probe, SETTINGS, log=lambda *_: None)
    assert "load driver was at its limit at 4,000" in out.stopped
    assert out.rate is None  # nothing was confirmed by three probes before it


def test_the_ceiling_ends_a_climb_that_never_fails():
    probe, _ = knee(10**9)
    out = search.search(probe, SETTINGS, log=lambda *_: None)
    assert out.rate is None and "met at every step up to 64,000" in out.stopped


def test_the_probe_budget_is_a_stop_with_its_reason():
    probe, _ = knee(5_500)
    out = search.search(probe, Settings(start=1000, ceiling=64_000, floor=100, most=5), log=lambda *_: None)
    assert "spent its 5 probes" in out.stopped and len(out.probes) == 5


@pytest.mark.parametrize("text,percentile,ms", [("p99<=500ms", "99", 500.0), ("p90 <= 1.5s", "90", 1500.0), ("p99.9<=20ms", "99.9", 20.0)])
def test_a_latency_target_is_a_percentile_and_a_duration(text, percentile, ms):
    t = target.parse(text)
    assert (t.percentile, t.ms, t.key) == (percentile, ms, f"p{percentile}")


@pytest.mark.parametrize(
    "text,says",
    [
        ("p99<500ms", "write a percentile and a duration"),
        ("p95<=10ms", "Rally reports"),
        ("99<=10ms", "write a percentile"),
        ("p99<=10", "write a percentile"),
        ("p99<=0ms", "above 0"),
    ],
)
def test_a_bad_latency_target_is_one_clear_line(text, says):
    with pytest.raises(IngestlabError, match=says):
        target.parse(text)


def test_an_error_rate_is_a_share_or_a_percentage():
    assert target.error_rate("0") == 0.0 and target.error_rate("0.5%") == 0.005
    with pytest.raises(IngestlabError, match="from 0 up to"):
        target.error_rate("1.5")


def test_a_red_cluster_ends_the_search_with_its_reason_and_keeps_what_was_confirmed(monkeypatch):
    """A probe function that finds the cluster red halts the search: the result names it (issue 44's bad input)."""
    from ingestlab import racing
    from ingestlab.redline import run

    calls = []

    def probe(rate):
        calls.append(rate)
        if len(calls) == 6:
            raise search.Halt("the cluster went red before probe 6 (2 unassigned shards, 1 nodes): the search stopped there")
        return Probe(rate, PASS if rate < 5_500 else FAIL, "")

    out = search.search(probe, SETTINGS, log=lambda *_: None)
    assert out.stopped.startswith("the cluster went red before probe 6") and len(out.probes) == 5

    monkeypatch.setattr(
        "ingestlab.rally.preflight.get_json", lambda *a, **k: {"status": "red", "unassigned_shards": 2, "number_of_nodes": 1}
    )
    with pytest.raises(search.Halt, match="went red before probe 3 \\(2 unassigned shards, 1 nodes\\)"):
        run.red_halt(racing.Target(hosts="127.0.0.1:9200"), 3)
    monkeypatch.setattr("ingestlab.rally.preflight.get_json", lambda *a, **k: {"status": "yellow"})
    run.red_halt(racing.Target(hosts="127.0.0.1:9200"), 3)  # yellow: the probe goes on

    def down(*a, **k):
        raise OSError("refused")

    monkeypatch.setattr("ingestlab.rally.preflight.get_json", down)
    run.red_halt(racing.Target(hosts="127.0.0.1:9200"), 3)  # no answer: the probe's own race names the error


ANCHORED = Settings(start=10_000, ceiling=320_000, floor=10_000 / 256, anchor=10_000)


def _on_grid(rate: float) -> bool:
    import math

    k = math.log(rate / 10_000) / math.log(1.05)
    return abs(k - round(k)) < 1e-9


def test_anchored_a_knee_just_below_full_speed_is_bracketed_from_the_anchor_on_the_scans_grid():
    probe, seen = knee(9_200)  # between the anchor's steps -2 (9,070) and -1 (9,524)
    out = search.search(probe, ANCHORED, log=lambda *_: None)
    assert seen[0] == 10_000 and seen[1] == pytest.approx(10_000 / 1.05)  # the anchor fails: one step down, then two
    assert all(_on_grid(r) for r in seen)
    assert out.rate == pytest.approx(10_000 / 1.05**2) and out.failed_above == pytest.approx(10_000 / 1.05)
    assert len(out.steps()[out.rate]) == 3 and all(p.outcome == PASS for p in out.steps()[out.rate])
    last = [i for i, r in enumerate(seen) if r == out.rate]
    assert all(b - a > 1 for a, b in zip(last, last[1:]))
    assert len(seen) <= 8  # 10,000, 9,524, 9,070 (bracket), then the answer twice more with the failed step between


def test_anchored_a_knee_above_full_speed_climbs_one_two_four_steps():
    probe, seen = knee(12_000)
    out = search.search(probe, ANCHORED, log=lambda *_: None)
    assert seen[:4] == pytest.approx([10_000, 10_500, 11_025 * 1.05, 10_000 * 1.05**7])
    assert 12_000 / 1.05 <= out.rate < 12_000 and all(_on_grid(r) for r in seen)


def test_anchored_a_failed_confirmation_gallops_down_from_it_to_a_step_that_passed():
    probe, seen = knee(9_200)
    first = search.search(probe, ANCHORED, log=lambda *_: None)
    second_of_answer = [i for i, r in enumerate(seen, 1) if r == first.rate][1]
    probe, seen = knee(9_200, flaky={second_of_answer})
    out = search.search(probe, ANCHORED, log=lambda *_: None)
    assert out.rate == pytest.approx(10_000 / 1.05**3) and len(out.steps()[out.rate]) >= 3
    assert all(_on_grid(r) for r in seen)


def test_anchored_a_target_never_met_gallops_to_the_floor_and_says_so():
    probe, seen = knee(20)
    out = search.search(probe, ANCHORED, log=lambda *_: None)
    assert out.rate is None and "cannot be met even at the lowest step" in out.stopped
    assert len(seen) <= 9  # 1, 2, 4, … 128 steps down: 1.05^128 is past 1/256


def test_anchored_the_probe_between_the_answers_probes_is_the_step_below_it_and_a_failed_confirmation_starts_there():
    probe, seen = knee(9_200)  # the answer: step -2 (9,070); the step below it, -3 (8,638)
    out = search.search(probe, ANCHORED, log=lambda *_: None)
    below = 10_000 / 1.05**3
    assert [r for r in seen if r < out.rate] == pytest.approx([below, below])  # between the answer's three probes
    second_of_answer = [i for i, r in enumerate(seen, 1) if r == out.rate][1]
    probe, seen = knee(9_200, flaky={second_of_answer})
    moved = search.search(probe, ANCHORED, log=lambda *_: None)
    assert moved.rate == pytest.approx(below)
    # after the failed confirmation the search confirms the step below (it passed already): never probes it back to back
    at = [i for i, r in enumerate(seen) if r == moved.rate]
    assert all(b - a > 1 for a, b in zip(at, at[1:])) and all(p.outcome == PASS for p in moved.steps()[moved.rate])


def test_anchored_a_step_whose_spreading_probe_failed_is_never_the_answer():
    probe, seen = knee(9_200, flaky={4})  # the 4th probe: the step below the first bracket's passed step, probed in between
    out = search.search(probe, ANCHORED, log=lambda *_: None)
    failed = {p.rate for p in out.probes if p.outcome == FAIL}
    assert out.rate not in failed and all(p.outcome == PASS for p in out.steps()[out.rate])
