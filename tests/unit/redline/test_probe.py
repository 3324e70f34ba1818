"""Judging one probe from its race: Rally's percentile when it reports one, else nearest rank of the race's own samples;
driver bound before anything else; errors before latency."""

from dataclasses import dataclass, field

from ingestlab import racing
from ingestlab.rally.results import TaskResult
from ingestlab.redline import probe
from ingestlab.redline.target import LatencyTarget


@dataclass
class Race:  # the parts of a RaceResult that judging reads
    tasks: dict
    samples: list = field(default_factory=list)
    footprint: dict = field(default_factory=dict)
    race_id: str = "r1"

    def latency_samples(self, task):
        return self.samples


STEP = probe.Step(
    track_path=None,
    challenge="redline",
    task="redline-bulk",
    bulk_size=1000,
    params={},
    target=racing.Target(hosts="h"),
    latency=LatencyTarget("99", 200.0),
    error_rate=0.0,
    tags={},
)


def _task(latency, error_rate=0.0):
    return {"redline-bulk": TaskResult("redline-bulk", None, None, None, None, error_rate, throughput_mean=900.0, latency_ms=latency)}


def test_nearest_rank_of_fewer_than_100_requests_is_one_of_the_slowest():
    assert probe.nearest_rank([5.0] * 36 + [250.0], 99) == 250.0
    assert probe.nearest_rank(list(range(1, 201)), 99) == 198 and probe.nearest_rank([], 99) is None


def test_a_short_probe_is_judged_on_its_own_samples_and_rallys_percentile_wins_when_there():
    judged = probe.judge(STEP, 1000.0, Race(_task({"p50": 5.0, "p100": 250.0}), samples=[5.0] * 36 + [250.0]))
    assert judged.outcome == "fail" and judged.why == "p99 250 ms > 200 ms" and judged.requests == 37
    judged = probe.judge(STEP, 1000.0, Race(_task({"p50": 5.0, "p90": 9.0, "p99": 120.0}), samples=[5.0] * 150 + [900.0]))
    assert judged.outcome == "pass" and judged.latency_ms["p99"] == 120.0


def test_driver_bound_comes_first_and_errors_before_latency():
    race = Race(
        _task({"p99": 10.0}), samples=[10.0], footprint={"load_side": {"verdict": "load driver bound", "why": "worker 1.00 of 1.00"}}
    )
    assert probe.judge(STEP, 1000.0, race).outcome == "driver bound"
    judged = probe.judge(STEP, 1000.0, Race(_task({"p99": 10.0}, error_rate=0.01), samples=[10.0]))
    assert judged.outcome == "fail" and "error rate 1.00% > 0.00%" in judged.why


def test_a_probe_has_clients_to_keep_up_and_requests_enough_to_judge():
    assert probe.plan(100_000, STEP, 0.05, 8) == (10, 15.0)  # 100 requests/s at 50 ms each: 10 clients keep up
    assert probe.plan(10_000, STEP, 0.05, 8) == (8, 15.0)  # 10 requests/s: the 8 asked, each with 18 requests
    assert probe.plan(1_000, STEP, 0.05, 8) == (4, 20.0)  # 1 request/s: 20 s for 20 requests, 4 clients with 5 each
    assert probe.plan(10**9, STEP, 0.05, 1) == (probe.MOST_CLIENTS, 15.0) and probe.plan(5000, STEP, None, 2) == (2, 15.0)


def test_a_probe_lasts_ten_latency_targets_so_falling_behind_by_one_cannot_pass_far_under_the_rate():
    slow = probe.Step(**{**STEP.__dict__, "latency": LatencyTarget("99", 6000.0)})
    assert probe.plan(100_000, slow, 0.05, 8) == (10, 60.0)  # a 6 s target: 60 s, not the challenge's 15
    assert probe.plan(100_000, STEP, 0.05, 8)[1] == 15.0  # 200 ms: 2 s, under the challenge's own period


def test_a_search_on_emulated_hosts_says_whether_the_emulation_held():
    from ingestlab.redline import report

    probes = [{"rate": 100.0, "emulation": True, "race_id": "a" * 36}, {"rate": 200.0, "emulation": False, "race_id": "b" * 36}]
    result = {"probes": probes, "full_speed": {"emulation": [True, True], "races": []}}
    assert report.emulation_lines(result) == [
        "- emulated hardware: the emulation held in 1 of 2 probes and 2 of 2 full-speed races; not in the probes at 200 (bbbbbbbb): "
        "their figures are this machine's, not the profile's"
    ]
    plain = {"probes": [{"rate": 1.0, "emulation": None, "race_id": None}], "full_speed": {"emulation": [None], "races": []}}
    assert report.emulation_lines(plain) == []
