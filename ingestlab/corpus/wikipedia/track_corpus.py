"""The wikipedia track's corpus: generated when the user has not converted a real dump.

A generated Japanese-Wikipedia-like export goes through the converter a real ``jawiki-…-pages-articles
.xml.bz2`` takes; the result lands in ``tracks/wikipedia/``. A corpus converted from a real dump is kept.
"""
from __future__ import annotations

import json

from ingestlab import paths
from ingestlab.corpus import track_corpus_file
from ingestlab.corpus.wikipedia import convert, generate

TRACK_DIR = paths.TRACKS_DIR / "wikipedia"
CORPUS = TRACK_DIR / "wikipedia.json"
META = TRACK_DIR / "corpus-meta.json"
DEFAULT_PAGES = 30_000


def ensure(pages: int = DEFAULT_PAGES, seed: int = generate.DEFAULT_SEED, log=print) -> dict:
    wanted = {"pages": pages, "seed": seed}
    if track_corpus_file.is_current(TRACK_DIR, CORPUS.name, wanted):
        return json.loads(META.read_text())
    dump = paths.home() / "wikipedia" / f"jawiki-generated-{pages}-seed{seed}-pages-articles.xml.bz2"
    if not dump.is_file():
        log(f"[ingestlab] generating a Japanese-Wikipedia-like export ({pages:,} pages) into {dump.parent}")
        tmp = dump.with_name(dump.name + ".tmp.bz2")
        generate.write(tmp, generate.WikiGenerator(seed=seed).pages(pages))
        tmp.replace(dump)
    log(f"[ingestlab] converting {dump.name} into the track's corpus {CORPUS}")
    result = convert.convert(dump, CORPUS, meta={"generated": wanted})
    log(f"[ingestlab] {result.documents:,} pages, {result.input_bytes / 1e6:,.1f} MB of XML at {result.mb_per_second:,.1f} MB/s")
    return json.loads(META.read_text())
