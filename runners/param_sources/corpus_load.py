"""Parameter source ``corpus-load``: splits the first ``doc-count`` documents of a corpus (of which
``ingest-percentage``) among clients, in contiguous shares read lazily (:mod:`~ingestlab.runners.writing.corpus_share`)
and sent as bulks of ``bulk-size``; a client's ``params()`` ends with StopIteration when its share is written.
"""

from __future__ import annotations

from ingestlab.runners.operations.corpus_load import NAME
from ingestlab.runners.utils.params import ParameterError, positive_int
from ingestlab.runners.utils.track_lookup import doc_type, document_set, pick, wanted_documents
from ingestlab.runners.writing.corpus_share import Share
from ingestlab.runners.writing.indexing import Backoff


def share(total: int, part: int, parts: int) -> tuple[int, int]:
    """[start, end) of part ``part`` of ``parts`` near-equal contiguous shares of ``total`` items."""
    base, extra = divmod(total, parts)
    start = part * base + min(part, extra)
    return start, start + base + (1 if part < extra else 0)


class CorpusLoadParamSource:
    def __init__(self, track, params, **kwargs):
        operation = kwargs.get("operation_name") or params.get("name") or NAME
        if not track.corpora:
            raise ParameterError(f"operation [{operation}]: the track has no corpus; create one first (see the track's README)")
        self._operation = operation
        index = pick(track.indices, params.get("index"), "index", operation)
        self._index, self._doc_type = index.name, doc_type(index)
        self._document_set = document_set(track, params, operation)
        self._doc_count = wanted_documents(params, operation, self._document_set)
        self._bulk_size = positive_int(params, "bulk-size", operation, default=1000)
        self._backoff = Backoff(max_retries=positive_int(params, "max-retries", operation, default=12))
        self._batches = None
        self._total = self._next = 0
        self.infinite = False

    def partition(self, partition_index, total_partitions):
        clone = CorpusLoadParamSource.__new__(CorpusLoadParamSource)
        clone.__dict__.update(self.__dict__)
        start, end = share(self._doc_count, partition_index, total_partitions)
        mine = Share(
            str(self._document_set.document_file),
            start,
            end - start,
            bool(getattr(self._document_set, "includes_action_and_meta_data", False)),
        )
        clone._batches = mine.batches(self._bulk_size)
        clone._total, clone._next = mine.bulks(self._bulk_size), 0
        return clone

    @property
    def percent_completed(self):
        return self._next / self._total if self._total else 1.0

    def params(self):
        if self._batches is None:
            raise ParameterError("corpus-load: params() called before partition()")
        batch = next(self._batches)  # StopIteration at the end of this client's share ends its task
        self._next += 1
        return {
            "index": self._index,
            "batch": batch,
            "bulk": self._bulk_size > 1,
            "backoff": self._backoff,
            "operation": self._operation,
            "doc-type": self._doc_type,
        }
