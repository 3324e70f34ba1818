"""Stream a MediaWiki XML export (``.xml`` or ``.xml.bz2``, schema 0.10/0.11) into a Rally corpus.

lxml's ``iterparse`` reads one ``<page>`` at a time and every finished page is cleared, so memory
stays flat whatever the dump's size. Each page becomes one document, preceded by its bulk action
line carrying the page id as ``_id`` (the corpus sets ``includes-action-and-meta-data``).

Broken input (malformed XML, a truncated ``.bz2``) stops the conversion with its position; the
pages converted before it are kept as a valid, smaller corpus, and the error says so.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import orjson
from lxml import etree

from ingestlab.corpus.wikipedia import markup
from ingestlab.corpus.files import CorpusWriter
from ingestlab.corpus.read_ahead import Bz2Ahead
from ingestlab.errors import IngestlabError


class BadDump(IngestlabError):
    """Malformed or truncated input; the message gives the position and what was kept."""


class _CountingReader:
    """A file object that counts the (uncompressed) bytes the parser has read, for MB/s and positions."""

    def __init__(self, raw):
        self.raw = raw
        self.bytes = 0

    def read(self, size=-1):
        data = self.raw.read(size)
        self.bytes += len(data)
        return data


def open_dump(path: Path):
    """A ``.bz2`` dump is decompressed in a thread of its own, ahead of the parser (:mod:`ingestlab.corpus.read_ahead`)."""
    return Bz2Ahead(path) if path.suffix == ".bz2" else open(path, "rb")


def page_document(title: str, ns: str, text: str, redirect: bool) -> dict:
    names = markup.template_names(text)
    categories, links = markup.categories_and_links(text)
    return {
        "title": title,
        "text": "" if redirect else markup.plain_text(text),
        "redirect": redirect,
        "special": ns not in ("0", ""),
        "stub": markup.is_stub(names),
        "disambiguation": markup.is_disambiguation(names),
        "category": categories,
        "link": links,
    }


def pages(source: _CountingReader, path: Path) -> Iterator[tuple[str, dict]]:
    """(page id, document) for every page of the dump, in order."""
    context = etree.iterparse(source, events=("end",), tag="{*}page", huge_tree=True, recover=False)
    try:
        for _, page in context:
            page_id = page.findtext("{*}id")
            title = page.findtext("{*}title") or ""
            ns = page.findtext("{*}ns") or "0"
            redirect = page.find("{*}redirect") is not None
            text = page.findtext("{*}revision/{*}text") or ""
            page.clear(keep_tail=False)
            while page.getprevious() is not None:
                del page.getparent()[0]
            if not page_id:
                raise BadDump(f"{path}: a <page> without <id> (title {title!r}) near byte {source.bytes:,}")
            yield page_id, page_document(title, ns, text, redirect)
    except etree.XMLSyntaxError as e:
        line, column = e.position if e.position else (e.lineno, 0)
        raise BadDump(f"{path}: malformed XML at line {line}, column {column}: {e.msg}") from None
    except EOFError as e:
        raise BadDump(f"{path}: the .bz2 stream ends early ({e}) after {source.bytes:,} bytes of XML") from None


@dataclass
class Conversion:
    corpus: Path
    documents: int
    input_bytes: int
    uncompressed_bytes: int
    seconds: float
    complete: bool

    @property
    def mb_per_second(self) -> float:
        return self.input_bytes / self.seconds / 1e6 if self.seconds else 0.0


def _convert_in_parallel(dump: Path, corpus: Path, source: dict | None, one_k: bool, progress, workers: int) -> Conversion:
    from ingestlab.corpus.wikipedia import parallel

    start = time.perf_counter()
    with CorpusWriter(corpus, one_k=one_k, action_lines=True, progress=progress) as writer, open_dump(dump) as raw:
        reader = _CountingReader(raw)
        try:
            for lines, count, _ in parallel.convert_lines(reader, workers):
                writer.write_block(lines, count)
        except (parallel.BrokenPiece, EOFError) as e:
            raise BadDump(str(e)) from None  # the writer's `with` removes what was written
        written = writer.commit({"converted-from": str(dump), "complete": True, "input-bytes": reader.bytes, **(source or {})})
    return Conversion(corpus, written.documents, reader.bytes, written.uncompressed_bytes, time.perf_counter() - start, complete=True)


def _lines(page_id: str, doc: dict, dumps=orjson.dumps) -> bytes:
    """A page's action line (its id) and document line."""
    return b'{"index":{"_id":' + dumps(page_id) + b"}}\n" + dumps(doc) + b"\n"


def write_documents(dump: Path, out: Path) -> int:
    """The pages of ``dump`` as bare corpus lines in ``out`` (no -1k file, no entry): one part of a corpus made in parts."""
    made = 0
    with open_dump(dump) as raw, open(out, "wb") as f:
        for page_id, doc in pages(_CountingReader(raw), dump):
            f.write(_lines(page_id, doc))
            made += 1
    return made


def convert(dump: Path, corpus: Path, limit: int | None = None, source: dict | None = None, one_k: bool = True,
            progress=None, workers: int = 1) -> Conversion:
    """Convert ``dump`` into ``corpus``, its -1k file (``one_k``) and its entry (``<name>.meta.json``, which
    also says whether the dump was read to its end). ``workers`` > 1 converts on that many cores
    (:mod:`~ingestlab.corpus.wikipedia.parallel`; not with ``limit``)."""
    if not dump.is_file():
        raise BadDump(f"{dump}: no such file")
    if workers > 1 and limit is None:
        try:
            return _convert_in_parallel(dump, corpus, source, one_k, progress, workers)
        except BadDump:
            pass  # broken input: one pass names where, and keeps the pages before it
    dumps = orjson.dumps
    start = time.perf_counter()
    error: BadDump | None = None
    with CorpusWriter(corpus, one_k=one_k, action_lines=True, progress=progress) as writer, open_dump(dump) as raw:
        reader = _CountingReader(raw)
        try:
            for page_id, doc in pages(reader, dump):
                writer.write(_lines(page_id, doc, dumps))
                if limit is not None and writer.docs >= limit:
                    break
        except BadDump as e:
            error = e
        written = writer.commit({"converted-from": str(dump), "complete": error is None, "input-bytes": reader.bytes, **(source or {})})
    result = Conversion(corpus, written.documents, reader.bytes, written.uncompressed_bytes, time.perf_counter() - start,
                        complete=error is None)
    if error:
        raise BadDump(f"{error} — the {written.documents:,} pages before it are kept in {corpus} (its .meta.json marks it incomplete)")
    return result
