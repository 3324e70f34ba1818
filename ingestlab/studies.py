"""The studies the pack reproduces: which track, how to prepare its corpus, how to report it."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ingestlab import paths
from ingestlab.errors import IngestlabError


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    track: Path
    default_params: dict
    prepare: Callable[[dict], None]
    report: Callable[..., str]
    load_bench: Callable[[], dict] | None = None  # the load side alone, measured after a demo race
    corpus_params: frozenset = frozenset()  # params only `prepare` reads; not passed to Rally
    charts: Callable[..., list] | None = None  # (race, published, machine_line) → [(caption, PNG bytes)]

    def rally_params(self, params: dict) -> dict:
        return {k: v for k, v in params.items() if k not in self.corpus_params}


def _posts_load_bench() -> dict:
    from ingestlab import loadbench

    return loadbench.posts()


def _posts_corpus(track: str, docs: int) -> None:
    """The generated posts corpus ``posts-<docs>.json`` (and its -1k file) in a track's directory."""
    from ingestlab.corpus.files import write_corpus
    from ingestlab.corpus.posts import PostsGenerator

    target = paths.TRACKS_DIR / track / f"posts-{docs}.json"
    if not target.is_file():
        print(f"[ingestlab] generating the posts corpus ({docs:,} docs) into {target.parent}")
        write_corpus(target, PostsGenerator().lines(docs))


def _prepare_posts(track_params: dict) -> None:
    _posts_corpus("posts", int(track_params.get("posts_docs", 10000)))


def _prepare_refresh(track_params: dict) -> None:
    _posts_corpus("refresh", max(int(n) for n in track_params.get("doc_counts", [10, 100, 1000, 10000])))


def _prepare_dvf(track_params: dict) -> None:
    from ingestlab.corpus.dvf import track_corpus

    track_corpus.ensure(rows=int(track_params.get("dvf_rows", track_corpus.DEFAULT_ROWS)), fmt=track_params.get("dvf_format", "etalab"))


def _report_dvf(race: dict, machine_line: str, load_side: dict | None = None) -> str:
    from ingestlab import published
    from ingestlab.report import dvf

    return dvf.markdown(race, published.load("dvf"), machine_line, load_side)


def _dvf_load_bench() -> dict:
    from ingestlab import loadbench

    return loadbench.dvf()


def _prepare_wikipedia(track_params: dict) -> None:
    from ingestlab.corpus.wikipedia import track_corpus

    track_corpus.ensure(pages=int(track_params.get("wiki_pages", track_corpus.DEFAULT_PAGES)))


def _report_wikipedia(race: dict, machine_line: str, load_side: dict | None = None) -> str:
    from ingestlab import published
    from ingestlab.report import wikipedia

    return wikipedia.markdown(race, published.load("wikipedia"), machine_line, load_side)


def _wikipedia_load_bench() -> dict:
    from ingestlab import loadbench

    return loadbench.wikipedia()


def _charts(study: str) -> Callable[..., list]:
    def make(race: dict, machine_line: str) -> list:
        import importlib

        from ingestlab import published

        module = importlib.import_module(f"ingestlab.report.{study}")
        return module.charts(race, published.load(study), machine_line)

    return make


def _prepare_corpus_track(track: str, size_param: str, default: int, documents) -> Callable[[dict], None]:
    """Generate ``tracks/<track>/documents.json`` of ``size_param`` docs unless it (or a real file) is there."""

    def prepare(track_params: dict) -> None:
        import json

        from ingestlab.corpus import track_corpus_file

        track_dir = paths.TRACKS_DIR / track
        docs = int(track_params.get(size_param, default))
        meta_file = track_dir / "corpus-meta.json"
        meta = json.loads(meta_file.read_text()) if meta_file.is_file() else None
        if meta and (track_dir / "documents.json").is_file() and meta.get("generated") in (None, {"docs": docs}):
            return
        print(f"[ingestlab] generating the {track} corpus ({docs:,} docs) into {track_dir}")
        track_corpus_file.write_generated(track_dir, documents(docs), {"generated": {"docs": docs}})

    return prepare


