"""Find the index and corpus file an operation names in Rally's track object, with errors that say what is missing."""

from __future__ import annotations

import math
from pathlib import Path

from ingestlab.runners.utils.params import ParameterError, positive_int


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
    """``doc-count`` of the operation (default: the whole corpus), of which ``ingest-percentage`` is written, rounded
    down. More than the corpus holds is an error, except in test mode's ``-1k`` file, where the cut holds."""
    available = documents.number_of_documents
    wanted = positive_int(params, "doc-count", operation, default=available)
    if wanted > available:
        if not Path(str(documents.document_file)).stem.endswith("-1k"):
            raise ParameterError(
                f"operation [{operation}]: doc-count {wanted} is more than the {available} documents of "
                f"{Path(str(documents.document_file)).name}; use a larger corpus or a smaller doc-count"
            )
        wanted = available
    return of_percentage(wanted, ingest_percentage(params, operation), operation)


def ingest_percentage(params: dict, operation: str) -> float:
    """``ingest-percentage``: the part of the documents a writer writes, in (0, 100] (Rally's own parameter)."""
    value = params.get("ingest-percentage", 100)
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = None
    if isinstance(value, bool) or number is None or not 0 < number <= 100:
        raise ParameterError(f"operation [{operation}]: [ingest-percentage] must be a number in (0, 100], got {value!r}")
    return number


def of_percentage(documents: int, percentage: float, operation: str) -> int:
    written = math.floor(documents * percentage / 100)
    if documents and not written:
        raise ParameterError(f"operation [{operation}]: ingest-percentage {percentage:g} of {documents} documents writes none")
    return written


def rally_client_documents(total: int, client: int, clients: int, bulk_size: int, percentage: float) -> tuple[int, int]:
    """(first, count) of the documents client ``client`` of Rally's ``bulk`` writes: its share of ``total`` (Rally rounds
    the borders), and of its bulks the first ``ceil(bulks × percentage / 100)``, the last of them possibly short."""
    per_client = total / clients
    start, end = round(per_client * client), round(per_client * (client + 1))
    return start, min(end - start, math.ceil(math.ceil((end - start) / bulk_size) * percentage / 100) * bulk_size)


def rally_bulk_documents(total: int, clients: int, bulk_size: int, percentage: float = 100) -> int:
    """How many of ``total`` documents Rally's ``bulk`` operation writes with ``clients`` clients, ``bulk-size`` and
    ``ingest-percentage``."""
    return sum(rally_client_documents(total, client, clients, bulk_size, percentage)[1] for client in range(clients))
