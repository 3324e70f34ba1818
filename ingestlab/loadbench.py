"""Measure the pack's load side alone, without a cluster: how fast it makes what it sends.

For ``posts``: the corpus generator, and the parameter source's preparation of request
bodies (read + validate the corpus, build bulk bodies), in docs/s and MB/s on one core.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

from ingestlab.corpus.files import write_corpus
from ingestlab.corpus.posts import PostsGenerator
from ingestlab.runners.bulk_bodies import batches
from ingestlab.runners.corpus_reader import read_documents


def _best_of(repeats: int, fn):
    best = None
    for _ in range(repeats):
        start = time.process_time()
        result = fn()
        spent = time.process_time() - start
        best = spent if best is None or spent < best else best
    return best, result


def posts(docs: int = 100_000, bulk_size: int = 1000, repeats: int = 3) -> dict:
    generator = PostsGenerator()
    gen_cpu, size = _best_of(repeats, lambda: sum(len(line) for line in generator.lines(docs)))
    with tempfile.TemporaryDirectory(prefix="ingestlab-loadbench-") as tmp:
        corpus = write_corpus(Path(tmp) / "posts.json", generator.lines(docs))

        def prepare():
            return batches(read_documents(str(corpus.path)), bulk_size)

        prep_cpu, prepared = _best_of(repeats, prepare)
        body_bytes = sum(len(b.body) for b in prepared)
    return {
        "docs": docs,
        "bulk_size": bulk_size,
        "generator_docs_per_s": docs / gen_cpu,
        "generator_mb_per_s": size / gen_cpu / 1e6,
        "docs_per_s": docs / prep_cpu,
        "mb_per_s": body_bytes / prep_cpu / 1e6,
        "measure": "CPU seconds of this process (one core), best of %d" % repeats,
    }
