"""Find the index and corpus file an operation names in Rally's track object, with errors that say what is missing."""
from __future__ import annotations

from pathlib import Path

from ingestlab.runners.params import ParameterError, positive_int


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


def doc_type(index) -> str | None:
    """The mapping type an index of the track declares (``types``: only Elasticsearch 6.x needs one), or None."""
    types = getattr(index, "types", None) or []
    return types[0] if types else None


def document_set(track, params: dict, operation: str):
    """The one document file of the corpus the operation names (param ``corpus``)."""
    corpus = pick(track.corpora, params.get("corpus"), "corpus", operation)
    sets = [d for d in corpus.documents if d.is_bulk]
    if len(sets) != 1:
        raise ParameterError(f"operation [{operation}]: corpus [{corpus.name}] must have exactly one document file")
    return sets[0]


def wanted_documents(params: dict, operation: str, documents) -> int:
    """``doc-count`` of the operation (default: the whole corpus). More than the corpus holds is an error naming
    both numbers — except in Rally's test mode, which cuts every corpus to its ``-1k`` file: there the cut holds."""
    available = documents.number_of_documents
    wanted = positive_int(params, "doc-count", operation, default=available)
    if wanted <= available:
        return wanted
    if Path(str(documents.document_file)).stem.endswith("-1k"):
        return available
    raise ParameterError(f"operation [{operation}]: doc-count {wanted} is more than the {available} documents of "
                         f"{Path(str(documents.document_file)).name}; use a larger corpus or a smaller doc-count")
