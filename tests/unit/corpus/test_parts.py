"""A corpus made in parts, in parallel processes, is the file one pass makes: the same documents, -1k file and entry."""

import json

import pytest

from ingestlab.corpus import files, geonames, parts
from ingestlab.corpus.wikipedia import convert, generate


@pytest.mark.slow
def test_geonames_in_parts_is_the_one_pass_corpus(tmp_path):
    source = {"generator": "geonames", "docs": 2500, "seed": 0}
    one = files.write_corpus(tmp_path / "one" / "geonames-2500.json", geonames.documents(2500), source)
    logged = []
    made = parts.make(tmp_path / "parts" / "geonames-2500.json", "geonames", 2500, 0, source, True, logged.append, workers=2, part_docs=700)
    assert made.documents == 2500 and len(logged) == 4 and "part 4 of 4" in logged[-1] + "".join(logged)
    assert made.path.read_bytes() == one.path.read_bytes()
    assert files.one_k_path(made.path).read_bytes() == files.one_k_path(one.path).read_bytes()
    assert json.loads(files.meta_path(made.path).read_text()) == json.loads(files.meta_path(one.path).read_text())
    assert not list((tmp_path / "parts").glob(".*parts*"))  # the parts are gone


def test_a_wikipedia_part_starts_where_the_whole_export_is():
    whole = list(generate.WikiGenerator(seed=3, part_pages=40).pages(100))
    assert list(generate.WikiGenerator(seed=3, part_pages=40).pages(20, first=80)) == whole[80:]
    assert whole[:40] == list(generate.WikiGenerator(seed=3).pages(40))  # the first part is the export of old


def test_a_wikipedia_part_is_written_as_the_converter_writes_the_corpus(tmp_path):
    dump = tmp_path / "d.xml"
    generate.write(dump, generate.WikiGenerator(seed=5).pages(300))
    assert convert.write_documents(dump, tmp_path / "part.json") == 300
    convert.convert(dump, tmp_path / "corpus.json")
    assert (tmp_path / "part.json").read_bytes() == (tmp_path / "corpus.json").read_bytes()


def test_joining_never_splits_a_document_from_its_action_line(tmp_path, monkeypatch):
    monkeypatch.setattr(parts, "JOIN_BLOCK", 37)  # blocks end inside lines and between action and document
    lines = b"".join(b'{"index":{"_id":"%d"}}\n{"n":%d,"pad":"%s"}\n' % (i, i, b"x" * (i % 13)) for i in range(1500))
    part = tmp_path / "p.json"
    part.write_bytes(lines)
    with files.CorpusWriter(tmp_path / "c.json", action_lines=True) as writer:
        parts._join(writer, part, 1500)
        writer.commit({})
    assert (tmp_path / "c.json").read_bytes() == lines
    small = files.one_k_path(tmp_path / "c.json").read_bytes()
    assert small.count(b"\n") == 2000 and lines.startswith(small)