def _geonames_documents(docs: int):
    from ingestlab.corpus import geonames

    return geonames.documents(docs)


def _pmc_documents(docs: int):
    from ingestlab.corpus import pmc

    return pmc.documents(docs)


def _report_corpus_track(race: dict, machine_line: str, load_side: dict | None = None) -> str:
    from ingestlab import published
    from ingestlab.report import rally_corpora

    return rally_corpora.race_markdown(race, published.load("rally-corpora"), machine_line, load_side)


def _eventdata_load_bench() -> dict:
    from ingestlab import loadbench

    return loadbench.eventdata()


def _report_posts(race: dict, machine_line: str, load_side: dict | None = None) -> str:
    from ingestlab import published
    from ingestlab.report import posts

    return posts.markdown(race, published.load("posts"), machine_line, load_side)


def _report_refresh(race: dict, machine_line: str, load_side: dict | None = None) -> str:
    from ingestlab import published
    from ingestlab.report import refresh

    return refresh.markdown(race, published.load("refresh"), machine_line)


STUDIES = {
    "posts": Study(
        name="posts",
        title="Bulk vs. single index API (10,000 posts docs)",
        track=paths.TRACKS_DIR / "posts",
        default_params={"posts_docs": 10000, "repetitions": 10},
        prepare=_prepare_posts,
        report=_report_posts,
        charts=_charts("posts"),
        load_bench=_posts_load_bench,
    ),
    "refresh": Study(
        name="refresh",
        title="Refresh: single vs. bulk x refresh none/true/wait_for, and the time until a write is searchable",
        track=paths.TRACKS_DIR / "refresh",
        default_params={},
        prepare=_prepare_refresh,
        report=_report_refresh,
        charts=_charts("refresh"),
    ),
    "dvf": Study(
        name="dvf",
        title="DVF French property sales: bulk size x client threads",
        track=paths.TRACKS_DIR / "dvf",
        default_params={},
        prepare=_prepare_dvf,
        report=_report_dvf,
        charts=_charts("dvf"),
        load_bench=_dvf_load_bench,
        corpus_params=frozenset({"dvf_rows", "dvf_format"}),
    ),
    "wikipedia": Study(
        name="wikipedia",
        title="Reindexing Wikipedia: _reindex API vs. sliced scroll + parallel bulk",
        track=paths.TRACKS_DIR / "wikipedia",
        default_params={},
        prepare=_prepare_wikipedia,
        report=_report_wikipedia,
        charts=_charts("wikipedia"),
        load_bench=_wikipedia_load_bench,
        corpus_params=frozenset({"wiki_pages"}),
    ),
    "geonames": Study(
        name="geonames", title="Rally corpora: geonames (real GeoNames places)", track=paths.TRACKS_DIR / "geonames",
        default_params={}, prepare=_prepare_corpus_track("geonames", "geonames_docs", 234_908, _geonames_documents),
        report=_report_corpus_track, corpus_params=frozenset({"geonames_docs"}),
    ),
    "pmc": Study(
        name="pmc", title="Rally corpora: pmc (real PMC full-text articles)", track=paths.TRACKS_DIR / "pmc",
        default_params={}, prepare=_prepare_corpus_track("pmc", "pmc_docs", 2_000, _pmc_documents),
        report=_report_corpus_track, corpus_params=frozenset({"pmc_docs"}),
    ),
    "eventdata": Study(
        name="eventdata", title="Rally corpora: eventdata (nginx logs generated on the fly)", track=paths.TRACKS_DIR / "eventdata",
        default_params={}, prepare=lambda params: None, report=_report_corpus_track, load_bench=_eventdata_load_bench,
    ),
}


def get(name: str) -> Study:
    try:
        return STUDIES[name]
    except KeyError:
        raise IngestlabError(f"unknown study {name!r}; known studies: {', '.join(STUDIES)}") from None
