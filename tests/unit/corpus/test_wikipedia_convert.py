"""The MediaWiki converter on a hand-made export in the real format (schema 0.11, jawiki markup)."""

import bz2
from pathlib import Path

import orjson
import pytest

from ingestlab.corpus.files import read_meta
from ingestlab.corpus.wikipedia import convert, generate, markup

SAMPLE = Path(__file__).parents[2] / "fixtures" / "wikipedia" / "jawiki-sample-pages-articles.xml"


def read_corpus(path: Path) -> list[tuple[dict, dict]]:
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    return list(zip(lines[0::2], lines[1::2]))


def test_real_format_sample(tmp_path):
    result = convert.convert(SAMPLE, tmp_path / "wikipedia.json")
    assert result.documents == 4 and result.complete
    (a1, article), (a2, redirect), (a3, aimai), (a4, category) = read_corpus(tmp_path / "wikipedia.json")
    assert [a["index"]["_id"] for a in (a1, a2, a3, a4)] == ["4021", "4022", "4023", "4024"]
    assert article["title"] == "架空市立図書館" and not article["redirect"] and not article["special"]
    text = article["text"]
    assert text.startswith("架空市立図書館（かくうしりつとしょかん）は、架空県架空市にある市立図書館である。")
    assert "山田\u3000花子" in text  # the ideographic space survives
    assert "沿革\n1965年 - 開館。\n2001年 - 電子化を開始。" in text and "公式ウェブサイト" in text
    for gone in ("{{", "[[", "<ref", "Cite book", "wikitable", "編集者へ", "閲覧室", "Category", "'''"):
        assert gone not in text
    assert article["stub"] and not article["disambiguation"]
    assert article["category"] == ["架空県の図書館", "1965年開館の施設"]
    assert article["link"][:4] == ["架空県", "架空市", "公共図書館", "1965年"] and "電子図書館" in article["link"]
    assert redirect["redirect"] and redirect["text"] == "" and redirect["link"] == ["架空市立図書館"]
    assert aimai["disambiguation"] and aimai["link"] == ["架空", "架空線"]
    assert category["special"] and category["category"] == ["日本の図書館"]
    entry = {k: v for k, v in read_meta(tmp_path / "wikipedia.json").items() if k != "source"}
    assert entry == {
        "source-file": "wikipedia.json",
        "includes-action-and-meta-data": True,
        "document-count": 4,
        "uncompressed-bytes": (tmp_path / "wikipedia.json").stat().st_size,
    }


def test_bz2_input_gives_the_same_corpus(tmp_path):
    packed = tmp_path / "sample.xml.bz2"
    packed.write_bytes(bz2.compress(SAMPLE.read_bytes()))
    convert.convert(packed, tmp_path / "a" / "wikipedia.json")
    convert.convert(SAMPLE, tmp_path / "b" / "wikipedia.json")
    assert (tmp_path / "a" / "wikipedia.json").read_bytes() == (tmp_path / "b" / "wikipedia.json").read_bytes()


def test_truncated_bz2_keeps_the_pages_before_the_break(tmp_path):
    dump = tmp_path / "big.xml.bz2"
    generate.write(dump, generate.WikiGenerator(seed=3).pages(2000))  # several bz2 blocks
    data = dump.read_bytes()
    dump.write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(
        convert.BadDump,
        match=(
            r"big.xml.bz2: ends inside a bz2 stream \(the file is truncated: download it again\); "
            r"after [\d,]+ bytes of XML — the [\d,]+ pages before it are kept"
        ),
    ):
        convert.convert(dump, tmp_path / "out" / "wikipedia.json")
    kept = read_corpus(tmp_path / "out" / "wikipedia.json")
    assert 0 < len(kept) < 2000 and [int(a["index"]["_id"]) for a, _ in kept] == list(range(1, len(kept) + 1))
    meta = read_meta(tmp_path / "out" / "wikipedia.json")["source"]
    assert meta["complete"] is False


def test_malformed_xml_names_line_and_column(tmp_path):
    broken = tmp_path / "broken.xml"
    broken.write_text(SAMPLE.read_text().replace("<title>かくう</title>", "<title>かくう</titel>"))
    with pytest.raises(convert.BadDump, match=r"broken.xml: malformed XML at line \d+, column \d+: .*2 pages before it are kept"):
        convert.convert(broken, tmp_path / "out" / "wikipedia.json")


