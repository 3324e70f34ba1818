"""One DVF row to one document: each column's field and parser, the checks that name a bad cell, and the plan the
compiled fast path (:mod:`.native`) is given so that it writes the same documents. Used by :mod:`.convert`."""

from __future__ import annotations

import math
from typing import Callable

from ingestlab.corpus.dvf.formats import DATE, DOUBLE, ETALAB_COLUMNS, INTEGER, OFFICIAL_COLUMNS


class BadRow(ValueError):
    """A row that cannot be converted; the message names the column (the caller adds file and line)."""


def _official_date(s: str) -> str:
    if len(s) != 10 or s[2] != "/" or s[5] != "/":
        raise ValueError(f"date {s!r} is not dd/mm/yyyy")
    return f"{s[6:10]}-{s[3:5]}-{s[0:2]}"


def _iso_date(s: str) -> str:
    if len(s) != 10 or s[4] != "-" or s[7] != "-":
        raise ValueError(f"date {s!r} is not yyyy-mm-dd")
    return s


INTEGER_RANGE = (-(2**31), 2**31 - 1)  # the track maps integer columns as Elasticsearch `integer`


def _integer(s: str) -> int:
    """An ``integer`` field's value: one beyond 32 bits is refused here, naming its row, not by Elasticsearch later."""
    value = int(s)
    if not INTEGER_RANGE[0] <= value <= INTEGER_RANGE[1]:
        raise ValueError(f"{s!r} is beyond an integer field's range ({INTEGER_RANGE[0]} to {INTEGER_RANGE[1]})")
    return value


def _double(s: str) -> float:
    """A finite number: ``inf`` and ``nan`` (or a value too large for a double) would be written as null, a value lost."""
    value = float(s)
    if not math.isfinite(value):
        raise ValueError(f"{s!r} is not a finite number")
    return value


def _comma_double(s: str) -> float:
    return _double(s.replace(",", "."))


def _postcode(s: str) -> str:
    if not s.isdigit():
        raise ValueError(f"postcode {s!r} is not a number")
    return s.zfill(5)


def _plan(columns, kinds: dict[str, Callable]):
    """(text columns, typed columns): text is copied as it is, typed values go through a parser (two flat loops)."""
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


KINDS = {
    "official": {DATE: _official_date, DOUBLE: _comma_double, INTEGER: _integer},
    "etalab": {DATE: _iso_date, DOUBLE: _double, INTEGER: _integer},
}
# the fast path's names for the same parsers (ingestlab/corpus/dvf/native/src/main.rs)
_NATIVE_KINDS = {_official_date: "french-date", _iso_date: "iso-date", _comma_double: "comma-double", _double: "double", _integer: "int"}
_COLUMNS = {"official": OFFICIAL_COLUMNS, "etalab": ETALAB_COLUMNS}
_SEPARATOR = {"official": "|", "etalab": ","}
_POSTCODE = {"official": "Code postal", "etalab": "code_postal"}
_OFFICIAL_CODES = ("Code departement", "Code commune", "Prefixe de section", "Section", "No plan")
_LOCATION = ("longitude", "latitude")


def official_converter() -> Callable[[list[str]], dict]:
    base = _base_converter(OFFICIAL_COLUMNS, KINDS["official"], _SEPARATOR["official"], _POSTCODE["official"])
    dept, commune, prefix, section, plan_no = ([c.header for c in OFFICIAL_COLUMNS].index(h) for h in _OFFICIAL_CODES)

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
    base = _base_converter(ETALAB_COLUMNS, KINDS["etalab"], _SEPARATOR["etalab"], _POSTCODE["etalab"])
    headers = [c.header for c in ETALAB_COLUMNS]
    lon, lat = (headers.index(h) for h in _LOCATION)

    def convert(row: list[str]) -> dict:
        doc = base(row)
        if row[lon] or row[lat]:
            try:
                doc["location"] = {"lat": _double(row[lat]), "lon": _double(row[lon])}
            except ValueError:
                raise BadRow(f"longitude/latitude {row[lon]!r}/{row[lat]!r} is not a pair of numbers") from None
        return doc

    return convert


CONVERTERS = {"official": official_converter, "etalab": etalab_converter}


def native_plan(fmt: str, encoding: str) -> str:
    """What the compiled fast path needs to know of a format: each column's field and kind, in the order the Python
    converter puts them into a document, and the columns it handles specially."""
    columns = _COLUMNS[fmt]
    text, typed = _plan(columns, KINDS[fmt])
    headers = [c.header for c in columns]
    parts = {
        "format": fmt,
        "encoding": encoding,
        "width": len(columns),
        "text": "|".join(f"{i}={name}" for i, name in text),
        "typed": "|".join(f"{i}={name}={_NATIVE_KINDS[parse]}" for i, name, parse, _ in typed),
        "postcode": headers.index(_POSTCODE[fmt]),
        "official": "|".join(str(headers.index(h)) for h in _OFFICIAL_CODES) if fmt == "official" else "",
        "etalab": "|".join(str(headers.index(h)) for h in _LOCATION) if fmt == "etalab" else "",
    }
    return "".join(f'"{key}":{value};' for key, value in parts.items())
