import pytest

from ingestlab.runners.operations.corpus_load import CorpusLoad
from ingestlab.runners.operations.index_lifecycle import CheckDocCount, RecreateIndex
from ingestlab.runners.param_sources.corpus_load import CorpusLoadParamSource, share
from ingestlab.runners.param_sources.index_lifecycle import IndexLifecycleParamSource
from ingestlab.runners.utils.params import ParameterError
from ingestlab.runners.writing.bulk_bodies import Batch
from ingestlab.runners.writing.indexing import Backoff
from ingestlab.runners.writing.indices import DocumentsLost
from tests.unit.runners.fake_es import FakeEs, api_error, call_runner
from tests.unit.runners.fake_track import drain, make_track

NO_WAIT = Backoff(initial_seconds=0, max_seconds=0, max_retries=3)


def call(runner, es, params):
    return call_runner(runner, es, params)[0]


@pytest.mark.parametrize("total,parts", [(10, 3), (3, 4), (1000, 16), (0, 2)])
def test_shares_cover_everything_once(total, parts):
    spans = [share(total, i, parts) for i in range(parts)]
    assert spans[0][0] == 0 and spans[-1][1] == total
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert max(e - s for s, e in spans) - min(e - s for s, e in spans) <= 1


def test_clients_split_the_corpus_into_bulks(tmp_path):
    source = CorpusLoadParamSource(make_track(tmp_path, docs=25), {"bulk-size": 4})
    requests = [drain(source.partition(i, 3)) for i in range(3)]
    assert [[p["batch"].size for p in r] for r in requests] == [[4, 4, 1], [4, 4], [4, 4]]
    sent = [doc for r in requests for p in r for doc in p["batch"].documents]
    assert sent == [b'{"n":%d}' % i for i in range(25)]
    assert all(p["bulk"] for r in requests for p in r)


def test_bulk_size_one_means_the_index_api_and_doc_count_is_capped_only_by_test_mode(tmp_path):
    source = CorpusLoadParamSource(make_track(tmp_path, docs=5, file_name="posts-1k.json"), {"bulk-size": 1, "doc-count": 50})
    requests = drain(source.partition(0, 1))
    assert len(requests) == 5 and not any(p["bulk"] for p in requests)
    with pytest.raises(ParameterError, match=r"doc-count 50 is more than the 5 documents of posts.json"):
        CorpusLoadParamSource(make_track(tmp_path, docs=5), {"bulk-size": 1, "doc-count": 50})


def test_a_track_without_corpus_is_a_clear_error(tmp_path):
    track = make_track(tmp_path)
    track.corpora = []
    with pytest.raises(ParameterError, match="the track has no corpus"):
        CorpusLoadParamSource(track, {}, operation_name="load-bulk-10")


def test_runner_sends_one_request_and_reports_its_documents():
    es = FakeEs()
    batch = Batch.of([b'{"n":1}', b'{"n":2}'])
    result = call(CorpusLoad(), es, {"index": "dvf", "batch": batch, "bulk": True, "backoff": NO_WAIT})
    assert result["weight"] == 2 and result["unit"] == "docs" and es.paths() == ["/dvf/_bulk"]
    single = call(
        CorpusLoad(),
        FakeEs(index_errors=[api_error(429)]),
        {"index": "dvf", "batch": Batch.of([b'{"n":1}']), "bulk": False, "backoff": NO_WAIT},
    )
    assert single["weight"] == 1 and single["retries"] == 1


def test_check_doc_count_fails_when_documents_are_missing(tmp_path):
    params = IndexLifecycleParamSource(make_track(tmp_path, docs=30), {"doc-count": 20}).params()
    assert params["expected"] == 20 and params["index"] == "posts"
    assert call(CheckDocCount(), FakeEs(count=20), params)["documents"] == 20
    with pytest.raises(DocumentsLost, match=r"\[posts\] holds 19 documents; the task before wrote 20"):
        call(CheckDocCount(), FakeEs(count=19), params)


def test_recreate_index_deletes_creates_and_waits(tmp_path):
    es = FakeEs()
    params = IndexLifecycleParamSource(make_track(tmp_path), {}).params()
    call(RecreateIndex(), es, params)
    assert [c[0] for c in es.calls] == ["DELETE", "PUT", "GET", "GET"] and es.calls[1][3] == {"settings": {}}
    # one data node cannot hold the default replica: wait for yellow, not for a green that never comes
    assert es.calls[3][2]["wait_for_status"] == "yellow"


