"""Parameter source ``corpus-load``: splits the first ``doc-count`` documents of a corpus among clients.

Client *i* of *n* gets a contiguous share (sizes differ by at most one document) and sends it as
requests of ``bulk-size`` documents; its ``params()`` ends with StopIteration when its share is
written, which ends the task for it. Documents are read and validated once per worker process,
and each client's request bodies are built when it is set up, before it sends anything.
"""
from __future__ import annotations

from ingestlab.runners.bulk_bodies import batches
from ingestlab.runners.corpus_reader import read_action_pairs, read_documents
from ingestlab.runners.corpus_load import NAME
from ingestlab.runners.indexing import Backoff
from ingestlab.runners.params import ParameterError, positive_int
from ingestlab.runners.track_lookup import doc_type, document_set, pick, wanted_documents


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
        self._documents: list[bytes] | None = None
        self._actions: list[bytes] | None = None  # per-document action lines (corpora with action-and-meta-data)
        self._batches = None
        self._next = 0
        self.infinite = False

    def _all_documents(self) -> list[bytes]:
        if self._documents is None:
            if getattr(self._document_set, "includes_action_and_meta_data", False):
                self._actions, self._documents = read_action_pairs(self._document_set.document_file, self._doc_count)
            else:
                self._documents = read_documents(self._document_set.document_file, self._doc_count)
        return self._documents

    def partition(self, partition_index, total_partitions):
        clone = CorpusLoadParamSource.__new__(CorpusLoadParamSource)
        clone.__dict__.update(self.__dict__)
        start, end = share(self._doc_count, partition_index, total_partitions)
        documents = self._all_documents()
        actions = self._actions[start:end] if self._actions is not None else None
        clone._batches = batches(documents[start:end], self._bulk_size, actions) if end > start else []
        clone._next = 0
        return clone

    @property
    def percent_completed(self):
        return self._next / len(self._batches) if self._batches else 1.0

    def params(self):
        if self._batches is None:
            raise ParameterError("corpus-load: params() called before partition()")
        if self._next >= len(self._batches):
            raise StopIteration
        batch = self._batches[self._next]
        self._next += 1
        return {"index": self._index, "batch": batch, "bulk": self._bulk_size > 1, "backoff": self._backoff,
                "operation": self._operation, "doc-type": self._doc_type}
