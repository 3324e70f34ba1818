"""Study 5's disk check: what each track's race needs at the sizes asked, and a clear refusal before any node starts."""

from collections import namedtuple

import pytest

from ingestlab.errors import IngestlabError
from ingestlab.studies import corpora, corpora_room, corpora_scaling

Usage = namedtuple("Usage", "total used free")
GB = 10**9


def _full(*tracks, **extra):
    return {t.name: {**t.full_size, **extra.get(t.name, {})} for t in tracks}


def _made(home, track, name):
    """A corpus file in the data cache of the Rally home ``home``, where the pack makes it."""
    from ingestlab.rally.home import data_cache

    (data_cache(home) / track).mkdir(parents=True, exist_ok=True)
    (data_cache(home) / track / name).write_bytes(b"")


def test_needs_count_copies_ingest_percentage_and_corpus_files_still_to_make(tmp_path):
    _made(tmp_path, "geonames", "geonames-11396503.json")  # made already
    tracks = (corpora.EVENTDATA, corpora.GEONAMES, corpora.PMC)
    one, three = (corpora_room.needs(tracks, _full(*tracks), n, tmp_path) for n in (1, 3))
    by = {n.track: n for n in three}
    assert [n.copies for n in one] == [1, 1, 1] and [n.copies for n in three] == [2, 2, 2]
    assert by["pmc"].index_bytes == round(574_199 * 32_725 * 2) and by["pmc"].file_bytes == round(574_199 * 30_031)
    assert {n.track: n for n in one}["pmc"].index_bytes == round(574_199 * 45_650)  # per copy as measured per node count
    assert by["geonames"].file_bytes == 0 and by["eventdata"].file_bytes == 0  # cached; generated on the fly
    half = corpora_room.needs([corpora.PMC], _full(corpora.PMC, pmc={"ingest_percentage": 50, "replica_sweep": [0, 2]}), 3, tmp_path)[0]
    assert half.copies == 3 and half.index_bytes == round(574_199 / 2 * 32_725 * 3)
    supplied = corpora_room.needs([corpora.PMC], _full(corpora.PMC, pmc={"corpus_file": "/x/documents.json"}), 1, tmp_path)[0]
    assert supplied.file_bytes == 0
    with pytest.raises(IngestlabError, match=r"pmc\.pmc_docs must be a whole number"):
        corpora_room.needs([corpora.PMC], _full(corpora.PMC, pmc={"pmc_docs": "many"}), 1, tmp_path)
    with pytest.raises(IngestlabError, match=r"pmc\.replica_sweep .* must be numbers, not \['one'\]"):
        corpora_room.needs([corpora.PMC], _full(corpora.PMC, pmc={"replica_sweep": ["one"]}), 3, tmp_path)
    assert corpora_room.needs([corpora.PMC], _full(corpora.PMC, pmc={"replica_sweep": 2}), 3, tmp_path)[0].copies == 3


def test_the_check_names_each_need_the_room_and_the_parameter_to_lower(tmp_path, monkeypatch):
    """pmc at Rally's size on three nodes (two copies, ~38 GB) and its corpus file still to make (~17 GB) against this
    machine's disk on the day (44 GB free of 252 GB): refused, with the flood stage's 5 % not counted as room."""
    monkeypatch.setattr(corpora_room.shutil, "disk_usage", lambda p: Usage(252 * GB, 208 * GB, 44 * GB))
    tracks = (corpora.EVENTDATA, corpora.PMC)
    needs = corpora_room.needs(tracks, _full(*tracks), 3, tmp_path)
    with pytest.raises(IngestlabError) as e:
        corpora_room.check(needs, tmp_path / "clusters", tmp_path)
    text = str(e.value)
    assert "pmc on 3 nodes: 574,199 docs (pmc.pmc_docs), 2 copies of its index ≈ 37.6 GB, its corpus file to make ≈ 17.2 GB" in text
    assert "needs ≈ 54.8 GB, has 44.0 GB free, 31.4 GB of it before Elasticsearch's flood stage (95% full)" in text
    assert "lower pmc.pmc_docs with --track-param" in text and "--skip-disk-check" in text
    # the races run one after another on emptied nodes: only the largest index counts, with every file still to make
    _made(tmp_path, "pmc", "pmc-400000.json")
    small = corpora_room.needs(tracks, _full(*tracks, pmc={"pmc_docs": 400_000}), 3, tmp_path)
    assert sum(n.index_bytes for n in small) > 31.4 * GB > max(n.index_bytes for n in small)
    corpora_room.check(small, tmp_path / "clusters", tmp_path)
    # both clusters: a corpus file still to make is made once, not once per cluster
    both = [
        n for nodes in (1, 3) for n in corpora_room.needs((corpora.PMC,), _full(corpora.PMC, pmc={"pmc_docs": 200_000}), nodes, tmp_path)
    ]
    monkeypatch.setattr(corpora_room.shutil, "disk_usage", lambda p: Usage(100 * GB, 70 * GB, 30 * GB))  # 25 GB of room
    assert 200_000 * 32_725 * 2 + 200_000 * 30_031 < 25 * GB < 200_000 * 32_725 * 2 + 2 * 200_000 * 30_031
    corpora_room.check(both, tmp_path / "clusters", tmp_path)


