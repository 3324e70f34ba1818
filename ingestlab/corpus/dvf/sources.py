"""What a DVF input is: the sources of each input (a file, a directory's files, a ZIP's DVF members; plain or
compressed, told by their bytes: :mod:`ingestlab.corpus.inputs`), their encoding and format, and their text."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Iterable

from ingestlab.corpus import inputs
from ingestlab.corpus.dvf.formats import OFFICIAL_FIRST_HEADERS
from ingestlab.errors import IngestlabError


class BadInput(IngestlabError):
    """A DVF file or row that cannot be converted; the message names file and line."""


def detect_encoding(source: inputs.Source | Path, sample_bytes: int = 1 << 20) -> str:
    """UTF-8 (with or without BOM) when the first MiB (decompressed) decodes as UTF-8, else Latin-1."""
    sample = as_source(source).head(sample_bytes)
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


def format_of(header_line: str) -> str | None:
    """``official`` or ``etalab`` for a DVF header line, else None."""
    first = header_line.split("|", 1)[0].strip()
    if "|" in header_line and first in OFFICIAL_FIRST_HEADERS:
        return "official"
    if header_line.startswith("id_mutation,"):
        return "etalab"
    return None


def is_dvf(head: bytes) -> bool:
    """Whether a file's first bytes (decompressed) start with a DVF header, in either encoding."""
    return format_of(head.split(b"\n", 1)[0].rstrip(b"\r").decode("latin-1").lstrip("\ufeff\u00ef\u00bb\u00bf")) is not None


def detect_format(label, header_line: str) -> str:
    found = format_of(header_line)
    if found:
        return found
    expected = (
        f"expected the official '|'-separated header (first column {' or '.join(repr(h) for h in OFFICIAL_FIRST_HEADERS)}) "
        f"or Etalab's 'id_mutation,…'"
    )
    described = inputs.describe(header_line.encode("latin-1", "replace"))
    if described:
        raise BadInput(f"{label}: {described}, not a DVF file ({expected})")
    raise BadInput(f"{label}:1: not a DVF header: {expected}; got {header_line[:80]!r}")


def as_source(source: inputs.Source | Path) -> inputs.Source:
    return source if isinstance(source, inputs.Source) else inputs.Source(Path(source))


def sources(paths: Iterable[Path], left_out: list[str] | None = None) -> list[inputs.Source]:
    """The DVF data of the inputs, in order: each file, each file of a directory (name order), each DVF member of a ZIP."""
    try:
        return [s for p in paths for s in inputs.sources(Path(p), is_dvf, "DVF", left_out)]
    except inputs.UnreadableInput as e:
        raise BadInput(str(e)) from None


def header_format(f, label: str, encoding: str) -> str:
    try:
        header = f.readline().rstrip("\r\n")
    except UnicodeDecodeError as e:
        raise BadInput(f"{label}:1: not {encoding} ({e.reason}); pass --encoding latin-1 or utf-8") from None
    return detect_format(label, header)


def csv_reader(f, fmt: str):
    return csv.reader(f, delimiter="|", quoting=csv.QUOTE_NONE) if fmt == "official" else csv.reader(f)


def text(source: inputs.Source, encoding: str):
    """The source's text, decompressed ahead in a thread of its own."""
    return io.TextIOWrapper(source.open(), encoding=encoding, errors="strict", newline="")
