"""Find the index and corpus file an operation names in Rally's track object, with errors that say what is missing."""
from __future__ import annotations

from ingestlab.runners.params import ParameterError


def pick(items, wanted: str | None, kind: str, operation: str):
    """The item named ``wanted``, or the only one when the track has exactly one and none is named."""
    if wanted is None:
        if len(items) != 1:
            raise ParameterError(f"operation [{operation}]: the track has {len(items)} {kind}s; name one with [{kind}]")
        return items[0]
    for item in items:
        if item.name == wanted:
            return item
    raise ParameterError(f"operation [{operation}]: no {kind} named [{wanted}] in the track")


def document_set(track, params: dict, operation: str):
    """The one document file of the corpus the operation names (param ``corpus``)."""
    corpus = pick(track.corpora, params.get("corpus"), "corpus", operation)
    sets = [d for d in corpus.documents if d.is_bulk]
    if len(sets) != 1:
        raise ParameterError(f"operation [{operation}]: corpus [{corpus.name}] must have exactly one document file")
    return sets[0]
