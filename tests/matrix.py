"""The CI matrix (``tests/matrix.json``): the integration tests take their cases from it, and the docs' CI tables are
rendered from it (:mod:`devtools.docs.matrix`), so neither claims what the other does not do."""

import json
from pathlib import Path

MATRIX = json.loads((Path(__file__).parent / "matrix.json").read_text())


def rows(row_id: str, engine: str = "elasticsearch") -> list[dict]:
    found = [r for r in MATRIX["rows"] if r["id"] == row_id and r["engine"] == engine]
    assert found, f"tests/matrix.json has no row {row_id!r} for {engine}"
    return found


def tracks(row_id: str, version: str | None = None, engine: str = "elasticsearch") -> list[str]:
    """The tracks of one row (of one version, where the row id has several)."""
    (row,) = [r for r in rows(row_id, engine) if version is None or r["version"] == version]
    return list(row["tracks"])


def cases(row_id: str, engine: str = "elasticsearch") -> list[tuple[str, str]]:
    """(version, track) of every cell of a row id, in the table's order."""
    return [(r["version"], t) for r in rows(row_id, engine) for t in r["tracks"]]


def version(row_id: str, engine: str = "elasticsearch") -> str:
    (only,) = {r["version"] for r in rows(row_id, engine)}
    return only
