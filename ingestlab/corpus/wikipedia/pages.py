"""A MediaWiki XML export's pages, one ``<page>`` at a time (each cleared when done: memory stays flat), each as its bulk
action line (the page id as ``_id``) and its document.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import orjson
from lxml import etree

from ingestlab.corpus import inputs
from ingestlab.corpus.wikipedia import markup, native
from ingestlab.errors import IngestlabError


class BadDump(IngestlabError):
    """Malformed or truncated input; the message gives the position and what was kept."""


class CountingReader:
    """A file object that counts the (uncompressed) bytes the parser has read, for MB/s and positions."""

    def __init__(self, raw):
        self.raw = raw
        self.bytes = 0

    def read(self, size=-1):
        data = self.raw.read(size)
        self.bytes += len(data)
        return data


def is_export(head: bytes) -> bool:
    return b"<mediawiki" in head


def dump_source(path: Path) -> inputs.Source:
    """The export in ``path``, plain or compressed (gzip, bz2, a ZIP holding one export), told by its first bytes; a file
    that is none of them, or no MediaWiki export, is one line saying what it is."""
    try:
        found = inputs.sources(path, is_export, "MediaWiki export")
        if len(found) > 1:
            raise BadDump(
                f"{path}: a ZIP with {len(found)} MediaWiki exports ({', '.join(s.member for s in found)}): convert them one at a time"
            )
        head = found[0].head(1 << 16)
    except inputs.UnreadableInput as e:
        raise BadDump(str(e)) from None
    if not is_export(head):
        what = inputs.describe(head)
        raise BadDump(
            f"{found[0].label}: {what or 'text'}, not a MediaWiki export (no <mediawiki> element in its first 64 KiB"
            + ("" if what else f"; it starts {head[:60].decode('utf-8', 'replace')!r}")
            + ")"
        )
    return found[0]


def open_dump(path: Path):
    """The export's bytes; a compressed one is decompressed ahead of the parser, in a thread of its own."""
    return dump_source(path).open()


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


_FIELDS = frozenset({"id", "title", "ns", "redirect", "revision", "text"})


def _kind(tag, kinds: dict) -> str:
    """The field a tag not yet in ``kinds`` stands for ("" for none): its local name, in any namespace, as ``{*}``
    would match it; kept in ``kinds`` (the callers look there first: this runs once per tag)."""
    local = tag.rpartition("}")[2] if isinstance(tag, str) else ""  # comments and PIs have no name
    kind = kinds[tag] = local if local in _FIELDS else ""
    return kind


def _fields(page, kinds: dict) -> tuple[str | None, str | None, str | None, bool, str | None]:
    """A page's id, title, ns, redirect and first revision's text, in one walk over its children: each the first child
    of its local name, in any namespace, as ``findtext`` would find it; ``kinds`` caches each tag's field."""
    page_id = title = ns = text = None
    redirect = False
    for child in page:
        tag = child.tag
        kind = kinds.get(tag)
        if kind is None:
            kind = _kind(tag, kinds)
        if kind == "id":
            if page_id is None:
                page_id = child.text or ""
        elif kind == "title":
            if title is None:
                title = child.text or ""
        elif kind == "ns":
            if ns is None:
                ns = child.text or ""
        elif kind == "redirect":
            redirect = True
        elif kind == "revision" and text is None:
            for part in child:
                if (kinds.get(part.tag) or _kind(part.tag, kinds)) == "text":
                    text = part.text or ""
                    break
    return page_id, title, ns, redirect, text


READ_SIZE = 1 << 16  # bytes of XML the parser is fed at a time


def _ended_pages(source: CountingReader) -> Iterator[tuple]:
    """Each ``</page>`` as the parser reaches it, fed ``READ_SIZE`` bytes at a time. On malformed XML, the pages that
    ended before the error come first, then the error (lxml's ``iterparse`` hands over none of them since 6.2)."""
    parser = etree.XMLPullParser(events=("end",), tag="{*}page", huge_tree=True, recover=False)
    while chunk := source.read(READ_SIZE):
        try:
            parser.feed(chunk)
        except etree.XMLSyntaxError:
            yield from parser.read_events()
            raise
        yield from parser.read_events()
    # input that stops inside a page fails here; what lxml 6.2 hands over then is that unfinished page, ended for it
    parser.close()
    yield from parser.read_events()


def page_lines(source: CountingReader, path: Path) -> Iterator[bytes]:
    """Every page's two corpus lines (:func:`lines`), in the dump's order: made by the compiled library
    (:mod:`.native`) when it is here, else (and for a page it gives back) by :func:`page_document` and :func:`lines`."""
    context = _ended_pages(source)
    kinds: dict = {}
    compiled = native.page_lines()
    try:
        for _, page in context:
            page_id, title, ns, redirect, text = _fields(page, kinds)
            title, ns, text = title or "", ns or "0", text or ""
            page.clear(keep_tail=False)
            while page.getprevious() is not None:
                del page.getparent()[0]
            if not page_id:
                raise BadDump(f"{path}: a <page> without <id> (title {title!r}) near byte {source.bytes:,}")
            made = compiled(page_id, title, ns, text, redirect) if compiled is not None else None
            yield made if made is not None else lines(page_id, page_document(title, ns, text, redirect))
    except etree.XMLSyntaxError as e:
        line, column = e.position if e.position else (e.lineno, 0)
        raise BadDump(f"{path}: malformed XML at line {line}, column {column}: {e.msg}") from None
    except inputs.UnreadableInput as e:
        raise BadDump(f"{e}; after {source.bytes:,} bytes of XML") from None


def lines(page_id: str, doc: dict, dumps=orjson.dumps) -> bytes:
    """A page's action line (its id) and document line."""
    return b'{"index":{"_id":' + dumps(page_id) + b"}}\n" + dumps(doc) + b"\n"
