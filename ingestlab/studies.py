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

    def params_with(self, track_params: dict | None) -> dict:
        """The defaults overlaid with the user's parameters, each checked against its declared kind first."""
        from ingestlab.rally import track_params as checker

        checker.check(self.track, track_params or {}, shared_dirs=(paths.REPO_ROOT / "challenges",))
        return {**self.default_params, **(track_params or {})}


def _lazy(module: str, name: str, **fixed) -> Callable:
    """``module.name`` called with ``fixed`` keyword arguments, imported only when called (the CLI starts fast)."""

    def call(*args, **kwargs):
        import importlib

        return getattr(importlib.import_module(module), name)(*args, **fixed, **kwargs)

    return call


def _report(module: str, published_name: str, function: str = "markdown") -> Callable[..., str]:
    """``report.<module>.<function>(race, published figures, machine_line, load_side)``."""

    def report(race: dict, machine_line: str, load_side: dict | None = None) -> str:
        from ingestlab import published

        return _lazy(f"ingestlab.report.{module}", function)(race, published.load(published_name), machine_line, load_side)

    return report


def _charts(study: str) -> Callable[..., list]:
    def make(race: dict, machine_line: str) -> list:
        from ingestlab import published

        return _lazy(f"ingestlab.report.{study}", "charts")(race, published.load(study), machine_line)

    return make


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


def _prepare_wikipedia(track_params: dict) -> None:
    from ingestlab.corpus.wikipedia import track_corpus

    track_corpus.ensure(pages=int(track_params.get("wiki_pages", track_corpus.DEFAULT_PAGES)))


def _prepare_corpus_track(track: str, size_param: str, default: int, documents) -> Callable[[dict], None]:
    """Generate ``tracks/<track>/documents.json`` of ``size_param`` docs unless it (or a real file) is there."""

    def prepare(track_params: dict) -> None:
        from ingestlab.corpus import track_corpus_file

        track_dir = paths.TRACKS_DIR / track
        docs = int(track_params.get(size_param, default))
        if track_corpus_file.is_current(track_dir, "documents.json", {"docs": docs}):
            return
        print(f"[ingestlab] generating the {track} corpus ({docs:,} docs) into {track_dir}")
        track_corpus_file.write_generated(track_dir, documents(docs), {"generated": {"docs": docs}})

    return prepare


STUDIES = {
    "posts": Study(
        name="posts",
        title="Bulk vs. single index API (10,000 posts docs)",
        track=paths.TRACKS_DIR / "posts",
        default_params={"posts_docs": 10000, "repetitions": 10},
        prepare=_prepare_posts,
        report=_report("posts", "posts"),
        charts=_charts("posts"),
        load_bench=_lazy("ingestlab.loadbench", "posts"),
    ),
    "refresh": Study(
        name="refresh",
        title="Refresh: single vs. bulk x refresh none/true/wait_for, and the time until a write is searchable",
        track=paths.TRACKS_DIR / "refresh",
        default_params={},
        prepare=_prepare_refresh,
        report=_report("refresh", "refresh"),
        charts=_charts("refresh"),
    ),
    "dvf": Study(
        name="dvf",
        title="DVF French property sales: bulk size x client threads",
        track=paths.TRACKS_DIR / "dvf",
        default_params={},
        prepare=_prepare_dvf,
        report=_report("dvf", "dvf"),
        charts=_charts("dvf"),
        load_bench=_lazy("ingestlab.loadbench", "dvf"),
        corpus_params=frozenset({"dvf_rows", "dvf_format"}),
    ),
    "wikipedia": Study(
        name="wikipedia",
        title="Reindexing Wikipedia: _reindex API vs. sliced scroll + parallel bulk",
        track=paths.TRACKS_DIR / "wikipedia",
        default_params={},
        prepare=_prepare_wikipedia,
        report=_report("wikipedia", "wikipedia"),
        charts=_charts("wikipedia"),
        load_bench=_lazy("ingestlab.loadbench", "wikipedia"),
        corpus_params=frozenset({"wiki_pages"}),
    ),
    "geonames": Study(
        name="geonames", title="Rally corpora: geonames (real GeoNames places)", track=paths.TRACKS_DIR / "geonames",
        default_params={}, prepare=_prepare_corpus_track("geonames", "geonames_docs", 234_908, _lazy("ingestlab.corpus.geonames", "documents")),
        report=_report("rally_corpora", "rally-corpora", "race_markdown"), corpus_params=frozenset({"geonames_docs"}),
    ),
    "pmc": Study(
        name="pmc", title="Rally corpora: pmc (real PMC full-text articles)", track=paths.TRACKS_DIR / "pmc",
        default_params={}, prepare=_prepare_corpus_track("pmc", "pmc_docs", 2_000, _lazy("ingestlab.corpus.pmc", "documents")),
        report=_report("rally_corpora", "rally-corpora", "race_markdown"), corpus_params=frozenset({"pmc_docs"}),
    ),
    "eventdata": Study(
        name="eventdata", title="Rally corpora: eventdata (nginx logs generated on the fly)", track=paths.TRACKS_DIR / "eventdata",
        default_params={}, prepare=lambda params: None, report=_report("rally_corpora", "rally-corpora", "race_markdown"), load_bench=_lazy("ingestlab.loadbench", "eventdata"),
    ),
}


def get(name: str) -> Study:
    try:
        return STUDIES[name]
    except KeyError:
        raise IngestlabError(f"unknown study {name!r}; known studies: {', '.join(STUDIES)}") from None
