"""`python -m devtools.bench sessions --sum-of`: sessions' counts add where no race is in two of them; 1 race a side
only over sessions judged against floors of one kind; another setup, a race counted twice or a missing file is refused
in one line."""

import json

import pytest

from devtools.bench import sessions
from ingestlab import machine
from ingestlab.errors import IngestlabError


def _file(results, stamp, rates, races, floor_of=None, task="bulk-1000", version="7.17.29"):
    f = results / "calibration" / stamp / "results.json"
    f.parent.mkdir(parents=True)
    f.write_text(
        json.dumps(
            {
                "format": 2,
                "stamp": stamp,
                "track": "posts",
                "challenge": "bulk",
                "task": task,
                "tasks": {task: {"sigma": 0.08, "races": len(races)}},
                "machine": machine.describe(),
                "versions": {"engine": "elasticsearch", "version": version},
                "medians": [1.0] * len(races),
                "race_ids": races,
                "rates": rates,
                **({"floor_of": floor_of} if floor_of else {}),
            }
        )
    )


def _rates(one, three, ab=None):
    out = {
        "1": {"false_alarms": one, "detect_5": [0, one[1]], "detect_10": [1, one[1]]},
        "3": {"false_alarms": three, "detect_5": [1, three[1]], "detect_10": [5, three[1]]},
    }
    if ab:
        out[str(ab[0])] = {"false_alarms": [0, ab[1]], "detect_5": [1, ab[1]], "detect_10": [ab[1], ab[1]]}
    return out


def test_counts_add_and_one_race_a_side_only_over_floors_of_one_kind(tmp_path, monkeypatch):
    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path))
    _file(tmp_path, "A", _rates([3, 120], [1, 40], (12, 10)), ["a1", "a2"], floor_of="X")
    _file(tmp_path, "B", _rates([12, 120], [3, 40], (17, 7)), ["b1"], floor_of=["X", "Y"])
    _file(tmp_path, "C", _rates([0, 120], [0, 40]), ["c1"], floor_of=["X", "Y", "Z"])
    mixed = sessions.total(["A", "B", "C"])
    assert "1" not in mixed["rows"] and "judged against different floors (A: one earlier session's races; B:" in mixed["conditions"]
    assert mixed["rows"]["3"]["false_alarms"] == [4, 120] and mixed["rows"]["3"]["detect_10"] == [15, 120]
    assert mixed["rows"]["ab"]["detect_10"] == [17, 17] and "12 a side in A, 17 a side in B, none a side in C" in mixed["conditions"]
    spanning = sessions.total(["B", "C"])
    assert (
        spanning["rows"]["1"]["false_alarms"] == [12, 240]
        and spanning["command"] == "python -m devtools.bench sessions --sum-of B --sum-of C"
    )
    assert "| 3 | 80 | 3/80 (4%; 95 % interval 1%–11%) |" in sessions.markdown(spanning)


def test_a_race_counted_twice_another_setup_or_a_missing_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("INGESTLAB_RESULTS", str(tmp_path))
    _file(tmp_path, "A", _rates([3, 120], [1, 40]), ["a1", "a2"])
    _file(tmp_path, "J", _rates([0, 120], [1, 40]), ["a2"], floor_of=["X", "Y"])  # A's races judged again
    _file(tmp_path, "V", _rates([0, 120], [1, 40]), ["v1"], version="8.8.2")
    with pytest.raises(IngestlabError, match="--sum-of J: race a2 is also one of A's: a session's races count once"):
        sessions.total(["A", "J"])
    with pytest.raises(IngestlabError, match="--sum-of V: not the same setup as A: it raced Elasticsearch 8.8.2, A 7.17.29"):
        sessions.total(["A", "V"])
    with pytest.raises(IngestlabError, match="--sum-of G: no calibration file"):
        sessions.total(["A", "G"])
    with pytest.raises(IngestlabError, match="name two calibrations or more"):
        sessions.total(["A", "A"])