def test_every_page_before_malformed_xml_far_into_the_dump_is_kept(tmp_path):
    """The error well past the parser's first read: the pages that ended before it are all written, whatever the
    lxml version hands over before its error."""
    dump = tmp_path / "long.xml"
    generate.write(dump, generate.WikiGenerator().pages(400))
    text = dump.read_text()
    cut = -1
    for _ in range(301):  # the 301st page's title
        cut = text.index("</title>", cut + 1)
    dump.write_text(text[:cut] + "</titel>" + text[cut + len("</title>") :])
    assert dump.stat().st_size > 4 * (1 << 16)  # the parser reads it in several pieces
    with pytest.raises(convert.BadDump, match=r"long.xml: malformed XML at line \d+, column \d+: .* 300 pages before it are kept"):
        convert.convert(dump, tmp_path / "out" / "wikipedia.json")
    assert len(read_corpus(tmp_path / "out" / "wikipedia.json")) == 300


@pytest.mark.parametrize("past", [3, 200, "text"])  # bytes past the 300th </page>, or inside the 301st page's text
def test_plain_xml_that_stops_inside_a_page_keeps_exactly_the_pages_that_ended(tmp_path, past):
    """An unfinished page is never written, whole or cut (lxml 6.2 ends it for the parser at the end of the input)."""
    dump = tmp_path / "whole.xml"
    generate.write(dump, generate.WikiGenerator().pages(400))
    convert.convert(dump, tmp_path / "whole" / "wikipedia.json")
    whole = read_corpus(tmp_path / "whole" / "wikipedia.json")
    data = dump.read_bytes()
    end = -1
    for _ in range(300):
        end = data.index(b"</page>", end + 1)
    end += len(b"</page>")
    cut = end + past if isinstance(past, int) else data.index(b"<text", end) + 300
    dump.write_bytes(data[:cut])
    with pytest.raises(convert.BadDump, match=r"whole.xml: malformed XML at line \d+, column \d+: .* 300 pages before it are kept"):
        convert.convert(dump, tmp_path / "cut" / "wikipedia.json")
    assert read_corpus(tmp_path / "cut" / "wikipedia.json") == whole[:300]


def test_markup_keeps_ideographic_spaces_and_collapses_ascii_ones():
    assert markup.plain_text("a \t  b\u3000\u3000c\n\n\n\n  d") == "a b\u3000\u3000c\n\nd"


@pytest.mark.parametrize(
    "wikitext, text",
    [
        ("{|\n| a\n|}\nText", "Text"),  # a table on the page's first line
        ("x{|\n|}y", "x{|\n|}y"),  # not at a line's start: not a table
        ("== 見出し ==\n本文\n=== 小見出し===", "見出し\n本文\n小見出し"),
        ("* 項目\n#: 二\n本文\n;語: 説明", "項目\n二\n本文\n語: 説明"),
        ("''''''x'' '''y'''", "'x y"),  # '{2,5}, greedy: six quotes leave one
        ("a\n\n\n\n\nb", "a\n\nb"),
        ("<REF name=a/>文<ref>注</ref>末", "文末"),
        ("  前 \n\t後  ", "前\n後"),
        ("[[カテゴリ:猫]][[ファイル:a.png|thumb|図]][[犬|いぬ]][[鳥]]", "いぬ鳥"),
    ],
)
def test_markup_at_a_page_and_a_line_start(wikitext, text):
    """Line-start markup is matched as "\\n…" after a leading newline: the page's first line as well as the others."""
    assert markup.plain_text(wikitext) == text


def test_an_export_without_a_namespace_gives_the_same_corpus(tmp_path):
    """A page's fields are found by local name, as the ``{*}`` searches did."""
    plain = tmp_path / "plain.xml"
    plain.write_text(SAMPLE.read_text().replace(' xmlns="http://www.mediawiki.org/xml/export-0.11/"', "", 1))
    assert 'export-0.11/"' not in plain.read_text().split("\n", 1)[0].split("schemaLocation")[0]
    convert.convert(SAMPLE, tmp_path / "a" / "wikipedia.json")
    convert.convert(plain, tmp_path / "b" / "wikipedia.json")
    assert (tmp_path / "a" / "wikipedia.json").read_bytes() == (tmp_path / "b" / "wikipedia.json").read_bytes()


def test_generated_export_is_deterministic_and_varied(tmp_path):
    a, b = tmp_path / "a.xml", tmp_path / "b.xml"
    generate.write(a, generate.WikiGenerator(seed=5).pages(300))
    generate.write(b, generate.WikiGenerator(seed=5).pages(300))
    assert a.read_bytes() == b.read_bytes()
    convert.convert(a, tmp_path / "out" / "wikipedia.json")
    docs = [d for _, d in read_corpus(tmp_path / "out" / "wikipedia.json")]
    assert {"redirect", "special", "stub", "disambiguation"} <= {
        k for d in docs for k in ("redirect", "special", "stub", "disambiguation") if d[k]
    }
    assert any("\u3000" in d["title"] for d in docs) and all(
        d["category"] for d in docs if not d["redirect"] and not d["special"] and not d["disambiguation"]
    )
