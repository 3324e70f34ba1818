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
from typing import Callable, Iterable

import orjson

from ingestlab.corpus.dvf.formats import DATE, DOUBLE, ETALAB_COLUMNS, INTEGER, OFFICIAL_COLUMNS, OFFICIAL_FIRST_HEADERS
from ingestlab.corpus.files import CorpusWriter
from ingestlab.errors import IngestlabError

KEPT_MESSAGES = 20
csv.field_size_limit(1 << 20)


class BadInput(IngestlabError):
    """A DVF file or row that cannot be converted; the message names file and line."""


class BadRow(ValueError):
    pass


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


# ---- row conversion ----------------------------------------------------------------------------

def _official_date(s: str) -> str:
    if len(s) != 10 or s[2] != "/" or s[5] != "/":
        raise ValueError(f"date {s!r} is not dd/mm/yyyy")
    return f"{s[6:10]}-{s[3:5]}-{s[0:2]}"


def _iso_date(s: str) -> str:
    if len(s) != 10 or s[4] != "-" or s[7] != "-":
        raise ValueError(f"date {s!r} is not yyyy-mm-dd")
    return s


def _comma_double(s: str) -> float:
    return float(s.replace(",", "."))


def _postcode(s: str) -> str:
    if not s.isdigit():
        raise ValueError(f"postcode {s!r} is not a number")
    return s.zfill(5)


def _plan(columns, kinds: dict[str, Callable]):
    """(text columns, typed columns): text values are copied as they are, typed ones go through a parser.
    Two flat loops are faster than one loop that asks every column for its kind."""
    text = [(i, c.field) for i, c in enumerate(columns) if c.field and c.kind not in kinds]
    typed = [(i, c.field, kinds[c.kind], c.header) for i, c in enumerate(columns) if c.field and c.kind in kinds]
    return text, typed


def _fill(row: list[str], text, typed) -> dict:
    doc = {}
    for i, name in text:
        v = row[i]
        if v:
            doc[name] = v
    for i, name, parse, header in typed:
        v = row[i]
        if v:
            try:
                doc[name] = parse(v)
            except ValueError as e:
                raise BadRow(f"column {header!r}: {e}") from None
    return doc


def _base_converter(columns, kinds: dict[str, Callable], separator: str, postcode_header: str) -> Callable[[list[str]], dict]:
    """Checks the row's width, copies and parses its columns, and pads the postcode to five digits."""
    text, typed = _plan(columns, kinds)
    width = len(columns)
    postcode = [c.header for c in columns].index(postcode_header)

    def base(row: list[str]) -> dict:
        if len(row) != width:
            raise BadRow(f"expected {width} {separator!r}-separated columns, got {len(row)}")
        doc = _fill(row, text, typed)
        if row[postcode]:
            try:
                doc["postal_code"] = _postcode(row[postcode])
            except ValueError as e:
                raise BadRow(f"column {postcode_header!r}: {e}") from None
        return doc

    return base


def official_converter() -> Callable[[list[str]], dict]:
    base = _base_converter(OFFICIAL_COLUMNS, {DATE: _official_date, DOUBLE: _comma_double, INTEGER: int}, "|", "Code postal")
    dept, commune, prefix, section, plan_no = (
        [c.header for c in OFFICIAL_COLUMNS].index(h)
        for h in ("Code departement", "Code commune", "Prefixe de section", "Section", "No plan")
    )

    def convert(row: list[str]) -> dict:
        doc = base(row)
        if row[commune] and row[dept]:
            code = row[dept][:2] + row[commune].zfill(3)  # the INSEE code, as Etalab's code_commune
            doc["commune_code"] = code
            if row[section] and row[plan_no]:
                doc["plot_id"] = code + (row[prefix] or "000").zfill(3) + row[section].rjust(2, "0") + row[plan_no].zfill(4)
        return doc

    return convert


def etalab_converter() -> Callable[[list[str]], dict]:
    base = _base_converter(ETALAB_COLUMNS, {DATE: _iso_date, DOUBLE: float, INTEGER: int}, ",", "code_postal")
    headers = [c.header for c in ETALAB_COLUMNS]
    lon, lat = headers.index("longitude"), headers.index("latitude")

    def convert(row: list[str]) -> dict:
        doc = base(row)
        if row[lon] or row[lat]:
            try:
                doc["location"] = {"lat": float(row[lat]), "lon": float(row[lon])}
            except ValueError:
                raise BadRow(f"longitude/latitude {row[lon]!r}/{row[lat]!r} is not a pair of numbers") from None
        return doc

    return convert


CONVERTERS = {"official": official_converter, "etalab": etalab_converter}


# ---- one file ---------------------------------------------------------------------------------

@dataclass
class Skipped:
    count: int = 0
    messages: list[str] = field(default_factory=list)

    def add(self, message: str) -> None:
        self.count += 1
        if len(self.messages) < KEPT_MESSAGES:
            self.messages.append(message)


def documents(path: Path, skipped: Skipped, strict: bool = False, encoding: str | None = None) -> Iterable[dict]:
    """The documents of one DVF file, in file order."""
    encoding = encoding or detect_encoding(path)
    with open(path, encoding=encoding, errors="strict", newline="") as f:
        try:
            header = f.readline().rstrip("\r\n")
        except UnicodeDecodeError as e:
            raise BadInput(f"{path}:1: not {encoding} ({e.reason}); pass --encoding latin-1 or utf-8") from None
        fmt = detect_format(path, header)
        if fmt == "official":
            reader = csv.reader(f, delimiter="|", quoting=csv.QUOTE_NONE)
        else:
            reader = csv.reader(f)
        convert = CONVERTERS[fmt]()

        def bad(reason) -> None:
            # the reader started after the header line, and line_num counts the lines it consumed
            message = f"{path}:{reader.line_num + 1}: {reason}"
            if strict:
                raise BadInput(message)
            skipped.add(message)

        while True:
            try:
                for row in reader:
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
                    f"{path}: not {encoding} ({e.reason}) after line {reader.line_num + 1}; pass --encoding latin-1 or utf-8"
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
    dumps = orjson.dumps
    start = time.perf_counter()
    with CorpusWriter(corpus, compress=compress, one_k=one_k, progress=progress) as writer:
        for path in inputs:
            for doc in documents(Path(path), skipped, strict, encoding):
                writer.write(dumps(doc) + b"\n")
                if limit is not None and writer.docs >= limit:
                    break
            if limit is not None and writer.docs >= limit:
                break
        written = writer.commit({"converted-from": [str(p) for p in inputs], "skipped-rows": skipped.count, **(source or {})})
    return Conversion([str(p) for p in inputs], corpus, written.documents, written.uncompressed_bytes, written.compressed_bytes,
                      skipped, time.perf_counter() - start)
