"""The DVF track's corpus: what `ingestlab race dvf` uses when the user has not converted a real file.

A generated DVF file goes through the same converter a user's real file does; the result lands in
``tracks/dvf/`` as ``dvf.json`` (+ ``-1k``) with the ``corpus.json`` entry the track includes.
A corpus converted from a real file is left alone.
"""
from __future__ import annotations

import json
from pathlib import Path

from ingestlab import paths
from ingestlab.corpus.dvf import convert, generate, reference

TRACK_DIR = paths.TRACKS_DIR / "dvf"
CORPUS = TRACK_DIR / "dvf.json"
ENTRY = TRACK_DIR / "corpus.json"
DEFAULT_ROWS = 100_000


def current_entry(entry: Path = ENTRY) -> dict | None:
    return json.loads(entry.read_text()) if entry.is_file() else None


def generated_file(rows: int, fmt: str, seed: int) -> Path:
    name = f"full.2020-generated-{rows}-seed{seed}.csv" if fmt == "etalab" else f"valeursfoncieres-2020-generated-{rows}-seed{seed}.txt"
    return paths.home() / "dvf" / name


def ensure(rows: int = DEFAULT_ROWS, fmt: str = "etalab", seed: int = generate.DEFAULT_SEED, log=print) -> dict:
    """The track's corpus entry, generating and converting a DVF file first when needed."""
    entry = current_entry()
    wanted = {"rows": rows, "format": fmt, "seed": seed}
    if entry and (entry.get("meta", {}).get("generated") in (None, wanted)) and CORPUS.is_file():
        return entry  # a real file the user converted, or the generated corpus asked for
    source = generated_file(rows, fmt, seed)
    if not source.is_file():
        log(f"[ingestlab] generating a DVF file ({rows:,} rows, {fmt} format) into {source.parent}")
        tmp = source.with_name(source.name + ".tmp")
        generate.write(tmp, generate.DvfGenerator(reference.load_communes(), seed=seed).rows(rows), fmt)
        tmp.replace(source)
    log(f"[ingestlab] converting {source.name} into the track's corpus {CORPUS}")
    result = convert.convert([source], CORPUS, compress=False, meta={"generated": wanted})
    log(f"[ingestlab] {result.documents:,} documents, {result.skipped.count} rows skipped, {result.rows_per_second:,.0f} rows/s")
    return current_entry()
