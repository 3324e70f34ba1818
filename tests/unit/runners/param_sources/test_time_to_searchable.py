import orjson
import pytest

from ingestlab.runners.param_sources.time_to_searchable import TimeToSearchableParamSource, with_probe
from ingestlab.runners.utils.params import ParameterError
from tests.unit.runners.fake_track import make_track


def test_each_call_writes_a_new_probe_unique_per_client(tmp_path):
    source = TimeToSearchableParamSource(make_track(tmp_path), {"refresh": "wait_for"}, operation_name="op")
    first, second = source.partition(0, 2), source.partition(1, 2)
    a, b, c = first.params(), first.params(), second.params()
    assert [a["probe"], b["probe"], c["probe"]] == ["op-0-0", "op-0-1", "op-1-0"]
    assert orjson.loads(a["documents"][0]) == {"n": 0, "probe": "op-0-0"}
    assert orjson.loads(b["documents"][0]) == {"n": 1, "probe": "op-0-1"}
    assert a["refresh"] == "wait_for" and a["bulk"] is False and a["index"] == "posts"


def test_bulk_probes_cycle_through_the_corpus(tmp_path):
    source = TimeToSearchableParamSource(make_track(tmp_path, docs=5), {"method": "bulk", "bulk-size": 3}).partition(0, 1)
    first, second = source.params(), source.params()
    assert first["bulk"] is True
    assert [orjson.loads(d)["n"] for d in first["documents"] + second["documents"]] == [0, 1, 2, 3, 4, 0]


def test_phase_delay_is_random_within_the_jitter_and_repeatable(tmp_path):
    params = {"phase-jitter-ms": 1000, "refresh": "none", "poll-interval-ms": 2}
    delays = [TimeToSearchableParamSource(make_track(tmp_path), params).partition(0, 1) for _ in range(2)]
    runs = [[s.params()["phase-delay-s"] for _ in range(50)] for s in delays]
    assert runs[0] == runs[1]
    assert all(0 <= d <= 1.0 for d in runs[0]) and max(runs[0]) > 0.5 > min(runs[0])
    first = delays[0].params()
    assert first["refresh"] is None and first["poll-interval-s"] == 0.002


def test_with_probe_keeps_the_document():
    assert orjson.loads(with_probe(b'{"message":"\xe6\x97\xa5\xe6\x9c\xac"}', "x")) == {"message": "日本", "probe": "x"}


@pytest.mark.parametrize(
    "params,message",
    [
        ({"refresh": "later"}, r"\[refresh\] must be one of"),
        ({"method": "scroll"}, r"\[method\] must be one of"),
        ({"phase-jitter-ms": -1}, r"\[phase-jitter-ms\] must be a number >= 0"),
        ({"poll-interval-ms": "soon"}, r"\[poll-interval-ms\] must be a number >= 0"),
        ({"method": "bulk", "bulk-size": 0}, r"\[bulk-size\] must be a positive integer"),
    ],
)
def test_bad_params_name_the_parameter(tmp_path, params, message):
    with pytest.raises(ParameterError, match=message):
        TimeToSearchableParamSource(make_track(tmp_path), params)
