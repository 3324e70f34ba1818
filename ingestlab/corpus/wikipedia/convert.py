"""Stream a MediaWiki XML export (plain, ``.bz2`` or ``.gz``, schema 0.10/0.11) into a Rally corpus, one page at a
time (:mod:`.pages`). Broken input (malformed XML, a truncated ``.bz2``) stops the conversion with its position; the
pages converted before it are kept as a valid, smaller corpus, and the error says so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ingestlab.corpus.files import CorpusWriter
from ingestlab.corpus.wikipedia import multistream, native, parallel
from ingestlab.corpus.wikipedia.pages import BadDump, CountingReader, dump_source, open_dump, page_lines

__all__ = ["BadDump", "Conversion", "convert", "write_documents"]


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


def _convert_in_parallel(
    dump: Path, corpus: Path, source: dict | None, one_k: bool, progress, workers: int, offsets: list[int] | None
) -> Conversion:
    start = time.perf_counter()
    native.library()  # built here once, not by each worker
    with (
        CorpusWriter(corpus, one_k=one_k, action_lines=True, progress=progress) as writer,
        open(dump, "rb") if offsets else open_dump(dump) as raw,
    ):
        reader = CountingReader(raw)
        work = multistream.runs(dump, offsets) if offsets else parallel.pieces(reader)
        xml_bytes = 0
        try:
            for lines, count, size in parallel.convert_lines(work, workers):
                writer.write_block(lines, count)
                xml_bytes += size
        except (parallel.BrokenPiece, EOFError) as e:
            raise BadDump(str(e)) from None  # the writer's `with` removes what was written
        read = xml_bytes if offsets else reader.bytes
        written = writer.commit(
            {
                "converted-from": str(dump),
                "complete": True,
                "input-bytes": read,
                **({"streams": len(offsets)} if offsets else {}),
                **(source or {}),
            }
        )
    return Conversion(corpus, written.documents, read, written.uncompressed_bytes, time.perf_counter() - start, complete=True)


def write_documents(dump: Path, out: Path) -> int:
    """The pages of ``dump`` as bare corpus lines in ``out`` (no -1k file, no entry): one part of a corpus made in parts."""
    made = 0
    with open_dump(dump) as raw, open(out, "wb") as f:
        for data in page_lines(CountingReader(raw), dump):
            f.write(data)
            made += 1
    return made


def convert(
    dump: Path,
    corpus: Path,
    limit: int | None = None,
    source: dict | None = None,
    one_k: bool = True,
    progress=None,
    workers: int = 1,
    index: Path | None = None,
) -> Conversion:
    """Convert ``dump`` into ``corpus``, its -1k file (``one_k``) and its entry (which says whether the dump was read
    to its end). ``workers`` > 1 converts on that many cores (:mod:`.parallel`; not with ``limit``); a multistream
    dump with its ``index`` (by default the one beside it) is decompressed by those workers too."""
    dump_source(dump)  # one line for what is no export at all
    index = index or multistream.index_beside(dump)
    if workers > 1 and limit is None:
        offsets = multistream.stream_offsets(index, dump) if index else None  # an index that does not fit: said at once
        try:
            return _convert_in_parallel(dump, corpus, source, one_k, progress, workers, offsets)
        except BadDump:
            pass  # broken input: one pass names where, and keeps the pages before it
    start = time.perf_counter()
    error: BadDump | None = None
    with CorpusWriter(corpus, one_k=one_k, action_lines=True, progress=progress) as writer, open_dump(dump) as raw:
        reader = CountingReader(raw)
        try:
            for data in page_lines(reader, dump):
                writer.write(data)
                if limit is not None and writer.docs >= limit:
                    break
        except BadDump as e:
            error = e
        written = writer.commit({"converted-from": str(dump), "complete": error is None, "input-bytes": reader.bytes, **(source or {})})
    result = Conversion(
        corpus, written.documents, reader.bytes, written.uncompressed_bytes, time.perf_counter() - start, complete=error is None
    )
    if error:
        raise BadDump(f"{error} — the {written.documents:,} pages before it are kept in {corpus} (its .meta.json marks it incomplete)")
    return result
