"""Wikipedia exports as Wikimedia ships them: a multistream dump with its index converts on every core (each worker
decompresses its own streams) to the same corpus as the plain export, pages in dump order; gzip and ZIP are told by
their bytes; what is no export, or an index of another dump, is one line."""

import bz2
import gzip
import zipfile

import pytest

from ingestlab.corpus.files import read_meta
from ingestlab.corpus.wikipedia import convert, generate, multistream

PAGES = 1200


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    d = tmp_path_factory.mktemp("ms")
    generator = generate.WikiGenerator(seed=5)
    plain = d / "jawiki-pages-articles.xml"
    generate.write(plain, generator.pages(PAGES))
    multi = d / "jawiki-pages-articles-multistream.xml.bz2"
    count, index = generate.write_multistream(multi, generator.pages(PAGES), per_stream=100)
    assert count == PAGES and index.name == "jawiki-pages-articles-multistream-index.txt.bz2"
    expected = d / "expected" / "wikipedia.json"
    convert.convert(plain, expected)
    return plain, multi, index, expected.read_bytes()


def test_the_generated_multistream_dump_is_the_plain_export_in_streams(dumps):
    plain, multi, index, _ = dumps
    assert bz2.decompress(multi.read_bytes()) == plain.read_bytes()  # one bz2 stream after another
    offsets = multistream.stream_offsets(index, multi)
    assert len(offsets) == PAGES // 100 and offsets == sorted(offsets)


def test_a_multistream_dump_converts_on_every_worker_to_the_plain_exports_corpus(dumps, tmp_path):
    _, multi, _, expected = dumps
    result = convert.convert(multi, tmp_path / "wikipedia.json", workers=2)
    assert (tmp_path / "wikipedia.json").read_bytes() == expected
    assert read_meta(tmp_path / "wikipedia.json")["source"]["streams"] == PAGES // 100  # the index was found and used
    assert result.documents == PAGES and result.complete
    small_runs = list(multistream.runs(multi, multistream.stream_offsets(multistream.index_beside(multi), multi), run_bytes=1))
    assert len(small_runs) == PAGES // 100  # the header rides with the first run, the footer with the last
    assert b"".join(r[2] for r in small_runs) == multi.read_bytes()


def test_without_its_index_a_multistream_dump_converts_as_one_bz2_stream_would(dumps, tmp_path):
    _, multi, _, expected = dumps
    alone = tmp_path / "copy-multistream.xml.bz2"
    alone.write_bytes(multi.read_bytes())
    convert.convert(alone, tmp_path / "a" / "wikipedia.json", workers=2)
    convert.convert(alone, tmp_path / "b" / "wikipedia.json")
    assert (tmp_path / "a" / "wikipedia.json").read_bytes() == (tmp_path / "b" / "wikipedia.json").read_bytes() == expected
    assert "streams" not in read_meta(tmp_path / "a" / "wikipedia.json")["source"]


def test_gzip_and_zip_exports_are_told_by_their_bytes(dumps, tmp_path):
    plain, _, _, expected = dumps
    gz = tmp_path / "export.xml"  # gzip under a plain name
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    with zipfile.ZipFile(tmp_path / "export.zip", "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("README", "a dump")
        z.writestr("jawiki.xml", plain.read_bytes())
    for source in (gz, tmp_path / "export.zip"):
        convert.convert(source, tmp_path / f"out-{source.name}" / "wikipedia.json", workers=2)
        assert (tmp_path / f"out-{source.name}" / "wikipedia.json").read_bytes() == expected


def test_what_is_no_export_or_an_index_of_another_dump_is_one_line(dumps, tmp_path):
    _, multi, index, _ = dumps
    csv = tmp_path / "jawiki.xml.bz2"
    csv.write_bytes(bz2.compress(b"id_mutation,date\n1,2\n"))
    with pytest.raises(convert.BadDump) as e:
        convert.convert(csv, tmp_path / "out" / "wikipedia.json")
    assert (
        str(e.value)
        == f"{csv}: text, not a MediaWiki export (no <mediawiki> element in its first 64 KiB; it starts 'id_mutation,date\\n1,2\\n')"
    )
    xz = tmp_path / "jawiki.xml.xz"
    xz.write_bytes(b"\xfd7zXZ\x00rest")
    with pytest.raises(
        convert.BadDump,
        match=r"jawiki.xml.xz: xz-compressed; the pack reads plain, gzip, bz2 and ZIP files: decompress "
        r"it first \(xz -d jawiki.xml.xz\)",
    ):
        convert.convert(xz, tmp_path / "out" / "wikipedia.json")
    other = tmp_path / "other-multistream.xml.bz2"
    generate.write_multistream(other, generate.WikiGenerator(seed=6).pages(300), per_stream=50)
    with pytest.raises(convert.BadDump, match=r"does not belong to .*other-multistream.xml.bz2: no bz2 stream starts at offset"):
        convert.convert(other, tmp_path / "out" / "wikipedia.json", workers=2, index=index)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
