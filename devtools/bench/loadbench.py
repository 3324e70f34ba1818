"""Measure the pack's load side alone, without a cluster: how fast it makes what it sends.

For ``posts``: the corpus generator, and the parameter source's preparation of request
bodies (read + validate the corpus, build bulk bodies), in docs/s and MB/s on one core.
For ``dvf``: the streaming converter, in rows/s on one core, for both real file formats, with its compiled fast path
(the default when cargo is here) and in Python alone.
"""

from __future__ import annotations

import bz2
import gzip
import os
import resource
import tempfile
import time
from pathlib import Path
from unittest import mock

from ingestlab.corpus.files import write_corpus
from ingestlab.corpus.posts import PostsGenerator
from ingestlab.runners.writing.bulk_bodies import batches
from ingestlab.runners.writing.corpus_reader import read_documents


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (the DVF converter's compiled fast path)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _best_wall(repeats: int, fn) -> float:
    """The shortest wall-clock time of ``repeats`` calls (work spread over threads or processes)."""
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        spent = time.perf_counter() - start
        best = spent if best is None or spent < best else best
    return best


def _best_of(repeats: int, fn):
    best = None
    for _ in range(repeats):
        start = _cpu()
        result = fn()
        spent = _cpu() - start
        best = spent if best is None or spent < best else best
    return best, result


DVF_FILES = {"etalab": "full.2020.csv", "official": "valeursfoncieres-2020.txt"}


def dvf_input(directory: Path, fmt: str, rows: int, communes) -> Path:
    """A generated DVF file of ``rows`` rows in ``fmt``, named as the real one is."""
    from ingestlab.corpus.dvf import generate

    source = directory / DVF_FILES[fmt]
    generate.write(source, generate.DvfGenerator(communes).rows(rows), fmt)
    return source


def wikipedia_input(dump: Path, pages: int) -> Path:
    """A generated Japanese-Wikipedia-like export of ``pages`` pages (``.bz2`` in the name compresses it)."""
    from ingestlab.corpus.wikipedia import generate

    generate.write(dump, generate.WikiGenerator().pages(pages))
    return dump


def posts(docs: int = 100_000, bulk_size: int = 1000, repeats: int = 3) -> dict:
    generator = PostsGenerator()
    gen_cpu, size = _best_of(repeats, lambda: sum(len(line) for line in generator.lines(docs)))
    with tempfile.TemporaryDirectory(prefix="ingestlab-loadbench-") as tmp:
        corpus = write_corpus(Path(tmp) / "posts.json", generator.lines(docs))

        def prepare():
            return batches(read_documents(str(corpus.path)), bulk_size)

        prep_cpu, prepared = _best_of(repeats, prepare)
        body_bytes = sum(len(b.body) for b in prepared)
        corpus_bytes = corpus.uncompressed_bytes
    return {
        "prepared_docs": sum(b.size for b in prepared),
        "body_bytes": body_bytes,
        "corpus_bytes": corpus_bytes,
        "docs": docs,
        "bulk_size": bulk_size,
        "generator_docs_per_s": docs / gen_cpu,
        "generator_mb_per_s": size / gen_cpu / 1e6,
        "docs_per_s": docs / prep_cpu,
        "mb_per_s": body_bytes / prep_cpu / 1e6,
        "measure": "CPU seconds of this process (one core), best of %d" % repeats,
    }


def dvf(rows: int = 100_000, repeats: int = 3) -> dict:
    """The DVF converter on generated files of both formats: rows/s and MB/s of input, one core (the converter's CPU
    and its compiled fast path's, user and system), without bz2, the way it runs by default and in Python alone;
    plus the bz2 archive's rate once (it runs in a second thread, so it is wall-clock)."""
    from ingestlab.corpus.dvf import convert, native, reference

    communes = reference.load_communes()
    out: dict = {
        "rows": rows,
        "measure": "CPU seconds (user + system) of this process and the compiled fast path's, best of %d" % repeats,
        "compiled_fast_path": native.binary() is not None,
    }
    with tempfile.TemporaryDirectory(prefix="ingestlab-loadbench-") as tmp:
        for fmt in DVF_FILES:
            source = dvf_input(Path(tmp), fmt, rows, communes)
            target = Path(tmp) / f"{fmt}.json"
            cpu, result = _best_of(repeats, lambda: convert.convert([source], target, compress=False))
            with mock.patch.dict(os.environ, {native.VARIABLE: "python"}):
                python_cpu, _ = _best_of(repeats, lambda: convert.convert([source], target, compress=False))
            out[fmt] = {
                "rows_per_s": rows / cpu,
                "input_mb_per_s": source.stat().st_size / cpu / 1e6,
                "output_mb_per_s": result.uncompressed_bytes / cpu / 1e6,
                "bytes_per_doc": result.uncompressed_bytes / result.documents,
                "rows_converted_by": {"compiled": result.converted_by.native, "python": result.converted_by.python},
                "python_alone_rows_per_s": rows / python_cpu,
            }
        start = time.perf_counter()
        with_bz2 = convert.convert([Path(tmp) / DVF_FILES["etalab"]], Path(tmp) / "bz2.json", compress=True)
        out["etalab_with_bz2_rows_per_s"] = rows / (time.perf_counter() - start)
        out["bz2_ratio"] = with_bz2.uncompressed_bytes / with_bz2.compressed_bytes
        # as data.gouv.fr ships Etalab's files: gzipped; decompressed in a thread of its own, ahead of the converter
        plain = Path(tmp) / DVF_FILES["etalab"]
        shipped = Path(tmp) / (plain.name + ".gz")
        shipped.write_bytes(gzip.compress(plain.read_bytes(), 6))
        out["etalab_rows_per_s_wall_clock"] = rows / _best_wall(
            repeats, lambda: convert.convert([plain], Path(tmp) / "p.json", compress=False)
        )
        out["etalab_from_gzip_rows_per_s_wall_clock"] = rows / _best_wall(
            repeats, lambda: convert.convert([shipped], Path(tmp) / "g.json", compress=False)
        )
        out["gzip_ratio"] = plain.stat().st_size / shipped.stat().st_size
    out["measure_wall_clock"] = "wall clock, best of %d: the plain file, and its .gz (decompressed by a thread of its own)" % repeats
    return out


def wikipedia(pages: int = 20_000, repeats: int = 3) -> dict:
    """The MediaWiki XML converter on a generated Japanese export: MB/s of XML on one core (CPU time), the way it runs by
    default (its compiled part in this process) and in Python alone."""
    from ingestlab.corpus.wikipedia import convert, generate, native

    with tempfile.TemporaryDirectory(prefix="ingestlab-loadbench-") as tmp:
        dump = wikipedia_input(Path(tmp) / "jawiki.xml", pages)
        compiled = native.library() is not None  # built before the clock starts
        cpu, result = _best_of(repeats, lambda: convert.convert(dump, Path(tmp) / "out" / "wikipedia.json"))
        with mock.patch.dict(os.environ, {native.VARIABLE: "python"}):
            python_cpu, _ = _best_of(repeats, lambda: convert.convert(dump, Path(tmp) / "out" / "wikipedia.json"))
        compressed = wikipedia_input(Path(tmp) / "jawiki.xml.bz2", pages)
        wall = time.perf_counter()  # one conversion: the CPU of both threads, and the wall-clock time
        bz2_cpu, _ = _best_of(1, lambda: convert.convert(compressed, Path(tmp) / "out2" / "wikipedia.json"))
        wall = time.perf_counter() - wall
        data = compressed.read_bytes()
        bz2_alone, _ = _best_of(1, lambda: bz2.decompress(data))
        cores = os.cpu_count() or 1
        # wall clock: the work is in worker processes
        every_core = _best_wall(repeats, lambda: convert.convert(dump, Path(tmp) / "out3" / "wikipedia.json", workers=cores))
        # from one bz2 stream the parent decompresses (today's dumps) against Wikimedia's multistream dump and its index,
        # whose streams the workers decompress themselves
        bz2_every_core = _best_wall(repeats, lambda: convert.convert(compressed, Path(tmp) / "out4" / "wikipedia.json", workers=cores))
        multi = Path(tmp) / "jawiki-pages-articles-multistream.xml.bz2"
        generate.write_multistream(multi, generate.WikiGenerator().pages(pages))
        multi_every_core = _best_wall(repeats, lambda: convert.convert(multi, Path(tmp) / "out5" / "wikipedia.json", workers=cores))
    return {
        "mb_per_s_from_bz2_every_core_wall_clock": result.input_bytes / bz2_every_core / 1e6,
        "mb_per_s_from_multistream_bz2_every_core_wall_clock": result.input_bytes / multi_every_core / 1e6,
        "multistream_over_single_stream": bz2_every_core / multi_every_core,
        "mb_per_s_every_core_wall_clock": result.input_bytes / every_core / 1e6,
        "cores": cores,
        "pages": pages,
        "xml_mb": result.input_bytes / 1e6,
        "mb_per_s": result.input_bytes / cpu / 1e6,
        "pages_per_s": pages / cpu,
        "compiled_part": compiled,
        "python_alone_mb_per_s": result.input_bytes / python_cpu / 1e6,
        "mb_per_s_from_bz2": result.input_bytes / bz2_cpu / 1e6,
        "mb_per_s_from_bz2_wall_clock": result.input_bytes / wall / 1e6,
        "bz2_alone_mb_per_s": result.input_bytes / bz2_alone / 1e6,
        "measure": "CPU seconds of this process (one core), best of %d; from .bz2: the CPU of both threads (decompression runs "
        "in one of its own), and wall-clock with two cores; bz2 alone: bz2.decompress of the same file; every core: "
        "wall clock of the converter cut into pieces converted by one process per core, best of %d (from .bz2: one "
        "stream decompressed by the parent; multistream: 100 pages a stream, each worker decompressing its own runs "
        "of streams)" % (repeats, repeats),
    }


def eventdata(docs: int = 200_000, repeats: int = 3) -> dict:
    """The eventdata generator alone: docs/s per client on one core (bulk bodies included)."""
    from ingestlab.runners.param_sources.eventdata import EventdataGenerator, Tables

    tables = Tables.get()
    generator = EventdataGenerator(1, tables=tables)
    cpu, produced = _best_of(repeats, lambda: generator.documents(docs))
    return {
        "docs": docs,
        "docs_per_s": docs / cpu,
        "bytes_per_doc": sum(map(len, produced)) / len(produced),
        "measure": "CPU seconds of this process (one core), best of %d" % repeats,
    }


# each study's load side alone: study name → what to bench, given ``--docs`` (None: the study's own default) and
# ``--bulk-size`` (posts only)
STUDIES = {
    "posts": lambda docs, bulk_size: posts(docs=docs or 100_000, bulk_size=bulk_size),
    "dvf": lambda docs, bulk_size: dvf(rows=docs or 100_000),
    "wikipedia": lambda docs, bulk_size: wikipedia(pages=docs or 20_000),
    "eventdata": lambda docs, bulk_size: eventdata(docs=docs or 200_000),
}
