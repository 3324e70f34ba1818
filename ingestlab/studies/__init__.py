"""The studies the pack reproduces: each is one track folder and one module here (see :mod:`.base`).

A new study is a ``tracks/<name>/`` folder, a module here defining ``STUDY``, and its line below."""

from __future__ import annotations

from ingestlab.errors import IngestlabError
from ingestlab.studies import corpora, dvf, posts, refresh, wikipedia
from ingestlab.studies.base import Study

ALL: dict[str, Study] = {s.name: s for s in (posts.STUDY, refresh.STUDY, dvf.STUDY, wikipedia.STUDY, *corpora.TRACKS)}


def get(name: str) -> Study:
    try:
        return ALL[name]
    except KeyError:
        raise IngestlabError(f"unknown study {name!r}; known studies: {', '.join(ALL)}") from None