@pytest.mark.parametrize(
    "settings, copies",
    [
        ({}, 2),
        ({"index.number_of_replicas": 0}, 1),
        ({"number_of_replicas": "1"}, 2),
        ({"index": {"number_of_replicas": 2}}, 3),
    ],
)
def test_replica_count_is_read_however_the_settings_spell_it(settings, copies):
    from ingestlab.runners.writing.indices import replicas

    assert replicas({"settings": settings}) + 1 == copies


def test_a_refused_document_is_a_failed_request_that_rally_can_count_or_abort_on(tmp_path, monkeypatch):
    """Wrapped as Rally registers it: success False, the error described, and only acknowledged docs weighed.
    The runner stats keep what was acknowledged, with ids, and the error."""
    from ingestlab.runners.utils import runner_stats
    from ingestlab.runners.utils.failures import reporting_failures

    stats_file = tmp_path / "stats.jsonl"
    monkeypatch.setenv(runner_stats.VARIABLE, str(stats_file))
    refused = {
        "errors": True,
        "items": [
            {"index": {"status": 201, "_id": "a"}},
            {"index": {"status": 201, "_id": "b"}},
            {"index": {"status": 400, "error": {"type": "mapper_parsing_exception", "reason": "bad"}}},
        ],
    }
    batch = Batch.of([b'{"n":1}', b'{"n":2}', b'{"n":3}'])
    result = call(
        reporting_failures(CorpusLoad()),
        FakeEs(bulk_responses=[refused]),
        {"index": "dvf", "batch": batch, "bulk": True, "backoff": NO_WAIT, "operation": "load"},
    )
    assert result["success"] is False and result["weight"] == 2 and result["error-type"] == "IndexingFailed"
    assert "mapper_parsing_exception" in result["error-description"]
    [entry] = runner_stats.read(stats_file)
    assert entry["acknowledged"] == 2 and entry["ids"] == ["a", "b"] and entry["task"] == "load" and "IndexingFailed" in entry["error"]


def test_more_documents_than_written_are_called_duplicates(tmp_path):
    params = IndexLifecycleParamSource(make_track(tmp_path), {"doc-count": 20}).params()
    with pytest.raises(
        DocumentsLost, match="holds 23 documents; the task before wrote 20: 3 more than written: documents without ids were written twice"
    ):
        call(CheckDocCount(), FakeEs(count=23), params)


def test_each_client_reads_only_its_own_share_lazily(tmp_path):
    """A worker never holds the corpus: client 0 of 2 finishes without reading client 1's half (whose bad line would
    stop it), and client 1 starts at its own first line."""
    track = make_track(tmp_path, docs=20)
    f = tmp_path / "posts.json"
    lines = f.read_bytes().splitlines(keepends=True)
    lines[15] = b'{"n":15\n'
    f.write_bytes(b"".join(lines))
    source = CorpusLoadParamSource(track, {"bulk-size": 4})
    first = drain(source.partition(0, 2))
    assert [d for p in first for d in p["batch"].documents] == [b'{"n":%d}' % i for i in range(10)]
    from ingestlab.runners.writing.corpus_reader import CorpusError

    with pytest.raises(CorpusError, match=r"posts.json:16: not valid JSON"):  # its window starts at line 11
        drain(source.partition(1, 2))
    lines[15] = b'{"n":15}\n'
    f.write_bytes(b"".join(lines))
    assert source.partition(1, 2).params()["batch"].documents == tuple(b'{"n":%d}' % i for i in range(10, 14))


def test_bodies_are_built_a_window_ahead_not_for_the_whole_share(tmp_path, monkeypatch):
    from ingestlab.runners.writing import corpus_reader, corpus_share

    monkeypatch.setattr(corpus_share, "WINDOW_DOCS", 8)
    reads = []
    real = corpus_reader.chunks

    def counted(*args, **kwargs):
        for chunk in real(*args, **kwargs):
            reads.append(len(chunk))
            yield chunk

    monkeypatch.setattr(corpus_share, "chunks", counted)
    client = CorpusLoadParamSource(make_track(tmp_path, docs=100), {"bulk-size": 4}).partition(0, 1)
    client.params()
    assert reads == [8]  # one window of two bulks, not 100 documents
    assert client.percent_completed == pytest.approx(1 / 25)
