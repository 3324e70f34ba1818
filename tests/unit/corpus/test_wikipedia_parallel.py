"""The Wikipedia converter on several cores writes the corpus one pass writes; broken XML still gets one pass's
error, with the position in the whole file and the pages before it kept."""

import pytest

from ingestlab.corpus import files
from ingestlab.corpus.wikipedia import convert, generate, parallel


@pytest.fixture
def dump(tmp_path):
    path = tmp_path / "jawiki.xml"
    generate.write(path, generate.WikiGenerator(seed=9).pages(1500))
    return path


def test_pieces_converted_on_several_cores_make_the_one_pass_corpus(dump, tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "PIECE_BYTES", 64 << 10)  # many pieces, each cut between two pages
    one = convert.convert(dump, tmp_path / "one" / "w.json")
    many = convert.convert(dump, tmp_path / "many" / "w.json", workers=3)
    assert many.documents == one.documents == 1500 and many.input_bytes == one.input_bytes
    for name in ("w.json", "w-1k.json"):
        assert (tmp_path / "many" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()
    assert files.read_meta(tmp_path / "many" / "w.json")["source"]["complete"] is True


def test_broken_xml_in_a_piece_gets_the_one_pass_error_and_keeps_the_pages_before_it(dump, tmp_path):
    text = dump.read_bytes()
    cut = text.index(b"<title>", len(text) // 2)
    dump.write_bytes(text[:cut] + b"<title>broken & unescaped</title>" + text[cut:])
    with pytest.raises(convert.BadDump, match=r"malformed XML at line \d+") as failed:
        convert.convert(dump, tmp_path / "w.json", workers=2)
    assert "pages before it are kept" in str(failed.value)
    assert 0 < files.read_meta(tmp_path / "w.json")["document-count"] < 1500
