"""``ingest-percentage`` and the 429 retry parameter, as every writer and count check reads them: the eventdata
source, the pack's corpus writers, and the count check after Rally's own bulk."""

import pytest

from ingestlab.runners.param_sources.corpus_load import CorpusLoadParamSource
from ingestlab.runners.param_sources.eventdata import EventdataParamSource
from ingestlab.runners.param_sources.index_lifecycle import IndexLifecycleParamSource
from ingestlab.runners.utils.params import ParameterError
from ingestlab.runners.utils.track_lookup import rally_bulk_documents
from tests.unit.runners.fake_track import drain, make_track


def eventdata_track():
    from types import SimpleNamespace

    return SimpleNamespace(indices=[SimpleNamespace(name="eventdata", body={})], corpora=[])


def written(source, clients):
    return sum(r["bulk-size"] for i in range(clients) for r in drain(source.partition(i, clients)))


@pytest.mark.parametrize("docs,clients,bulk,percentage", [(20_000, 8, 1000, 50), (25, 2, 10, 100), (1003, 3, 100, 33.3), (7, 4, 5, 10)])
def test_eventdata_writes_what_the_count_check_expects(docs, clients, bulk, percentage):
    params = {"docs": docs, "bulk-size": bulk, "ingest-percentage": percentage}
    sent = written(EventdataParamSource(eventdata_track(), params), clients)
    check = IndexLifecycleParamSource(
        eventdata_track(), {"doc-count": docs, "bulk-size": bulk, "writer-clients": clients, "ingest-percentage": percentage}
    ).params()
    assert sent == check["expected"] == rally_bulk_documents(docs, clients, bulk, percentage)


def test_half_of_eventdata_is_half_where_the_bulks_divide_evenly():
    assert written(EventdataParamSource(eventdata_track(), {"docs": 20_000, "bulk-size": 1000, "ingest-percentage": 50}), 2) == 10_000
    # as with Rally's bulk, the percentage is of each client's bulks, rounded up: 3 bulks of 2,500 docs → 2
    assert written(EventdataParamSource(eventdata_track(), {"docs": 20_000, "bulk-size": 1000, "ingest-percentage": 50}), 8) == 16_000


def test_the_429_retries_are_read_under_the_name_the_track_passes_and_rally_reads():
    params = drain(EventdataParamSource(eventdata_track(), {"docs": 5, "retries_on_429": 3}).partition(0, 1))[0]
    assert params["retries_on_429"] == 3
    with pytest.raises(ParameterError, match=r"\[retries_on_429\] must be a whole number"):
        EventdataParamSource(eventdata_track(), {"docs": 5, "retries_on_429": "many"})


def test_rally_bulk_documents_follows_rallys_own_split():
    """Rally 2.13's bulk: client borders round(total / clients × i); of its bulks the first ceil(bulks × p / 100)."""
    assert rally_bulk_documents(20_000, 8, 5000, 50) == 8 * 2500  # 2,500 docs a client: one short bulk each
    assert rally_bulk_documents(234_908, 8, 5000, 100) == 234_908
    assert rally_bulk_documents(20_000, 1, 5000, 50) == 10_000


@pytest.mark.parametrize("percentage,expected", [(100, 30), (50, 15), (10, 3), (33.4, 10)])
def test_corpus_writers_and_their_checks_take_the_same_part(tmp_path, percentage, expected):
    track = make_track(tmp_path, docs=30)
    load = CorpusLoadParamSource(track, {"bulk-size": 4, "ingest-percentage": percentage})
    sent = sum(p["batch"].size for i in range(3) for p in drain(load.partition(i, 3)))
    check = IndexLifecycleParamSource(track, {"ingest-percentage": percentage}).params()["expected"]
    assert sent == check == expected


@pytest.mark.parametrize("value", [0, -5, 101, "half", True])
def test_a_bad_percentage_names_the_parameter(tmp_path, value):
    with pytest.raises(ParameterError, match=r"\[ingest-percentage\] must be a number in \(0, 100\]"):
        CorpusLoadParamSource(make_track(tmp_path), {"ingest-percentage": value})
