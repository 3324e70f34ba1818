"""A MediaWiki XML export that looks like Japanese Wikipedia (real Japanese words from mimesis' ``ja`` locale), offline
and deterministic for a seed: articles, redirects, disambiguation pages, stubs and pages of other namespaces, as a jawiki
dump holds. Pages stream to ``.xml`` or ``.xml.bz2`` at constant memory.
"""

from __future__ import annotations

import bz2
import random
from pathlib import Path
from typing import Iterator
from xml.sax.saxutils import escape, quoteattr

DEFAULT_SEED = 2016
NAMESPACES = {"0": "", "4": "Wikipedia", "10": "Template", "14": "Category"}
STUB_TEMPLATES = ["stub", "人物スタブ", "Substub", "Tech-stub", "地理スタブ"]
HEADINGS = ["概要", "歴史", "経歴", "特徴", "脚注", "関連項目", "外部リンク", "作品"]
PART_PAGES = 250_000


class WikiGenerator:
    def __init__(self, seed: int = DEFAULT_SEED, vocabulary: int = 20_000, sentences: int = 5_000, part_pages: int = PART_PAGES):
        from mimesis import Text  # heavy: only when generating pages
        from mimesis.locales import Locale

        text = Text(Locale.JA, seed=seed)
        words = list(dict.fromkeys(text.word() for _ in range(vocabulary)))
        self.titles = [w for w in words if "|" not in w and "[" not in w and ":" not in w]
        self.sentences = [text.sentence() for _ in range(sentences)]
        self.seed, self.part_pages = seed, part_pages

    def _title(self, rng: random.Random, n: int) -> str:
        base = self.titles[n % len(self.titles)]
        if rng.random() < 0.03:
            return base + "\u3000" + rng.choice(self.titles)  # a name with an ideographic space
        return base if n < len(self.titles) else f"{base} ({n // len(self.titles)})"

    def _link(self, rng: random.Random) -> str:
        target = rng.choice(self.titles)
        return f"[[{target}|{rng.choice(self.titles)}]]" if rng.random() < 0.25 else f"[[{target}]]"

    def _paragraph(self, rng: random.Random) -> str:
        parts = []
        for _ in range(rng.randint(2, 6)):
            sentence = rng.choice(self.sentences)
            if rng.random() < 0.5:
                cut = rng.randint(0, max(0, len(sentence) - 1))
                sentence = sentence[:cut] + self._link(rng) + sentence[cut:]
            if rng.random() < 0.2:
                sentence += f"<ref>{{{{cite web|url=https://example.jp/{rng.randint(1, 99999)}|title={rng.choice(self.titles)}}}}}</ref>"
            parts.append(sentence)
        return "".join(parts)

    def _article(self, rng: random.Random, title: str) -> str:
        lines = []
        if rng.random() < 0.4:
            lines.append(f"{{{{Infobox|名称={title}|画像={rng.choice(self.titles)}.jpg|設立={rng.randint(1850, 2020)}年}}}}")
        lines.append(f"'''{title}'''は、{self._paragraph(rng)}")
        for heading in rng.sample(HEADINGS, rng.randint(1, 4)):
            lines.append(f"== {heading} ==")
            lines.append(self._paragraph(rng))
            if rng.random() < 0.3:
                lines.extend(f"* {self._link(rng)}" for _ in range(rng.randint(2, 5)))
            if rng.random() < 0.1:
                lines.append(
                    '{| class="wikitable"\n|-\n! 年 !! 出来事\n|-\n| ' + f"{rng.randint(1900, 2020)} || {rng.choice(self.sentences)}\n|}}"
                )
            if rng.random() < 0.15:
                lines.append(f"[[ファイル:{rng.choice(self.titles)}.jpg|thumb|{rng.choice(self.titles)}]]")
        if rng.random() < 0.15:
            lines.append(f"{{{{{rng.choice(STUB_TEMPLATES)}}}}}")
        lines.extend(f"[[Category:{rng.choice(self.titles)}]]" for _ in range(rng.randint(1, 4)))
        return "\n".join(lines)

    def _rng(self, part: int) -> random.Random:
        """A part's own generator, so that a part made alone (in parallel) is as it is within the whole export."""
        return random.Random(self.seed if part == 0 else self.seed * 1_000_003 + part)

    def pages(self, count: int, first: int = 0) -> Iterator[dict]:
        """Pages ``first`` … ``first + count - 1`` of the export (``first`` at a part's border)."""
        if first % self.part_pages:
            raise ValueError(f"a run of pages starts at a multiple of {self.part_pages}, not at {first}")
        rng = None
        for n in range(first, first + count):
            if rng is None or n % self.part_pages == 0:
                rng = self._rng(n // self.part_pages)
            page_id = n + 1
            roll = rng.random()
            title = self._title(rng, n)
            ns, redirect = "0", None
            if roll < 0.10:
                redirect = rng.choice(self.titles)
                text = f"#転送 [[{redirect}]]"
            elif roll < 0.12:
                text = (
                    f"'''{title}'''\n"
                    + "\n".join(f"* {self._link(rng)} - {rng.choice(self.sentences)}" for _ in range(rng.randint(2, 6)))
                    + "\n{{aimai}}"
                )
            elif roll < 0.17:
                ns = "14"
                text = f"{rng.choice(self.sentences)}\n[[Category:{rng.choice(self.titles)}]]"
            elif roll < 0.19:
                ns = "10"
                text = "<noinclude>" + rng.choice(self.sentences) + "</noinclude>{{{1|}}}"
            elif roll < 0.20:
                ns = "4"
                text = self._paragraph(rng)
            else:
                text = self._article(rng, title)
            prefix = NAMESPACES[ns]
            yield {
                "id": page_id,
                "ns": ns,
                "title": f"{prefix}:{title}" if prefix else title,
                "redirect": redirect,
                "text": text,
                "revision": 1_000_000 + page_id,
                "timestamp": f"2016-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T00:00:00Z",
            }


def _page_xml(page: dict) -> str:
    redirect = f"    <redirect title={quoteattr(page['redirect'])} />\n" if page["redirect"] else ""
    text = page["text"]
    return (
        "  <page>\n"
        f"    <title>{escape(page['title'])}</title>\n"
        f"    <ns>{page['ns']}</ns>\n"
        f"    <id>{page['id']}</id>\n"
        f"{redirect}"
        "    <revision>\n"
        f"      <id>{page['revision']}</id>\n"
        f"      <timestamp>{page['timestamp']}</timestamp>\n"
        "      <model>wikitext</model>\n"
        "      <format>text/x-wiki</format>\n"
        f'      <text bytes="{len(text.encode())}" xml:space="preserve">{escape(text)}</text>\n'
        "    </revision>\n"
        "  </page>\n"
    )


def _header(schema: str) -> str:
    return (
        f'<mediawiki xmlns="http://www.mediawiki.org/xml/export-{schema}/" version="{schema}" xml:lang="ja">\n'
        "  <siteinfo>\n    <sitename>Wikipedia</sitename>\n    <dbname>jawiki</dbname>\n    <namespaces>\n"
        + "".join(f'      <namespace key="{key}" case="first-letter">{name}</namespace>\n' for key, name in NAMESPACES.items())
        + "    </namespaces>\n  </siteinfo>\n"
    )


FOOTER = "</mediawiki>\n"


def write(path: Path, pages: Iterator[dict], schema: str = "0.10") -> int:
    """Write an export; ``.bz2`` in the name compresses it. Returns the number of pages."""
    path.parent.mkdir(parents=True, exist_ok=True)
    opener = bz2.open if path.suffix == ".bz2" else open
    count = 0
    with opener(path, "wt", encoding="utf-8") as f:
        f.write(_header(schema))
        for page in pages:
            f.write(_page_xml(page))
            count += 1
        f.write(FOOTER)
    return count


def write_multistream(path: Path, pages: Iterator[dict], per_stream: int = 100, schema: str = "0.10") -> tuple[int, Path]:
    """Write an export as Wikimedia's multistream dumps are: the header, every ``per_stream`` pages and the footer each a
    bz2 stream of its own, and beside it (``…-index.txt.bz2``) the index of ``offset:page id:title`` lines. Returns
    the number of pages and the index."""
    path.parent.mkdir(parents=True, exist_ok=True)
    index_path = path.with_name(path.name.removesuffix(".xml.bz2") + "-index.txt.bz2")
    count, index, batch = 0, [], []
    with open(path, "wb") as f:
        f.write(bz2.compress(_header(schema).encode()))

        def flush() -> None:
            offset = f.tell()
            f.write(bz2.compress("".join(_page_xml(p) for p in batch).encode()))
            index.extend(f"{offset}:{p['id']}:{p['title']}\n" for p in batch)
            batch.clear()

        for page in pages:
            batch.append(page)
            count += 1
            if len(batch) == per_stream:
                flush()
        if batch:
            flush()
        f.write(bz2.compress(FOOTER.encode()))
    index_path.write_bytes(bz2.compress("".join(index).encode()))
    return count, index_path
