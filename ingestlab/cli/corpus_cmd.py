"""``ingestlab corpus`` (make a track's corpus ahead of a race, or import a real Rally corpus file),
``ingestlab dvf …`` and ``ingestlab wikipedia …`` (generate and convert the two studies' real formats)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ingestlab import paths, studies
from ingestlab.cli import options
from ingestlab.corpus import files, makers
from ingestlab.corpus.dvf import convert as dvf_convert
from ingestlab.corpus.dvf import generate as dvf_generate
from ingestlab.corpus.dvf import reference as dvf_reference
from ingestlab.rally.home import corpus_dirs


def output(out: str | None, track: str, default: str) -> Path:
    """Where a converted corpus goes: a bare file name lands in the track's folder, where the track looks for it."""
    if not out:
        return paths.TRACKS_DIR / track / default
    return paths.TRACKS_DIR / track / out if Path(out).name == out else Path(out)


def cmd_corpus(args) -> int:
    study = studies.get(args.study)
    if args.from_file:
        out = output(args.out, study.name, f"{study.name}-imported.json")
        made = files.import_file(Path(args.from_file), out)
        print(f"[ingestlab] {made.documents:,} documents of {args.from_file} in {out}; race them with --track-param corpus_file={out.name}")
        return 0
    params = options.track_params(args)
    if args.docs:
        params["posts_docs"] = args.docs
    track = study.trackinfo(params)
    track.check()
    sets = makers.generated_sets(track.rendered)
    if not sets:
        print(f"[ingestlab] track {study.name} declares no generated corpus with these parameters (nothing to make)")
    # heavy: imports runners.compat, which loads the client (elasticsearch, ~0.3 s); the CLI starts without it
    from ingestlab.runners.track_processors.corpora import generated_target

    corpus_names = {id(d): c["name"] for c in track.rendered.get("corpora", []) for d in c.get("documents", [])}
    for document_set, spec in sets:  # where the pack's races look for it
        target = generated_target(corpus_dirs(study.track, corpus_names[id(document_set)]), document_set["source-file"])
        made = makers.make_as_declared(target, int(document_set["document-count"]), spec)
        if made is None:
            print(f"[ingestlab] {target} is there already")
    return 0


def cmd_wikipedia(args) -> int:
    from ingestlab.corpus.wikipedia import convert, generate  # heavy: lxml and mimesis, only for Wikipedia

    if args.action == "generate":
        pages = generate.WikiGenerator(seed=args.seed).pages(args.pages)
        if args.multistream:
            written, index = generate.write_multistream(Path(args.output), pages)
            print(f"[ingestlab] wrote {written:,} pages to {args.output} (100 a bz2 stream) and its index {index}")
        else:
            written = generate.write(Path(args.output), pages)
            print(f"[ingestlab] wrote {written:,} pages to {args.output}")
        return 0
    out = output(args.out, "wikipedia", "wikipedia-converted.json")
    result = convert.convert(Path(args.dump), out, limit=args.limit, workers=args.workers, index=Path(args.index) if args.index else None)
    print(
        f"[ingestlab] {result.documents:,} pages into {out} ({result.uncompressed_bytes / 1e6:,.1f} MB) from "
        f"{result.input_bytes / 1e6:,.1f} MB of XML in {result.seconds:,.1f} s: {result.mb_per_second:,.1f} MB/s; "
        f"race it with --track-param corpus_file={_param(out, 'wikipedia')}"
    )
    return 0


def _param(out: Path, track: str) -> str:
    return out.name if out.parent == paths.TRACKS_DIR / track else str(out)


def cmd_dvf(args) -> int:
    if args.action == "generate":
        rows = dvf_generate.DvfGenerator(dvf_reference.load_communes(), seed=args.seed, year=args.year).rows(args.rows)
        written = dvf_generate.write(Path(args.output), rows, args.format, year=args.year, encoding=args.encoding)
        print(f"[ingestlab] wrote {written:,} {args.format} rows to {args.output}")
        return 0
    out = output(args.out, "dvf", "dvf-converted.json")
    result = dvf_convert.convert(
        [Path(p) for p in args.inputs], out, strict=args.strict, compress=args.bz2, encoding=args.encoding, limit=args.limit
    )
    print(
        f"[ingestlab] {result.documents:,} documents into {out} ({result.uncompressed_bytes / 1e6:,.1f} MB"
        + (f", {result.compressed_bytes / 1e6:,.1f} MB as .bz2" if result.compressed_bytes else "")
        + f") in {result.seconds:,.1f} s: {result.rows_per_second:,.0f} rows/s (rows converted by the compiled fast path: "
        f"{result.converted_by.native:,}, in Python: {result.converted_by.python:,}); corpus entry: {files.meta_path(out)}; "
        f"race it with --track-param corpus_file={_param(out, 'dvf')}"
    )
    if result.left_out:
        print(f"[ingestlab] left out {len(result.left_out)} ZIP member(s) with no DVF data: {', '.join(result.left_out)}")
    if result.skipped.count:
        print(f"[ingestlab] skipped {result.skipped.count:,} bad rows (--strict stops at the first); the first ones:", file=sys.stderr)
        for message in result.skipped.messages:
            print(f"  {message}", file=sys.stderr)
    return 0


