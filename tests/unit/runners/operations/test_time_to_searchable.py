import orjson
import pytest

from ingestlab.runners.operations.time_to_searchable import NotSearchable, TimeToSearchable, total_hits
from ingestlab.runners.writing.indexing import Backoff, IndexingFailed
from tests.unit.runners.fake_es import FakeEs, api_error, call_runner

NO_WAIT = Backoff(initial_seconds=0, max_seconds=0, max_retries=3)


def probe_params(documents=1, **extra):
    docs = [orjson.dumps({"n": i, "probe": "p-0"}) for i in range(documents)]
    return {
        "index": "probes",
        "probe": "p-0",
        "documents": docs,
        "bulk": documents > 1,
        "refresh": None,
        "phase-delay-s": 0.0,
        "poll-interval-s": 0.0,
        "timeout-s": 5,
        "backoff": NO_WAIT,
        **extra,
    }


def run(es, params):
    return call_runner(TimeToSearchable(), es, params)


def test_polls_until_the_probe_is_found():
    es = FakeEs(search_totals=[(0,), (0,), (1,)])
    result, start, end = run(es, probe_params())
    assert result["searches"] == 3 and result["docs"] == 1 and result["weight"] == 1
    assert es.paths() == ["/probes/_doc"] + ["/probes/_search"] * 3
    search = es.calls[1]
    assert search[2] == {"request_cache": "false"}
    assert search[3]["query"] == {"term": {"probe": "p-0"}} and search[3]["size"] == 0
    # Rally's service time spans the write and the search that found it
    assert start == pytest.approx(es.calls[0][4], abs=0.01) and end >= es.calls[-1][4]
    assert result["searchable-ms"] >= result["acknowledged-ms"]


def test_bulk_probe_waits_for_every_document():
    es = FakeEs(search_totals=[(3,), (4,), (5,)])
    result, _, _ = run(es, probe_params(documents=5, refresh="wait_for"))
    assert result["searches"] == 3 and result["refresh"] == "wait_for"
    assert es.calls[0][1] == "/probes/_bulk" and es.calls[0][2] == {"refresh": "wait_for"}


def test_phase_delay_is_not_part_of_the_service_time():
    es = FakeEs()
    result, start, _ = run(es, probe_params(**{"phase-delay-s": 0.2}))
    assert result["searchable-ms"] < 200
    assert start == pytest.approx(es.calls[0][4], abs=0.01)


def test_a_probe_that_never_shows_up_fails_the_call():
    es = FakeEs(search_totals=[(0,)] * 1000)
    with pytest.raises(NotSearchable, match=r"probe \[p-0\] in \[probes\]: 0 of 1 documents searchable"):
        run(es, probe_params(**{"timeout-s": 0.05, "poll-interval-s": 0.01}))


def test_rejections_are_retried_and_other_errors_fail():
    es = FakeEs(index_errors=[api_error(429)])
    result, _, _ = run(es, probe_params())
    assert result["retries"] == 1
    with pytest.raises(IndexingFailed):
        run(FakeEs(index_errors=[api_error(400, "mapper_parsing_exception")]), probe_params())


def test_total_hits_reads_both_response_shapes():
    assert total_hits({"hits": {"total": {"value": 3, "relation": "eq"}}}) == 3
    assert total_hits({"hits": {"total": 4}}) == 4  # Elasticsearch 6.x
