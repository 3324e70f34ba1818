"""The reindex runners at full size, with a scripted client: a ``_reindex`` that outlasts any number of poll
timeouts, timed by Elasticsearch's own ``took``; a malformed scroll page as a failed request; ``_routing``
kept in raw mode; and who reports throughput when several clients copy."""

import json

import orjson
import pytest
from elasticsearch import ApiError

from ingestlab.runners.operations.reindex_api import ReindexApi, poll_timeout
from ingestlab.runners.operations.sliced_scroll_reindex import SlicedScrollReindex
from ingestlab.runners.param_sources.reindex import ReindexParamSource
from ingestlab.runners.utils.failures import reporting_failures
from ingestlab.runners.utils.params import ParameterError
from ingestlab.runners.writing.indexing import Backoff
from ingestlab.runners.writing.scroll_hits import raw_page
from tests.unit.runners.fake_es import api_error, call_runner
from tests.unit.runners.fake_track import two_index_track


class RawResponse(bytes):
    def read(self):
        return bytes(self)


class ScriptedEs:
    """Answers by path; ``script`` maps (method, path prefix) to a list of answers (an exception is raised)."""

    def __init__(self, script):
        self.script = {k: list(v) for k, v in script.items()}
        self.calls = []
        self.raw = False

    def return_raw_response(self):
        self.raw = True

    async def perform_request(self, method, path, params=None, headers=None, body=None):
        from esrally.client.context import RequestContextHolder

        RequestContextHolder.on_request_start()
        try:
            self.calls.append((method, path, params, body))
            for (m, prefix), answers in self.script.items():
                if m == method and path.startswith(prefix):
                    answer = answers.pop(0) if len(answers) > 1 else answers[0]
                    if isinstance(answer, Exception):
                        raise answer
                    return RawResponse(answer) if self.raw and isinstance(answer, bytes) else answer
            if method == "DELETE":
                raise api_error(404, "index_not_found_exception")
            if path == "/_cluster/health":
                return {"number_of_data_nodes": 1}
            return {"acknowledged": True}
        finally:
            RequestContextHolder.on_request_end()


def timeout_error():
    error = api_error(408, "timeout")
    error.body = {"error": {"root_cause": [{"type": "timeout_exception", "reason": "Timed out waiting for completion of task"}]}}
    return error


def test_a_reindex_longer_than_the_poll_timeout_is_polled_until_done_and_timed_by_its_took():
    completed = {"completed": True, "response": {"took": 248_000, "failures": [], "batches": 2051}}
    es = ScriptedEs(
        {
            ("GET", "/src/_count"): [{"count": 2_050_717}],
            ("GET", "/dst/_count"): [{"count": 2_050_717}],
            ("POST", "/_reindex"): [{"task": "n1:42"}],
            ("GET", "/_tasks/n1:42"): [timeout_error(), timeout_error(), timeout_error(), completed],
        }
    )
    params = {
        "operation": "reindex-api-scroll-1000",
        "source-index": "src",
        "dest-index": "dst",
        "dest-body": {},
        "scroll-size": 1000,
        "poll-timeout": "1s",
    }
    result, _, _ = call_runner(ReindexApi(), es, params)
    assert result["polls"] == 4 and result["elapsed-ms"] == 248_000 and result["throughput"] == pytest.approx(2_050_717 / 248)
    polls = [c for c in es.calls if c[1] == "/_tasks/n1:42"]
    assert all(c[2] == {"wait_for_completion": "true", "timeout": "1s"} for c in polls)
    assert ("DELETE", "/.tasks/_doc/n1:42", None, None) in es.calls  # the stored task result is removed


def test_a_poll_error_that_is_no_timeout_is_not_swallowed():
    es = ScriptedEs(
        {
            ("GET", "/src/_count"): [{"count": 5}],
            ("POST", "/_reindex"): [{"task": "n1:1"}],
            ("GET", "/_tasks/n1:1"): [api_error(404, "resource_not_found_exception")],
        }
    )
    with pytest.raises(ApiError):
        call_runner(ReindexApi(), es, {"operation": "r", "source-index": "src", "dest-index": "dst", "dest-body": {}})


@pytest.mark.parametrize("value", ["30", "soon", "1 s"])
def test_poll_timeout_is_a_time_value(value):
    with pytest.raises(ParameterError, match=r"\[poll-timeout\] must be a time"):
        poll_timeout({"poll-timeout": value}, "reindex-api-scroll-1000")


def scroll_es(first_page: bytes, count: int = 2):
    shards = [{"shard": "0", "prirep": "p", "id": "n1"}]
    return ScriptedEs(
        {
            ("GET", "/_nodes/_local"): [{"nodes": {"n1": {"name": "node-1"}}}],
            ("GET", "/_cat/shards/src"): [shards],
            ("GET", "/src/_count"): [{"count": count}],
            ("GET", "/dst/_count"): [{"count": count}],
            ("POST", "/src/_search"): [first_page],
            ("POST", "/_search/scroll"): [b'{"_scroll_id":"s1","hits":{"hits":[]}}'],
            ("POST", "/dst/_bulk"): [b'{"errors":false,"items":[{"index":{"status":201}},{"index":{"status":201}}]}'],
        }
    )


def copy_params(clients=1, **extra):
    source = ReindexParamSource(two_index_track_for_copy(), {"source-index": "src", "dest-index": "dst", "raw": True, "slices": 1, **extra})
    params = source.partition(0, clients).params()
    params["backoff"] = Backoff(0, 0, 1)
    return params


def two_index_track_for_copy():
    import tempfile
    from pathlib import Path

    return two_index_track(Path(tempfile.mkdtemp()))


