import pytest

from ingestlab.runners.bulk_bodies import Batch
from ingestlab.runners.corpus_load import CorpusLoad
from ingestlab.runners.corpus_load_source import CorpusLoadParamSource, share
from ingestlab.runners.index_lifecycle import CheckDocCount, DocumentsLost, IndexLifecycleParamSource, RecreateIndex
from ingestlab.runners.indexing import Backoff
from ingestlab.runners.params import ParameterError
from tests.unit.fake_es import FakeEs, api_error, call_runner
from tests.unit.fake_track import make_track
from tests.unit.param_sources import drain

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


def test_bulk_size_one_means_the_index_api_and_doc_count_is_capped(tmp_path):
    source = CorpusLoadParamSource(make_track(tmp_path, docs=5), {"bulk-size": 1, "doc-count": 50})
    requests = drain(source.partition(0, 1))
    assert len(requests) == 5 and not any(p["bulk"] for p in requests)


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
    single = call(CorpusLoad(), FakeEs(index_errors=[api_error(429)]), {"index": "dvf", "batch": Batch.of([b'{"n":1}']), "bulk": False, "backoff": NO_WAIT})
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
    assert [c[0] for c in es.calls] == ["DELETE", "PUT", "GET"] and es.calls[1][3] == {"settings": {}}
