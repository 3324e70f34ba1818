"""Stream DVF files (either real format) into a Rally corpus, at constant memory.

Writes the corpus as every pack corpus is written (:mod:`ingestlab.corpus.files`): ``<name>.json``, its
``-1k`` file, optionally ``.bz2`` archives (compressed in a second thread while rows convert), and the
entry ``<name>.meta.json`` with the exact document count, byte sizes and the files it came from. A bad row is an error naming file and line: in strict
mode the conversion stops there and writes nothing; otherwise the row is skipped, counted, and
reported at the end.
"""
from __future__ import annotations

import csv
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import orjson

from ingestlab.corpus.dvf import native
from ingestlab.corpus.dvf.formats import OFFICIAL_FIRST_HEADERS
from ingestlab.corpus.dvf.rows import CONVERTERS, BadRow, native_plan
from ingestlab.corpus.files import CorpusWriter
from ingestlab.errors import IngestlabError

KEPT_MESSAGES = 20
csv.field_size_limit(1 << 20)


class BadInput(IngestlabError):
    """A DVF file or row that cannot be converted; the message names file and line."""


# ---- reading ---------------------------------------------------------------------------------

def detect_encoding(path: Path, sample_bytes: int = 1 << 20) -> str:
    """UTF-8 (with or without BOM) when the file's first MiB decodes as UTF-8, else Latin-1."""
    with open(path, "rb") as f:
        sample = f.read(sample_bytes)
    if sample.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    for cut in range(4):  # the sample may end inside a multi-byte character
        try:
            sample[: len(sample) - cut].decode("utf-8")
            return "utf-8"
        except UnicodeDecodeError as e:
            if e.start < len(sample) - 4:
                break
    return "latin-1"


def detect_format(path: Path, header_line: str) -> str:
    first = header_line.split("|", 1)[0].strip()
    if "|" in header_line and first in OFFICIAL_FIRST_HEADERS:
        return "official"
    if header_line.startswith("id_mutation,"):
        return "etalab"
    raise BadInput(
        f"{path}:1: not a DVF header: expected the official '|'-separated header (first column "
        f"{' or '.join(repr(h) for h in OFFICIAL_FIRST_HEADERS)}) or Etalab's 'id_mutation,…'; got {header_line[:80]!r}"
    )


# ---- one file ---------------------------------------------------------------------------------

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


def _header(f, path: Path, encoding: str) -> str:
    try:
        header = f.readline().rstrip("\r\n")
    except UnicodeDecodeError as e:
        raise BadInput(f"{path}:1: not {encoding} ({e.reason}); pass --encoding latin-1 or utf-8") from None
    return detect_format(path, header)


def _reader(f, fmt: str):
    return csv.reader(f, delimiter="|", quoting=csv.QUOTE_NONE) if fmt == "official" else csv.reader(f)


@dataclass
class ConvertedBy:
    """How many rows each path converted (skipped rows included)."""
    native: int = 0
    python: int = 0


def _convert_natively(exe: Path, path: Path, writer: CorpusWriter, skipped: Skipped, strict: bool, encoding: str,
                      by: ConvertedBy) -> int:
    """One file through the compiled fast path (:mod:`.native`): it appends its documents to the corpus file (or,
    with an archive, hands them over) and leaves to Python the rows outside the plain forms it converts, which are
    converted here, in order, with the Python converter's documents and errors. Returns -1 when it did the whole
    file, else the number of the last line it did: Python reads on from the next (the header is line 1)."""
    with open(path, encoding=encoding, errors="strict", newline="") as f:
        fmt = _header(f, path, encoding)
    fd = writer.shared_fd()
    convert, row_encoding = CONVERTERS[fmt](), "utf-8" if encoding == "utf-8-sig" else encoding
    dumps = orjson.dumps
    with native.Run(exe, native_plan(fmt, encoding), path, fd, writer.one_k_room()) as run:  # ended here, whatever happens
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
            row = next(_reader([item.data.decode(row_encoding)], fmt), [])
            try:
                writer.write(dumps(convert(row)) + b"\n")
            except BadRow as e:
                _bad_row(f"{path}:{item.line}: {e}", strict, skipped)
                run.answer(False)
                continue
            writer.sync()
            run.answer(True)
    return -1  # the whole file


def documents(path: Path, skipped: Skipped, strict: bool = False, encoding: str | None = None,
              by: ConvertedBy | None = None, after_line: int = 1) -> Iterable[dict]:
    """The documents of one DVF file, in file order, converted in Python; ``after_line``: from the line after that
    one (the header is line 1; lines and rows are the same here, which the fast path checked before handing over)."""
    encoding = encoding or detect_encoding(path)
    by = by if by is not None else ConvertedBy()
    with open(path, encoding=encoding, errors="strict", newline="") as f:
        fmt = _header(f, path, encoding)
        for done in range(1, after_line):
            try:
                f.readline()
            except UnicodeDecodeError as e:  # the decoder reads ahead: a bad byte further on may show here
                raise BadInput(f"{path}: not {encoding} ({e.reason}) after line {done}; pass --encoding latin-1 or utf-8") from None
        reader = _reader(f, fmt)
        convert = CONVERTERS[fmt]()

        def bad(reason) -> None:
            # the reader started after line `after_line`, and line_num counts the lines it consumed
            _bad_row(f"{path}:{reader.line_num + after_line}: {reason}", strict, skipped)

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
                    f"{path}: not {encoding} ({e.reason}) after line {reader.line_num + after_line}; pass --encoding latin-1 or utf-8"
                ) from None


# ---- writing the corpus ---------------------------------------------------------------------------

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

    @property
    def rows_per_second(self) -> float:
        return (self.documents + self.skipped.count) / self.seconds if self.seconds else 0.0

def convert(
    inputs: list[Path],
    corpus: Path,
    strict: bool = False,
    compress: bool = True,
    encoding: str | None = None,
    limit: int | None = None,
    source: dict | None = None,
    one_k: bool = True,
    progress=None,
) -> Conversion:
    """Convert ``inputs`` (in order) into ``corpus`` (``…/<name>.json``), its -1k file (``one_k``) and its
    entry; ``source`` adds to what the entry says of the documents' origin."""
    for path in inputs:
        if not Path(path).is_file():
            raise BadInput(f"{path}: no such file")
    skipped = Skipped()
    by = ConvertedBy()
    dumps = orjson.dumps
    exe = native.binary() if limit is None else None
    start = time.perf_counter()
    with CorpusWriter(corpus, compress=compress, one_k=one_k, progress=progress) as writer:
        for path in inputs:
            path = Path(path)
            file_encoding = encoding or detect_encoding(path)
            done = _convert_natively(exe, path, writer, skipped, strict, file_encoding, by) if exe is not None else 1
            if done == -1:
                continue
            for doc in documents(path, skipped, strict, file_encoding, by, after_line=done):
                writer.write(dumps(doc) + b"\n")
                if limit is not None and writer.docs >= limit:
                    break
            if limit is not None and writer.docs >= limit:
                break
        written = writer.commit({"converted-from": [str(p) for p in inputs], "skipped-rows": skipped.count,
                                 "rows-converted-by": {"compiled": by.native, "python": by.python}, **(source or {})})
    return Conversion([str(p) for p in inputs], corpus, written.documents, written.uncompressed_bytes, written.compressed_bytes,
                      skipped, time.perf_counter() - start, by)
