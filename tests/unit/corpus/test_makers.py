"""Generated corpora: made once, deterministic for their seed, atomic, and checked against their entry."""

import multiprocessing
import time
from pathlib import Path

import orjson
import pytest

from ingestlab.corpus import makers
from ingestlab.corpus.files import read_meta
from ingestlab.errors import IngestlabError
from ingestlab.runners.track_processors import corpora as corpus_processor


def _make_as_a_load_driver(directory: str, start_at: float, queue) -> None:
    """What Rally's track preparation runs on each load-driver host (one process each here)."""
    while time.time() < start_at:
        time.sleep(0.001)
    corpus_processor.make_document_set([directory], "posts-20000.json", 20000, {"generator": "posts", "seed": 7})
    queue.put("done")


def test_two_load_drivers_starting_the_same_missing_corpus_make_one_complete_file(tmp_path, capfd):
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    start_at = time.time() + 0.5
    drivers = [context.Process(target=_make_as_a_load_driver, args=(str(tmp_path), start_at, queue)) for _ in range(2)]
    for d in drivers:
        d.start()
    for d in drivers:
        d.join(60)
    assert [d.exitcode for d in drivers] == [0, 0] and [queue.get(), queue.get()] == ["done", "done"]
    out = capfd.readouterr().out
    assert out.count("making corpus") == 1 and out.count("made posts-20000.json") == 1  # one made it, the other waited
    lines = (tmp_path / "posts-20000.json").read_bytes().splitlines()
    assert len(lines) == 20000 and all(orjson.loads(line)["user"] for line in lines)
    assert read_meta(tmp_path / "posts-20000.json")["document-count"] == 20000
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [
        "posts-20000-1k.json",
        "posts-20000.json",
        "posts-20000.meta.json",
    ]  # no half-written .tmp left


def test_the_test_mode_file_is_the_first_thousand_documents_and_made_alone(tmp_path):
    makers.make(tmp_path / "p.json", "posts", 3000, 1, log=lambda m: None)
    makers.make(tmp_path / "q-1k.json", "posts", 1000, 1, log=lambda m: None)
    assert (tmp_path / "q-1k.json").read_bytes() == (tmp_path / "p-1k.json").read_bytes()
    assert (tmp_path / "p.json").read_bytes().startswith((tmp_path / "p-1k.json").read_bytes())
    assert not (tmp_path / "q-1k-1k.json").exists()


def test_a_current_file_is_not_made_again_but_another_seed_or_size_is(tmp_path):
    target = tmp_path / "posts.json"
    assert makers.make(target, "posts", 100, 1, log=lambda m: None) is not None
    assert makers.make(target, "posts", 100, 1, log=lambda m: None) is None
    assert makers.make(target, "posts", 100, 2, log=lambda m: None) is not None
    assert makers.make(target, "posts", 50, 2, log=lambda m: None).documents == 50


def test_unknown_generator_or_option_is_named(tmp_path):
    with pytest.raises(IngestlabError, match="unknown corpus generator 'nope'; the pack has posts, geonames"):
        makers.make(tmp_path / "x.json", "nope", 10)
    with pytest.raises(IngestlabError, match="corpus generator posts takes no option colour"):
        makers.make(tmp_path / "x.json", "posts", 10, colour="red")


def test_a_supplied_file_is_read_from_its_entry_and_cut_in_test_mode(tmp_path):
    makers.make(tmp_path / "real.json", "posts", 2500, 1, log=lambda m: None)

    class DocumentSet:
        document_file, number_of_documents, uncompressed_size_in_bytes = "real.json", 1, None

    found = corpus_processor.find_supplied("real.json", [str(tmp_path / "nothing-here"), str(tmp_path)])
    ds = DocumentSet()
    corpus_processor.apply_supplied(ds, found, test_mode=False)
    assert ds.number_of_documents == 2500 and ds.document_file == str(tmp_path / "real.json")
    corpus_processor.apply_supplied(ds, found, test_mode=True)
    assert ds.number_of_documents == 1000 and ds.document_file == str(tmp_path / "real-1k.json")
    assert corpus_processor.find_supplied("missing.json", [str(tmp_path)]) is None


def test_a_generated_corpus_goes_to_rallys_data_cache_unless_rally_finds_it_elsewhere_first(tmp_path):
    from ingestlab.runners.track_processors.corpora import generated_target

    track, cache = tmp_path / "track", tmp_path / "rally" / "data" / "posts"
    track.mkdir()
    assert generated_target([str(track), str(cache)], "posts-10.json") == cache / "posts-10.json" and cache.is_dir()
    (track / "posts-10.json").write_text("{}\n")  # made there by an older pack: Rally reads that one, so it is kept current
    assert generated_target([str(track), str(cache)], "posts-10.json") == track / "posts-10.json"


def test_a_supplied_publishers_file_is_converted_once_into_rallys_data_cache_and_again_when_it_changes(tmp_path, monkeypatch):
    import gzip
    import os

    sample = Path(__file__).parents[2] / "fixtures" / "dvf" / "full.2020-sample.csv"
    track, cache = tmp_path / "track", tmp_path / "rally" / "data" / "dvf"
    track.mkdir()
    found = track / "full.2020.csv.gz"
    found.write_bytes(gzip.compress(sample.read_bytes()))
    said = []
    monkeypatch.setattr(corpus_processor, "_log", said.append)  # the processor's console line
    made = corpus_processor.convert_supplied(found, "dvf", [str(track), str(cache)])
    assert made == cache / "converted-full.2020.csv.gz.json" and read_meta(made)["document-count"] == 2
    assert corpus_processor.convert_supplied(found, "dvf", [str(track), str(cache)]) == made
    assert len([m for m in said if m.startswith("[ingestlab] converting")]) == 1  # not again: the same file
    os.utime(found, ns=(1, 1))  # another download of it
    corpus_processor.convert_supplied(found, "dvf", [str(track), str(cache)])
    assert len([m for m in said if m.startswith("[ingestlab] converting")]) == 2
    found.write_bytes(gzip.compress(b"a,b\n1,2\n"))
    with pytest.raises(Exception, match=r"full.2020.csv.gz:1: not a DVF header"):
        corpus_processor.convert_supplied(found, "dvf", [str(track), str(cache)])
