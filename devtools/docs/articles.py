"""The articles' own figures in the docs, from ``ingestlab/published/<study>.json`` (as each article wrote them, and
the ratios made the way the article made its own): a table of a study's published cells, or one value.

    <!-- ingestlab:article study=posts -->
    <!-- /ingestlab:article -->
    <!-- ingestlab:article study=refresh value=highlights.0.about unit=× -->200×<!-- /ingestlab:article -->
"""

from __future__ import annotations

from devtools.docs.figures import number
from ingestlab import published
from ingestlab.errors import IngestlabError


def _elapsed(ms: float) -> str:
    return f"{ms / 1000:g} s" if ms >= 1000 else f"{ms:g} ms"


def _posts(data: dict) -> str:
    base = next(f["elapsed_ms"] for f in data["figures"] if f.get("method") == "index")
    lines = ["| configuration | published elapsed (fastest of 10) | docs/s | speed-up |", "|---|---:|---:|---:|"]
    for f in data["figures"]:
        label = "index API" if f.get("method") == "index" else f"bulk {f['bulk_size']}"
        lines.append(
            f"| {label} | {_elapsed(f['elapsed_ms'])} | {data['documents'] / f['elapsed_ms'] * 1000:,.0f} | {base / f['elapsed_ms']:.1f}× |"
        )
    return "\n".join(lines)


def _refresh(data: dict) -> str:
    cells = {(f["docs"], f["method"], f["refresh"]): f["elapsed_ms"] for f in data["figures"]}
    lines = ["| docs | single | bulk | single + refresh=true | bulk + refresh=true |", "|---:|---:|---:|---:|---:|"]
    for docs in data["doc_counts"]:
        row = [cells.get((docs, m, r)) for m, r in (("single", "none"), ("bulk", "none"), ("single", "true"), ("bulk", "true"))]
        lines.append(f"| {docs:,} | " + " | ".join("—" if v is None else f"{v:,.1f}" for v in row) + " |")
    return "\n".join(lines)


TABLES = {"posts": _posts, "refresh": _refresh}


def _value(data: dict, path: str, where: str):
    node = data
    for key in path.split("."):
        try:
            node = node[int(key)] if isinstance(node, list) else node[key]
        except (KeyError, IndexError, ValueError):
            raise IngestlabError(f"article {where}: no {path!r} in its published figures") from None
    return node


def article(args: dict) -> str:
    study = args.get("study")
    try:
        data = published.load(study)
    except (FileNotFoundError, TypeError):
        raise IngestlabError(f"article study={study}: no published figures of that study") from None
    if "value" in args:
        got = _value(data, args["value"], study)
        return number(got, args.get("unit", ""), args.get("digits")) if isinstance(got, (int, float)) else str(got)
    if study not in TABLES:
        raise IngestlabError(f"article study={study}: no table of its figures (there are {', '.join(sorted(TABLES))}); name a value=")
    return TABLES[study](data)


RENDERERS = {"article": article}