def test_pmc_at_full_size_on_three_nodes_fits_the_disk_it_raced_on(tmp_path, monkeypatch):
    """The three-node full-size pmc race fitted (2026-11-26T025454: 55.9 GiB free before it, 20.9 GiB at its lowest, of
    252 GB): the check lets it race, its copies counted at the three-node figure, not the one-node race's 45.6 KB
    (two copies 52.4 GB, over the 47.4 GB of room below the flood stage)."""
    monkeypatch.setattr(corpora_room.shutil, "disk_usage", lambda p: Usage(252 * GB, 192 * GB, round(55.9 * 2**30)))
    _made(tmp_path, "pmc", "pmc-574199.json")
    three = corpora_room.needs((corpora.PMC,), _full(corpora.PMC), 3, tmp_path)
    assert three[0].index_bytes == round(574_199 * 32_725 * 2) < 47 * GB < 574_199 * 45_650 * 2
    corpora_room.check(three, tmp_path / "clusters", tmp_path)
    # a node count not measured takes the largest figure measured
    assert corpora_room.needs((corpora.PMC,), _full(corpora.PMC), 2, tmp_path)[0].index_bytes == round(574_199 * 45_650 * 2)


def test_scaling_refuses_before_any_node_starts_and_can_be_told_to_race_anyway(tmp_path, monkeypatch):
    from ingestlab.cluster import lifecycle

    monkeypatch.setenv("INGESTLAB_HOME", str(tmp_path))
    monkeypatch.setattr(corpora_room.shutil, "disk_usage", lambda p: Usage(100 * GB, 99 * GB, 1 * GB))
    started = []
    monkeypatch.setattr(lifecycle, "running", lambda *a, **k: started.append(a) or (_ for _ in ()).throw(RuntimeError("node started")))
    with pytest.raises(IngestlabError, match="not enough disk"):
        corpora_scaling.scaling((corpora.GEONAMES,), full_size=True, log=lambda *_: None)
    assert not started
    with pytest.raises(RuntimeError, match="node started"):
        corpora_scaling.scaling((corpora.GEONAMES,), full_size=True, skip_disk_check=True, log=lambda *_: None)
    with pytest.raises(RuntimeError, match="node started"):  # test mode's corpora are small: not checked
        corpora_scaling.scaling((corpora.GEONAMES,), full_size=True, test_mode=True, log=lambda *_: None)


def test_indices_and_corpus_files_on_different_disks_are_counted_apart(tmp_path, monkeypatch):
    rooms = {"clusters": (1, 60 * GB, 65 * GB), "data": (2, 10 * GB, 15 * GB)}  # (device, room, free)
    monkeypatch.setattr(corpora_room, "_usable", lambda p: rooms[p.name])
    need = corpora_room.needs((corpora.PMC,), _full(corpora.PMC), 3, tmp_path)  # index 52.4 GB, file 17.2 GB
    with pytest.raises(IngestlabError) as e:
        corpora_room.check(need, tmp_path / "clusters", tmp_path / "data")
    assert f"{tmp_path / 'data'}: needs ≈ 17.2 GB" in str(e.value) and "clusters: needs" not in str(e.value)
    rooms["data"] = (2, 20 * GB, 25 * GB)
    corpora_room.check(need, tmp_path / "clusters", tmp_path / "data")


def test_a_corpus_file_in_the_tracks_own_folder_counts_as_made(tmp_path, monkeypatch):
    """Rally looks in the track's folder before its data cache (a user may have put Rally's own file there)."""
    from ingestlab import paths

    monkeypatch.setattr(paths, "TRACKS_DIR", tmp_path / "tracks")
    home = tmp_path / "home"
    assert corpora_room.needs((corpora.PMC,), _full(corpora.PMC), 1, home)[0].file_bytes == round(574_199 * 30_031)
    (tmp_path / "tracks" / "pmc").mkdir(parents=True)
    (tmp_path / "tracks" / "pmc" / "pmc-574199.json").write_bytes(b"")
    assert corpora_room.needs((corpora.PMC,), _full(corpora.PMC), 1, home)[0].file_bytes == 0
