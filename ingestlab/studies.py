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


def _prepare_posts(track_params: dict) -> None:
    from ingestlab.corpus.files import write_corpus
    from ingestlab.corpus.posts import PostsGenerator

    docs = int(track_params.get("posts_docs", 10000))
    target = paths.TRACKS_DIR / "posts" / f"posts-{docs}.json"
    if not target.is_file():
        print(f"[ingestlab] generating the posts corpus ({docs:,} docs) into {target.parent}")
        write_corpus(target, PostsGenerator().lines(docs))


def _report_posts(race: dict, machine_line: str, load_side: dict | None = None) -> str:
    from ingestlab import published
    from ingestlab.report import posts

    return posts.markdown(race, published.load("posts"), machine_line, load_side)


STUDIES = {
    "posts": Study(
        name="posts",
        title="Bulk vs. single index API (10,000 posts docs)",
        track=paths.TRACKS_DIR / "posts",
        default_params={"posts_docs": 10000, "repetitions": 10},
        prepare=_prepare_posts,
        report=_report_posts,
    ),
}


def get(name: str) -> Study:
    try:
        return STUDIES[name]
    except KeyError:
        raise IngestlabError(f"unknown study {name!r}; known studies: {', '.join(STUDIES)}") from None
