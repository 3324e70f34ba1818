"""Stream DVF files (either real format; plain, ``.gz``, ``.bz2`` or a ``.zip``) into a Rally corpus at constant memory,
through the compiled fast path (:mod:`.native`) where it is built. A bad row is an error naming file and line: in strict
mode the conversion stops there and writes nothing; otherwise the row is skipped, counted, and reported at the end.
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import orjson

from ingestlab.corpus import inputs
from ingestlab.corpus.dvf import native
from ingestlab.corpus.dvf.rows import CONVERTERS, BadRow, native_plan
from ingestlab.corpus.dvf.sources import BadInput, as_source, csv_reader, detect_encoding, header_format, sources, text
from ingestlab.corpus.files import CorpusWriter

__all__ = ["BadInput", "Conversion", "ConvertedBy", "Skipped", "convert", "detect_encoding", "documents", "sources"]

KEPT_MESSAGES = 20
csv.field_size_limit(1 << 20)


@dataclass
class Skipped:
    count: int = 0
    messages: list[str] = field(default_factory=list)

    def add(self, message: str) -> None:
        self.count += 1
        if len(self.messages) < KEPT_MESSAGES:
            self.messages.append(message)


def _bad_row(message: str, strict: bool, skipped: Skipped) -> None:
    """A bad row (``message`` names file and line): the end of a strict conversion, else skipped and counted."""
    if strict:
        raise BadInput(message) from None
    skipped.add(message)


@dataclass
class ConvertedBy:
    """How many rows each path converted (skipped rows included)."""

    native: int = 0
    python: int = 0


def _convert_natively(
    exe: Path, source: inputs.Source, writer: CorpusWriter, skipped: Skipped, strict: bool, encoding: str, by: ConvertedBy
) -> int:
    """One source through the compiled fast path; the rows it leaves to Python are converted here, in order. Returns -1
    when it did the whole file, else the last line it did (the header is line 1). A compressed source comes through a
    pipe (:class:`.native.Feed`), and what the stream met (a truncated file) wins over what the fast path made of it."""
    with text(source, encoding) as f:
        fmt = header_format(f, source.label, encoding)
    feed = native.Feed(source) if source.compressed else None
    try:
        done = _run_natively(exe, source, feed, writer, skipped, strict, encoding, fmt, by)
    except BadInput:
        if feed is None or feed.error() is None:
            raise
    if feed is not None and feed.error() is not None:
        raise BadInput(str(source.error(feed.error()))) from None
    return done


def _run_natively(exe, source, feed, writer, skipped, strict, encoding, fmt, by) -> int:
    fd = writer.shared_fd()
    convert, row_encoding = CONVERTERS[fmt](), "utf-8" if encoding == "utf-8-sig" else encoding
    dumps = orjson.dumps
    path = source.path if feed is None else feed.path
    with native.Run(
        exe, native_plan(fmt, encoding), path, fd, writer.one_k_room(), source.label, input_fd=None if feed is None else feed.read_fd
    ) as run:  # ended here, whatever happens
        if feed is not None:
            feed.started()
        for item in run.frames():
            if isinstance(item, native.Block):
                by.native += item.count
                if fd is None:
                    writer.write_block(item.data, item.count)
                else:
                    writer.written_by_other(item.count, item.size, item.data)
                continue
            if isinstance(item, native.Rest):
                return item.line
            by.python += 1
            row = next(csv_reader([item.data.decode(row_encoding)], fmt), [])
            try:
                writer.write(dumps(convert(row)) + b"\n")
            except BadRow as e:
                _bad_row(f"{source.label}:{item.line}: {e}", strict, skipped)
                run.answer(False)
                continue
            writer.sync()
            run.answer(True)
    return -1  # the whole file


def documents(
    source: inputs.Source | Path,
    skipped: Skipped,
    strict: bool = False,
    encoding: str | None = None,
    by: ConvertedBy | None = None,
    after_line: int = 1,
) -> Iterable[dict]:
    """The documents of one DVF source, in order, converted in Python from the line after ``after_line`` (the header is
    line 1)."""
    source = as_source(source)
    label = source.label
    encoding = encoding or detect_encoding(source)
    by = by if by is not None else ConvertedBy()
    with text(source, encoding) as f:
        fmt = header_format(f, label, encoding)
        for done in range(1, after_line):
            try:
                f.readline()
            except UnicodeDecodeError as e:  # the decoder reads ahead: a bad byte further on may show here
                raise BadInput(f"{label}: not {encoding} ({e.reason}) after line {done}; pass --encoding latin-1 or utf-8") from None
        reader = csv_reader(f, fmt)
        convert = CONVERTERS[fmt]()

        def bad(reason) -> None:
            # the reader started after line `after_line`, and line_num counts the lines it consumed
            _bad_row(f"{label}:{reader.line_num + after_line}: {reason}", strict, skipped)

        while True:
            try:
                for row in reader:
                    by.python += 1
                    try:
                        doc = convert(row)
                    except BadRow as e:
                        bad(e)
                        continue
                    yield doc
                return
            except csv.Error as e:
                bad(e)  # the reader goes on with the next line
            except UnicodeDecodeError as e:
                raise BadInput(
                    f"{label}: not {encoding} ({e.reason}) after line {reader.line_num + after_line}; pass --encoding latin-1 or utf-8"
                ) from None
            except inputs.UnreadableInput as e:
                raise BadInput(str(e)) from None


@dataclass
class Conversion:
    inputs: list[str]
    corpus: Path
    documents: int
    uncompressed_bytes: int
    compressed_bytes: int | None
    skipped: Skipped
    seconds: float
    converted_by: ConvertedBy = field(default_factory=ConvertedBy)
    left_out: list[str] = field(default_factory=list)  # members of ZIP inputs that hold no DVF data

    @property
    def rows_per_second(self) -> float:
        return (self.documents + self.skipped.count) / self.seconds if self.seconds else 0.0


def convert(
    paths: list[Path],
    corpus: Path,
    strict: bool = False,
    compress: bool = True,
    encoding: str | None = None,
    limit: int | None = None,
    source: dict | None = None,
    one_k: bool = True,
    progress=None,
) -> Conversion:
    """Convert ``paths`` (files or directories, plain or compressed, in order) into ``corpus``, its -1k file
    (``one_k``) and its entry; ``source`` adds to what the entry says of the documents' origin."""
    left_out: list[str] = []
    data = sources(paths, left_out)
    skipped = Skipped()
    by = ConvertedBy()
    dumps = orjson.dumps
    exe = native.binary() if limit is None else None
    start = time.perf_counter()
    with CorpusWriter(corpus, compress=compress, one_k=one_k, progress=progress) as writer:
        for item in data:
            file_encoding = encoding or detect_encoding(item)
            done = _convert_natively(exe, item, writer, skipped, strict, file_encoding, by) if exe is not None else 1
            if done == -1:
                continue
            for doc in documents(item, skipped, strict, file_encoding, by, after_line=done):
                writer.write(dumps(doc) + b"\n")
                if limit is not None and writer.docs >= limit:
                    break
            if limit is not None and writer.docs >= limit:
                break
        labels = [item.label for item in data]
        written = writer.commit(
            {
                "converted-from": labels,
                "skipped-rows": skipped.count,
                "rows-converted-by": {"compiled": by.native, "python": by.python},
                **({"left-out": left_out} if left_out else {}),
                **(source or {}),
            }
        )
    return Conversion(
        labels,
        corpus,
        written.documents,
        written.uncompressed_bytes,
        written.compressed_bytes,
        skipped,
        time.perf_counter() - start,
        by,
        left_out,
    )