def add(sub) -> None:
    co = sub.add_parser("corpus", help="make a track's generated corpus ahead of a race (a race makes it on first use too)")
    co.add_argument("study", choices=sorted(studies.ALL))
    co.add_argument("--docs", type=int, help="posts only: number of documents (default 10000)")
    co.add_argument("--from", dest="from_file", metavar="FILE", help="geonames/pmc: import Rally's real documents.json(.bz2) instead")
    co.add_argument("--out", help="with --from: the corpus file; a bare name goes into the track's folder (default <track>-imported.json)")
    co.add_argument(
        "--track-param", action="append", metavar="KEY=VALUE", help="track parameter that sizes the corpus, e.g. doc_counts=[10,100]"
    )
    co.set_defaults(func=cmd_corpus)

    dv = sub.add_parser("dvf", help="DVF files: generate realistic ones, convert real or generated ones into the track's corpus")
    dvsub = dv.add_subparsers(dest="action", required=True)
    g = dvsub.add_parser("generate", help="write a realistic DVF file (deterministic for a seed)")
    g.add_argument("output", help="file to write, e.g. full.2020.csv or valeursfoncieres-2020.txt")
    g.add_argument("--format", choices=["etalab", "official"], default="etalab")
    g.add_argument("--rows", type=int, default=100_000)
    g.add_argument("--seed", type=int, default=2020)
    g.add_argument("--year", type=int, default=2020, help="official files from 2022 on are UTF-8 with 'Identifiant de document'")
    g.add_argument("--encoding", help="default: latin-1 for official files before 2022, else utf-8")
    g.set_defaults(func=cmd_dvf)
    cv = dvsub.add_parser(
        "convert",
        help="convert DVF files (official .txt or Etalab .csv, detected; plain, .gz, .bz2 or .zip as "
        "data.gouv.fr ships them) into a Rally corpus",
    )
    cv.add_argument(
        "inputs",
        nargs="+",
        help="DVF files or directories of them (plain, gzip, bz2 or ZIP, told by their first bytes), converted in order into one corpus",
    )
    cv.add_argument(
        "--out",
        help="corpus file; a bare name goes into tracks/dvf/ (default dvf-converted.json); its .meta.json entry is written beside it",
    )
    cv.add_argument("--strict", action="store_true", help="stop at the first bad row (default: skip, count and list them)")
    cv.add_argument("--bz2", action="store_true", help="also write the .json.bz2 archives (slower: bz2 runs at ~12 MB/s)")
    cv.add_argument("--encoding", help="default: detected (UTF-8 if the first MiB decodes, else Latin-1)")
    cv.add_argument("--limit", type=int, help="stop after this many documents")
    cv.set_defaults(func=cmd_dvf)

    wk = sub.add_parser(
        "wikipedia", help="MediaWiki exports: generate a Japanese-like one, convert real or generated ones into the track's corpus"
    )
    wksub = wk.add_subparsers(dest="action", required=True)
    wg = wksub.add_parser("generate", help="write a Japanese-Wikipedia-like export (.xml or .xml.bz2), deterministic for a seed")
    wg.add_argument("output")
    wg.add_argument("--pages", type=int, default=30_000)
    wg.add_argument("--seed", type=int, default=2016)
    wg.add_argument(
        "--multistream",
        action="store_true",
        help="as Wikimedia's …-multistream.xml.bz2: 100 pages a bz2 stream, with its …-multistream-index.txt.bz2 beside it",
    )
    wg.set_defaults(func=cmd_wikipedia)
    wc = wksub.add_parser(
        "convert",
        help="convert a pages-articles export (plain, .bz2, .gz or a ZIP, told by its bytes; a "
        "multistream .bz2 with its index on every core) into a Rally corpus",
    )
    wc.add_argument("dump")
    wc.add_argument("--index", help="a multistream dump's index (default: the …-multistream-index.txt.bz2 beside it, when there)")
    wc.add_argument("--out", help="corpus file; a bare name goes into tracks/wikipedia/ (default wikipedia-converted.json)")
    wc.add_argument("--limit", type=int, help="stop after this many pages")
    wc.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="converter processes (default: one per core); the export is cut between pages and put back in order",
    )
    wc.set_defaults(func=cmd_wikipedia)
