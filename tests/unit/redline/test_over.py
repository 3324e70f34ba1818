"""The search over clients or bulk size at full speed: whole steps, the USL beside the answer, and the report's words
(made-up probes; the races are in tests/integration/test_redline.py)."""

from ingestlab.redline import over, report, search
from ingestlab.redline.search import FAIL, PASS, Probe, Settings

CLIENTS = Settings(start=1, ceiling=32, floor=1, unit="clients", ceiling_is="--max-clients", whole=True)


def _knee(at):
    seen = []

    def probe(n):
        seen.append(n)
        ok = n <= at
        return Probe(n, PASS if ok else FAIL, "p99 ok" if ok else "p99 too high", throughput=1000.0 * n / (1 + 0.1 * (n - 1)))

    return probe, seen


def test_clients_climb_from_one_and_bisect_to_neighbours_in_whole_numbers():
    probe, seen = _knee(5)
    out = search.search(probe, CLIENTS, log=lambda *_: None)
    assert (out.rate, out.failed_above) == (5, 6)
    assert seen[:4] == [1, 2, 4, 8] and all(float(n).is_integer() for n in seen)
    assert "5 clients met the target in all 3 of its probes, and 6 (the next step up) failed" == out.stopped


def test_clients_never_failing_stop_at_the_ceiling_they_name():
    probe, _ = _knee(1000)
    out = search.search(probe, CLIENTS, log=lambda *_: None)
    assert out.failed_above is None and "every step up to 32 clients" in out.stopped and "--max-clients" in out.stopped


def test_a_bulk_size_that_fails_at_its_first_step_halves_to_whole_sizes():
    seen = []

    def probe(size):
        seen.append(size)
        return Probe(size, PASS if size <= 30 else FAIL, "")

    out = search.search(probe, Settings(start=125, ceiling=32_000, floor=1, whole=True, unit="docs a bulk"), log=lambda *_: None)
    assert seen[:3] == [125, 62, 31] and all(float(s).is_integer() for s in seen) and out.rate == 30 and out.failed_above == 31


def _result(probes, fit=True):
    result = {
        "stamp": "20260101T000000",
        "track": "posts",
        "challenge": "redline",
        "task": "redline-bulk",
        "bulk_size": 1000,
        "latency_target": {"percentile": "99", "ms": 200.0},
        "error_rate": 0.0,
        "over": "clients",
        "rate": 5,
        "failed_above": 6,
        "stopped": "5 clients met the target",
        "engine": "elasticsearch",
        "full_speed": {"rate": 40_000.0, "clients": 8, "races": ["a" * 36]},
        "probes": [
            {
                "rate": p.rate,
                "outcome": p.outcome,
                "why": p.why,
                "latency_ms": {"p50": 10.0, "p90": 20.0, "p99": 30.0},
                "throughput": p.throughput,
                "requests": 200,
                "load_side": None,
            }
            for p in probes
        ],
    }
    result["usl"] = over.usl_of(result)
    return result


def test_the_usl_of_the_client_counts_probed_is_set_beside_the_answer():
    probe, _ = _knee(5)
    out = search.search(probe, CLIENTS, log=lambda *_: None)
    result = _result(out.probes)
    assert [n for n, _ in over.throughput_points(result)] == [1, 2, 4, 5, 6, 8]
    assert result["usl"]["fitted"] and (result["usl"]["peak"] is None or result["usl"]["peak"] > 0)
    text = "\n".join(report.lines(result))
    assert "over clients at full speed" in text and "- highest clients that met the target at full speed: 5 (all 3 of its probes" in text
    assert "the USL over the client counts probed" in text and "| clients | probes | passed |" in text
    assert "each request's own time" in text and "docs/s offered" not in text
    assert report.chart(result)[:4] == b"\x89PNG"


def test_two_client_counts_are_too_few_for_the_usl_and_it_says_so():
    result = _result([Probe(1, PASS, "", throughput=1000.0), Probe(2, FAIL, "", throughput=1500.0)])
    assert not result["usl"]["fitted"] and "at least 3" in result["usl"]["why"]
    assert "not fitted (" in "\n".join(report.lines(result))
