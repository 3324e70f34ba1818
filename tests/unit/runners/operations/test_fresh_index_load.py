import pytest

from ingestlab.runners.operations.fresh_index_load import DocumentsLost, FreshIndexLoad
from ingestlab.runners.writing.bulk_bodies import batches
from ingestlab.runners.writing.indexing import Backoff, IndexingFailed
from tests.unit.runners.fake_es import FakeEs, api_error, call_runner

DOCS = [b'{"n":%d}' % i for i in range(25)]
NO_WAIT = Backoff(initial_seconds=0, max_seconds=0, max_retries=3)


def bulk_params(**extra):
    return {
        "index": "posts",
        "index-body": {},
        "method": "bulk",
        "bulk-size": 10,
        "batches": batches(DOCS, 10),
        "doc-count": len(DOCS),
        "refresh": None,
        "backoff": NO_WAIT,
        **extra,
    }


def run(es, params):
    return call_runner(FreshIndexLoad(), es, params)


def test_bulk_run_indexes_everything_and_reports_its_throughput():
    es = FakeEs()
    result, _, _ = run(es, bulk_params())
    assert result["weight"] == 25 and result["unit"] == "docs" and result["success"]
    assert result["requests"] == 3 and result["retries"] == 0
    assert result["throughput"] > 0
    assert es.paths("POST").count("/posts/_bulk") == 3


def test_only_the_indexing_requests_are_timed():
    es = FakeEs()
    _, start, end = run(es, bulk_params())
    bulk_times = [c[4] for c in es.calls if c[1].endswith("/_bulk")]
    setup_times = [c[4] for c in es.calls if c[0] in ("DELETE", "PUT")]
    count_times = [c[4] for c in es.calls if c[1].endswith(("/_count", "/_refresh"))]
    assert max(setup_times) < start <= bulk_times[0]
    assert end < min(count_times)


def test_rejected_items_are_resent_until_accepted():
    partial = {"errors": True, "items": [{"index": {"status": 201}}] * 8 + [{"index": {"status": 429}}] * 2}
    es = FakeEs(bulk_responses=[partial])
    result, _, _ = run(es, bulk_params())
    assert result["retries"] == 1
    resent = [c[3] for c in es.calls if c[1].endswith("/_bulk")][1]
    assert resent == b'{"index":{}}\n{"n":8}\n{"index":{}}\n{"n":9}\n'
    assert es.indexed == 25


def test_whole_request_rejection_is_retried():
    es = FakeEs(bulk_responses=[api_error(429, "es_rejected_execution_exception")])
    result, _, _ = run(es, bulk_params())
    assert result["retries"] == 1 and es.indexed == 25


def test_retries_are_bounded():
    es = FakeEs(bulk_responses=[api_error(429)] * 10)
    with pytest.raises(IndexingFailed, match="HTTP 429"):
        run(es, bulk_params())


def _one_taken(size):
    return {"errors": size > 1, "items": [{"index": {"status": 201}}] + [{"index": {"status": 429}}] * (size - 1)}


def test_a_bulk_the_node_takes_a_little_of_each_round_is_retried_past_max_retries():
    """A node rejecting per shard takes part of each round: rounds that make progress do not count against
    ``max-retries`` (3 here), and every document is written."""
    es = FakeEs(bulk_responses=[_one_taken(size) for size in range(10, 0, -1)])
    result, _, _ = run(es, bulk_params())
    assert result["retries"] == 9 and es.indexed == 25


def test_max_retries_counts_the_rounds_in_a_row_that_took_nothing():
    all_rejected = {"errors": True, "items": [{"index": {"status": 429}}] * 9}
    es = FakeEs(bulk_responses=[_one_taken(10)] + [all_rejected] * 4)
    with pytest.raises(IndexingFailed, match="9 documents still rejected \\(429\\) after 3 retries in a row that took none of them"):
        run(es, bulk_params())
    assert es.indexed == 1 and es.paths("POST").count("/posts/_bulk") == 5


def test_a_refused_document_fails_the_run():
    bad = {
        "errors": True,
        "items": [{"index": {"status": 400, "error": {"type": "mapper_parsing_exception", "reason": "x"}}}]
        + [{"index": {"status": 201}}] * 9,
    }
    with pytest.raises(IndexingFailed, match="mapper_parsing_exception"):
        run(FakeEs(bulk_responses=[bad]), bulk_params())


def test_a_count_that_does_not_match_fails_the_run():
    with pytest.raises(DocumentsLost, match="holds 24 documents; the run wrote 25: 1 missing"):
        run(FakeEs(count=24), bulk_params())


def test_index_api_sends_one_request_per_document_with_refresh():
    es = FakeEs(index_errors=[None, api_error(429)])
    params = {
        "index": "posts",
        "index-body": {},
        "method": "index",
        "documents": DOCS,
        "doc-count": 25,
        "refresh": "true",
        "backoff": NO_WAIT,
    }
    result, _, _ = run(es, params)
    doc_calls = [c for c in es.calls if c[1] == "/posts/_doc"]
    assert len(doc_calls) == 26 and result["retries"] == 1
    assert all(c[2] == {"refresh": "true"} for c in doc_calls)
    assert es.paths("POST").count("/posts/_bulk") == 0
