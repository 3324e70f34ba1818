"""The Wikipedia converter's compiled part (ingestlab/corpus/wikipedia/native) writes what Python writes: each page's
corpus lines byte for byte (plain text, template facts, categories, links, JSON). Pages are made both ways
(``INGESTLAB_WIKIPEDIA_CONVERTER=python`` and the default) and compared: random markup made of every token the
regular expressions turn on, generated and hand-made exports, and the claims about Unicode the compiled code rests on."""

import random
import re
from pathlib import Path

import pytest

from ingestlab.corpus.wikipedia import convert, generate, native, pages
from ingestlab.errors import IngestlabError

SAMPLE = Path(__file__).parents[2] / "fixtures" / "wikipedia" / "jawiki-sample-pages-articles.xml"
SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace()]
TOKENS = [
    "[[",
    "]]",
    "[",
    "]",
    "|",
    ":",
    "：",
    "{{",
    "}}",
    "{",
    "}",
    "<ref>",
    "</ref >",
    "</REF\u3000>",
    "<ref name=a/>",
    "<Ref>",
    "<ref",
    "</ref",
    "<references/>",
    "<!--",
    "-->",
    "\n",
    "\n",
    "\n",
    "=",
    "==",
    "===",
    "'",
    "''",
    "'''",
    " ",
    "  ",
    "\t",
    "http://",
    "https://x.jp",
    "ftp://",
    "[http://a b]",
    "カテゴリ",
    "Category",
    " category ",
    "ファイル",
    "File",
    "image",
    "Media",
    "画像",
    "{|",
    "|}",
    "\n{|",
    "\n|}",
    "\u3000",
    "x",
    "あ",
    "漢字",
    "<b>",
    "</b>",
    "<",
    ">",
    "/>",
    "*",
    "#",
    ";",
    "\n*",
    "\n:",
    "\n=",
    "=\n",
    "\u00a0",
    "\u2028",
    "\u212a",
    "\u0130",
    "#sec",
    "stub",
    "-Stub",
    "スタブ",
    "Aimai",
    "曖昧さ回避",
    "DAB",
    '"',
    "\\",
    "\x01",
    "\x08",
    "\x0c",
    "\r",
    "\x1f",
    "\x7f",
    "\u0085",
    "\U0001f600",
    *SPACES[::5],
]


@pytest.fixture(scope="module")
def compiled():
    made = native.page_lines()
    if made is None:
        pytest.skip("no cargo here: the Python converter does all the work, and its own tests cover it")
    return made


def python_lines(page_id: str, title: str, ns: str, text: str, redirect: bool) -> bytes:
    return pages.lines(page_id, pages.page_document(title, ns, text, redirect))


def check(compiled, page_id: str, title: str, ns: str, text: str, redirect: bool = False) -> None:
    made = compiled(page_id, title, ns, text, redirect)
    assert made is not None
    assert made == python_lines(page_id, title, ns, text, redirect), (page_id, title, ns, text, redirect)


@pytest.mark.parametrize("seed", range(4))
def test_random_markup_both_ways(compiled, seed):
    rng = random.Random(seed)
    for n in range(6000):
        text = "".join(rng.choice(TOKENS) for _ in range(rng.randint(0, 80)))
        title = "".join(rng.choice(TOKENS) for _ in range(rng.randint(0, 3)))
        check(compiled, str(n), title, rng.choice(["0", "", "14", "6"]), text, redirect=rng.random() < 0.05)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "{{" * 30 + "x" + "}}" * 30,  # deeper than the 20 rounds of template removal
        "[[ :x]]",
        "[[\t\t:x]]",
        "[[:x]]",
        "[[a:b|[[c]]]]",
        "[[a:b|[[c]] d [[e|f]]]]",
        "[[a: b |]]",
        "[[Category: x #y]]",
        "{{ |x}}",
        "{{\n \n|x}}",
        "{{\n\n}}",
        "{{ {{x}}",
        "{{a\nb}}",
        "{{a \n |b}}",
        "{{ }}",
        "\n=",
        "\n===",
        "\n== ==",
        "\n==a==b==",
        "\n= a =  \nb",
        "\n==x=\n",
        "''''''''''x",
        "<ref>a</ref\u2003\u3000>",
        "<ref>a</ref\u200b>",
        "<REF>a</Ref>",
        "<Ref>a</ref>",
        "<ref/>",
        "<ref>a<ref>b</ref>",
        "<br/ ><b>x</b>",
        "a < b > c",
        "[http://x]",
        "[http:// x]",
        "[https://x y\n]",
        "[ftp://x]y]",
        "\x00nul",
        "x" * 100 + "\t" * 3 + "\n" * 5,
    ],
)
def test_edge_cases_both_ways(compiled, text):
    check(compiled, "1", "t", "0", text)


def test_every_python_whitespace_character_in_end_tags_namespaces_and_targets(compiled):
    for c in SPACES + ["\u200b", "\u180e", "\ufeff"]:  # the last three are not whitespace to Python
        check(compiled, "1", c, "0", f"<ref>a</ref{c}>b [[{c}Category{c}:{c}x{c}]] [[{c}Media:y]] [[{c}z{c}#s]] [[{c}]]")


def test_the_unicode_facts_the_compiled_code_rests_on():
    # re's case-insensitive r, e, f (in <ref and </ref) match only ASCII letters
    assert [c for c in map(chr, range(0x110000)) if re.fullmatch("(?i:[ref])", c)] == list("EFRefr")
    # only two characters outside ASCII lower to something with an ASCII letter: a namespace or a template name with
    # any other such character cannot be one of the ASCII names, and these two cannot either
    assert [c for c in map(chr, range(0x80, 0x110000)) if any(ch.isascii() for ch in c.lower())] == ["\u0130", "\u212a"]
    assert {"\u0130".lower(), "\u212a".lower()} == {"i\u0307", "k"}


def test_a_page_larger_than_the_first_buffer_and_a_lone_surrogate(compiled):
    check(compiled, "1", '"', "0", '"\\' * (3 << 20) + "\x01" * 1000)  # every byte escaped: beyond 4 MiB
    assert compiled("1", "t", "0", "a\udc80b", False) is None  # not UTF-8: Python makes that page


def test_exports_convert_to_the_same_corpus_both_ways(compiled, tmp_path, monkeypatch):
    dump = tmp_path / "jawiki.xml"
    generate.write(dump, generate.WikiGenerator(seed=11).pages(1500))
    for source in (dump, SAMPLE):
        made = {}
        for way, workers in (("python", 1), ("auto", 1), ("auto", 2)):
            monkeypatch.setenv(native.VARIABLE, way)
            out = tmp_path / f"{source.stem}-{way}-{workers}" / "wikipedia.json"
            result = convert.convert(source, out, workers=workers)
            made[way, workers] = (out.read_bytes(), out.with_name("wikipedia-1k.json").read_bytes(), result.documents)
        assert made["python", 1] == made["auto", 1] == made["auto", 2]


def test_python_is_asked_for_by_the_variable_and_a_wrong_value_is_named(monkeypatch):
    monkeypatch.setenv(native.VARIABLE, "python")
    assert native.page_lines() is None
    monkeypatch.setenv(native.VARIABLE, "rust")
    with pytest.raises(IngestlabError, match="INGESTLAB_WIKIPEDIA_CONVERTER='rust'"):  # the CLI prints it, no traceback
        native.page_lines()
