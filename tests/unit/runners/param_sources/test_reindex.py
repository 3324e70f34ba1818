"""Pieces of the reindex study: the shared parameter source, action-line corpora, re-sending with ids."""

import pytest

from ingestlab.runners.operations.sliced_scroll_reindex import Options
from ingestlab.runners.param_sources.corpus_load import CorpusLoadParamSource
from ingestlab.runners.param_sources.reindex import ReindexParamSource
from ingestlab.runners.utils.params import ParameterError
from ingestlab.runners.writing.bulk_bodies import Batch
from tests.unit.runners.fake_track import two_index_track


def test_reindex_params_recreate_dest_with_its_own_shard_count(tmp_path):
    track = two_index_track(tmp_path)
    params = ReindexParamSource(track, {"source-index": "src", "dest-index": "dst", "dest-shards": 8, "raw": True}).params()
    assert params["dest-body"]["settings"]["index.number_of_shards"] == 8
    assert track.indices[1].body["settings"]["index.number_of_shards"] == 4  # the track's body is not changed
    assert params["raw"] is True and params["backoff"].max_retries == 12
    with pytest.raises(ParameterError, match=r"needs \[source-index\] and \[dest-index\]"):
        ReindexParamSource(track, {"source-index": "src"})


def test_runner_options_are_checked():
    assert Options.parse({"slices": "auto"}).slices == "auto"
    assert Options.parse({"slices": 3, "bulk-workers": 2}).bulk_workers == 2
    with pytest.raises(ParameterError, match=r"\[raw\] must be true or false"):
        Options.parse({"raw": "yes"})
    with pytest.raises(ParameterError, match=r"\[slices\] must be a positive integer"):
        Options.parse({"slices": 0})


def test_scale_out_options_are_checked():
    opts = Options.parse({"node": "driver-host", "dest": "existing"})
    assert (opts.node, opts.dest) == ("driver-host", "existing")
    assert (Options.parse({}).node, Options.parse({}).dest) == ("any", "recreate")
    with pytest.raises(ParameterError, match=r"\[node\] must be one of any, driver-host, got 'local'"):
        Options.parse({"node": "local"})
    with pytest.raises(ParameterError, match=r"\[dest\] must be one of recreate, existing"):
        Options.parse({"dest": "keep"})


def test_recreate_index_can_override_the_shard_count(tmp_path):
    from ingestlab.runners.param_sources.index_lifecycle import IndexLifecycleParamSource

    track = two_index_track(tmp_path)
    params = IndexLifecycleParamSource(track, {"index": "dst", "number-of-shards": 8}).params()
    assert params["index-body"]["settings"]["index.number_of_shards"] == 8
    assert track.indices[1].body["settings"]["index.number_of_shards"] == 4
    assert IndexLifecycleParamSource(track, {"index": "dst"}).params()["index-body"]["settings"]["index.number_of_shards"] == 4


def test_action_line_corpora_load_with_their_ids(tmp_path):
    source = CorpusLoadParamSource(two_index_track(tmp_path), {"index": "src", "bulk-size": 3})
    batch = source.partition(0, 1).params()["batch"]
    assert batch.body == b'{"index":{"_id":"0"}}\n{"n":0}\n{"index":{"_id":"1"}}\n{"n":1}\n{"index":{"_id":"2"}}\n{"n":2}\n'


def test_resending_part_of_a_batch_keeps_each_documents_action():
    batch = Batch.with_actions([b'{"index":{"_id":"a"}}', b'{"index":{"_id":"b"}}', b'{"index":{"_id":"c"}}'], [b"{}", b'{"x":1}', b"{}"])
    assert batch.subset([1]).body == b'{"index":{"_id":"b"}}\n{"x":1}\n'
    assert Batch.of([b"{}", b'{"y":2}']).subset([1]).body == b'{"index":{}}\n{"y":2}\n'
