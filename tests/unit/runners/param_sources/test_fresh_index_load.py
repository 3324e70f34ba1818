import pytest

from ingestlab.runners.param_sources.fresh_index_load import FreshIndexLoadParamSource
from ingestlab.runners.utils.params import ParameterError
from tests.unit.runners.fake_track import make_track


def test_bulk_params_hold_prepared_batches(tmp_path):
    source = FreshIndexLoadParamSource(make_track(tmp_path), {"method": "bulk", "bulk-size": 7})
    params = source.partition(0, 1).params()
    assert params["doc-count"] == 30 and params["method"] == "bulk"
    assert [b.size for b in params["batches"]] == [7, 7, 7, 7, 2]
    assert params["index"] == "posts" and params["index-body"] == {"settings": {}}
    assert params["refresh"] is None
    assert source.params() is params  # prepared once


def test_index_params_hold_documents_and_refresh(tmp_path):
    params = FreshIndexLoadParamSource(make_track(tmp_path), {"method": "index", "refresh": "wait_for", "doc-count": 10}).params()
    assert len(params["documents"]) == 10 and params["refresh"] == "wait_for"


def test_doc_count_is_capped_at_what_the_corpus_holds_only_in_test_mode(tmp_path):
    # --test-mode swaps in the -1k file: a larger doc-count must not fail
    params = FreshIndexLoadParamSource(make_track(tmp_path, file_name="posts-1k.json"), {"doc-count": 5000}).params()
    assert params["doc-count"] == 30
    with pytest.raises(ParameterError, match=r"doc-count 5000 is more than the 30 documents of posts.json"):
        FreshIndexLoadParamSource(make_track(tmp_path), {"doc-count": 5000})


@pytest.mark.parametrize(
    "params,message",
    [
        ({"method": "scroll"}, r"\[method\] must be one of"),
        ({"bulk-size": 0}, r"\[bulk-size\] must be a positive integer"),
        ({"bulk-size": "ten"}, r"\[bulk-size\] must be a positive integer"),
        ({"refresh": "sometimes"}, r"\[refresh\] must be one of"),
        ({"index": "nope"}, r"no index named \[nope\]"),
    ],
)
def test_bad_params_name_the_parameter(tmp_path, params, message):
    with pytest.raises(ParameterError, match=message):
        FreshIndexLoadParamSource(make_track(tmp_path), params)


def test_a_corpus_larger_than_the_hold_limit_streams_each_run(tmp_path, monkeypatch):
    from ingestlab.runners.writing import corpus_share

    monkeypatch.setattr(corpus_share, "HOLD_BYTES", 100)
    params = FreshIndexLoadParamSource(make_track(tmp_path), {"method": "bulk", "bulk-size": 7}).params()
    assert isinstance(params["batches"], corpus_share.Streamed)
    first, second = [b.documents for b in params["batches"]], [b.documents for b in params["batches"]]
    assert first == second and sum(map(len, first)) == 30  # every run reads the same documents again
    index = FreshIndexLoadParamSource(make_track(tmp_path), {"method": "index"}).params()
    assert list(index["documents"]) == list(index["documents"]) and len(list(index["documents"])) == 30
