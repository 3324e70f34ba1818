"""Wikimedia's multistream dumps: a run of independent bz2 streams (the header, ~100 pages each, the footer) and an
index beside it (``…-multistream-index.txt.bz2``) of ``offset:page id:title`` lines. :func:`runs` cuts the dump at stream
starts into runs that workers (:mod:`.parallel`) decompress and convert, so decompression runs on every core.
"""

from __future__ import annotations

import bz2
from pathlib import Path
from typing import Iterator

from ingestlab.corpus import inputs
from ingestlab.corpus.wikipedia.pages import BadDump
from ingestlab.corpus.wikipedia.parallel import _ROOT, BZ2

RUN_BYTES = 1 << 20  # compressed bytes a worker gets at once (~5 MiB of XML)
INDEX_SUFFIX = "-index.txt.bz2"


def index_beside(dump: Path) -> Path | None:
    """The index Wikimedia publishes beside a multistream dump (``…-multistream-index.txt.bz2``), when it is there."""
    name = dump.name
    if not name.endswith(".xml.bz2"):
        return None
    index = dump.with_name(name[: -len(".xml.bz2")] + INDEX_SUFFIX)
    return index if index.is_file() else None


def stream_offsets(index: Path, dump: Path) -> list[int]:
    """The streams' start offsets the index lists, in order, each checked against the dump (a bz2 stream starts there)."""
    try:
        sources = inputs.sources(index, lambda head: True, "index")
    except inputs.UnreadableInput as e:
        raise BadDump(str(e)) from None
    offsets: list[int] = []
    with sources[0].open() as f:
        for number, line in enumerate(f, 1):
            head, sep, _ = line.partition(b":")
            if not sep or not head.isdigit():
                raise BadDump(f"{index}:{number}: not an index line (offset:page id:title): {line[:80].decode(errors='replace')!r}")
            offset = int(head)
            if not offsets or offset != offsets[-1]:
                if offsets and offset < offsets[-1]:
                    raise BadDump(f"{index}:{number}: offset {offset} comes before the previous line's {offsets[-1]}")
                offsets.append(offset)
    if not offsets:
        raise BadDump(f"{index}: an empty index")
    size = dump.stat().st_size
    with open(dump, "rb") as d:
        for offset in offsets:
            d.seek(offset)
            start = d.read(4)
            if offset >= size or not (start[:3] == b"BZh" and start[3:4].isdigit()):
                raise BadDump(
                    f"{index} does not belong to {dump}: no bz2 stream starts at offset {offset:,}"
                    + (f" (the dump has {size:,} bytes)" if offset >= size else "")
                )
    return offsets


def root_element(dump: Path) -> bytes:
    """The export's root start tag, from its first stream (the header's)."""
    decompressor, xml = bz2.BZ2Decompressor(), b""
    with open(dump, "rb") as d:
        while not decompressor.eof and b"<page>" not in xml:
            chunk = d.read(1 << 16)
            if not chunk:
                break
            try:
                xml += decompressor.decompress(chunk)
            except OSError as e:
                raise BadDump(f"{dump}: a damaged bz2 stream at its start ({e})") from None
    root = _ROOT.search(xml)
    if root is None:
        raise BadDump(f"{dump}: no <mediawiki> root element in its first stream: not a MediaWiki export")
    return root.group(0)


def runs(dump: Path, offsets: list[int], run_bytes: int = RUN_BYTES) -> Iterator[tuple[bytes, bytes, bytes]]:
    """(``BZ2``, the root start tag, a run of whole streams) from the dump's start to its end: the header stream rides
    with the first run, the footer with the last."""
    root = root_element(dump)
    cuts = [0]
    for offset in offsets[1:]:  # the header's stream and the first pages' go together
        if offset - cuts[-1] >= run_bytes:
            cuts.append(offset)
    size = dump.stat().st_size
    cuts.append(size)
    with open(dump, "rb") as d:
        for start, end in zip(cuts, cuts[1:]):
            if end > start:
                d.seek(start)
                yield BZ2, root, d.read(end - start)
