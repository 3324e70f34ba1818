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
}


def get(name: str) -> Study:
    try:
        return STUDIES[name]
    except KeyError:
        raise IngestlabError(f"unknown study {name!r}; known studies: {', '.join(STUDIES)}") from None
