"""The CI matrix of ``tests/matrix.json`` in the docs: which track races on which engine and version in CI, and how."""

from __future__ import annotations

import json

from ingestlab import paths
from ingestlab.errors import IngestlabError

ENGINES = {"elasticsearch": "Elasticsearch", "opensearch": "OpenSearch"}


def load() -> dict:
    return json.loads((paths.REPO_ROOT / "tests" / "matrix.json").read_text())


def _columns(matrix: dict) -> list[tuple[str, str]]:
    seen = dict.fromkeys((r["engine"], r["version"]) for r in matrix["rows"])
    return sorted(seen, key=lambda ev: (list(ENGINES).index(ev[0]), [int(p) for p in ev[1].split(".")]))


def _ids(matrix: dict) -> list[str]:
    return list(dict.fromkeys(r["id"] for r in matrix["rows"]))


def table(args: dict) -> str:
    """Tracks × engines and versions, each cell the ways CI races it (a legend names the test of each)."""
    matrix = load()
    columns = _columns(matrix)
    lines = ["| track | " + " | ".join(f"{ENGINES[e]} {v}" for e, v in columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for track in matrix["tracks"]:
        cells = []
        for engine, version in columns:
            ways = [r["id"] for r in matrix["rows"] if (r["engine"], r["version"]) == (engine, version) and track in r["tracks"]]
            cells.append(", ".join(ways) or "—")
        lines.append(f"| {track} | " + " | ".join(cells) + " |")
    lines.append("")
    for row_id in _ids(matrix):
        row = next(r for r in matrix["rows"] if r["id"] == row_id)
        lines.append(f"- **{row_id}**: {row['how']} (`{row['test']}`)")
    return "\n".join(lines)


def versions(args: dict) -> str:
    """One track's line: the engines and versions CI races it on."""
    track = args.get("track")
    matrix = load()
    if track not in matrix["tracks"]:
        raise IngestlabError(f"ci-versions: track={track!r} is not in tests/matrix.json ({', '.join(matrix['tracks'])})")
    on = [
        (e, v) for e, v in _columns(matrix) if any((r["engine"], r["version"]) == (e, v) and track in r["tracks"] for r in matrix["rows"])
    ]
    named = []
    for engine in ENGINES:
        mine = [v for e, v in on if e == engine]
        if mine:
            named.append(f"{ENGINES[engine]} {', '.join(mine)}")
    return f"In CI it races on {' and '.join(named)} (the [CI matrix](../../docs/layout.md#what-ci-races))"