def test_a_malformed_scroll_page_is_a_failed_request_not_a_crash():
    es = scroll_es(b'{"_scroll_id":"s1","hits":{"hits":[{"_id":"1","_sour')
    result, _, _ = call_runner(reporting_failures(SlicedScrollReindex()), es, copy_params())
    assert result["success"] is False and result["error-type"] == "ScrollFailed"
    assert "slice 0 of [src]" in result["error-description"] and "unexpected scroll page" in result["error-description"]


def es_error(status: int, kind: str, reason: str):
    error = api_error(status, kind)
    error.body = {"error": {"root_cause": [{"type": kind, "reason": reason}], "type": kind, "reason": reason}}
    return error


FIRST = (
    b'{"_scroll_id":"s1","hits":{"total":{"value":4,"relation":"eq"},"hits":[{"_id":"1","_source":{"a":1}},{"_id":"2","_source":{"b":2}}]}}'
)
EXPIRED_FORMS = {
    "404": es_error(404, "search_context_missing_exception", "No search context found for id [17]"),
    "500 already closed": es_error(500, "illegal_state_exception", "already closed, can't increment ref count"),
    "failed shard": b'{"_scroll_id":"s1","_shards":{"failed":1,"failures":[{"reason":{"type":"search_context_missing_exception",'
    b'"reason":"No search context found for id [17]"}}]},"hits":{"total":{"value":4,"relation":"eq"},"hits":[]}}',
    "empty page": b'{"_scroll_id":"s1","hits":{"total":{"value":4,"relation":"eq"},"hits":[]}}',
}


@pytest.mark.parametrize("raw", [True, False])
@pytest.mark.parametrize("form", list(EXPIRED_FORMS))
def test_an_expired_scroll_is_named_the_same_way_in_every_form_elasticsearch_gives_it(form, raw):
    es = scroll_es(FIRST, count=4)
    answer = EXPIRED_FORMS[form]
    es.script[("POST", "/_search/scroll")] = [answer if raw or not isinstance(answer, bytes) else json.loads(answer)]
    if not raw:
        es.script[("POST", "/src/_search")] = [json.loads(FIRST)]
    result, _, _ = call_runner(reporting_failures(SlicedScrollReindex()), es, copy_params(raw=raw, **{"scroll-keep-alive": "1ms"}))
    assert result["success"] is False and result["error-type"] == "ScrollFailed"
    description = result["error-description"]
    assert description.startswith("slice 0 of [src]: the scroll context is gone (")
    assert description.endswith("): did its keep-alive (1ms) run out between pages?")
    assert ("DELETE", "/_search/scroll") in [c[:2] for c in es.calls]  # the context is freed (or found gone) all the same


def test_a_scroll_error_that_is_not_an_expiry_is_not_called_one():
    es = scroll_es(FIRST, count=4)
    es.script[("POST", "/_search/scroll")] = [es_error(500, "circuit_breaking_exception", "[parent] Data too large")]
    result, _, _ = call_runner(reporting_failures(SlicedScrollReindex()), es, copy_params())
    assert result["error-description"] == (
        "slice 0 of [src]: scroll failed (HTTP 500: circuit_breaking_exception: [parent] Data too large)"
    )


def test_the_last_empty_page_of_a_slice_read_in_full_ends_it():
    es = scroll_es(FIRST, count=2)
    es.script[("POST", "/src/_search")] = [FIRST.replace(b'"value":4', b'"value":2')]
    result, _, _ = call_runner(reporting_failures(SlicedScrollReindex()), es, copy_params())
    assert result["success"] is True and result["weight"] == 2


def test_raw_mode_keeps_each_documents_routing():
    page = b'{"_scroll_id":"s1","hits":{"hits":[{"_id":"1","_routing":"u7","_source":{"a":1}},{"_id":"2","_source":{"b":2}}]}}'
    scroll_id, actions, sources, *_ = raw_page(page)
    assert actions == [b'{"index":{"_id":"1","routing":"u7"}}', b'{"index":{"_id":"2"}}']
    es = scroll_es(page)
    result, _, _ = call_runner(SlicedScrollReindex(), es, copy_params())
    bulk = next(c for c in es.calls if c[1] == "/dst/_bulk")[3]
    assert bulk == b'{"index":{"_id":"1","routing":"u7"}}\n{"a":1}\n{"index":{"_id":"2"}}\n{"b":2}\n'
    assert "_routing" in next(c for c in es.calls if c[1] == "/src/_search")[2]["filter_path"]


def test_decoded_mode_keeps_routing_too():
    from ingestlab.runners.writing.scroll_hits import decoded_page

    _, actions, *_ = decoded_page({"hits": {"hits": [{"_id": "1", "_routing": "u7", "_source": {}}]}})
    assert orjson.loads(actions[0]) == {"index": {"_id": "1", "routing": "u7"}}


@pytest.mark.parametrize("clients,reports", [(1, True), (3, False)])
def test_throughput_is_left_to_rally_when_several_clients_copy(clients, reports):
    page = b'{"_scroll_id":"s1","hits":{"hits":[{"_id":"1","_source":{"a":1}},{"_id":"2","_source":{"b":2}}]}}'
    result, _, _ = call_runner(SlicedScrollReindex(), scroll_es(page), copy_params(clients))
    assert ("throughput" in result) is reports and result["weight"] == 2


def test_backoff_is_jittered_within_its_bounds():
    backoff = Backoff(initial_seconds=0.1, max_seconds=5, max_retries=12)
    delays = [backoff.delay(3) for _ in range(200)]
    assert all(0.4 <= d <= 0.8 for d in delays) and len(set(delays)) > 150
    assert all(2.5 <= backoff.delay(10) <= 5 for _ in range(50))
