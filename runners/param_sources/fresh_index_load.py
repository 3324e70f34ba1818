"""Parameter source ``fresh-index-load``: the documents every run writes, as request bodies, built once before timing
when they fit in memory, else read a window at a time during each run (:func:`~ingestlab.runners.writing.corpus_share.held`).
"""

from __future__ import annotations

from ingestlab.runners.operations.fresh_index_load import NAME
from ingestlab.runners.utils.params import one_of, positive_int
from ingestlab.runners.utils.track_lookup import doc_type, document_set, pick, wanted_documents
from ingestlab.runners.writing.corpus_share import Share, held
from ingestlab.runners.writing.indexing import Backoff

METHODS = ("bulk", "index")
REFRESH = ("none", "true", "false", "wait_for")


class FreshIndexLoadParamSource:
    def __init__(self, track, params, **kwargs):
        operation = kwargs.get("operation_name") or params.get("name") or NAME
        self._operation = operation
        index = pick(track.indices, params.get("index"), "index", operation)
        self._document_set = document_set(track, params, operation)
        self._doc_count = wanted_documents(params, operation, self._document_set)
        self._method = one_of(params, "method", operation, METHODS, default="bulk")
        self._bulk_size = positive_int(params, "bulk-size", operation, default=1000) if self._method == "bulk" else None
        refresh = str(params.get("refresh", "none")).lower()
        self._refresh = one_of({"refresh": refresh}, "refresh", operation, REFRESH)
        self._index_name = index.name
        self._doc_type = doc_type(index)
        self._index_body = index.body or {}
        self._backoff = Backoff(max_retries=positive_int(params, "max-retries", operation, default=12))
        self._prepared = None
        self.infinite = True

    def partition(self, partition_index, total_partitions):
        return self

    def _prepare(self) -> dict:
        documents = Share(str(self._document_set.document_file), 0, self._doc_count)
        prepared = {
            "index": self._index_name,
            "index-body": self._index_body,
            "method": self._method,
            "doc-count": self._doc_count,
            "refresh": None if self._refresh == "none" else self._refresh,
            "backoff": self._backoff,
            "operation": self._operation,
            "doc-type": self._doc_type,
        }
        in_file = self._document_set.number_of_documents
        if self._method == "bulk":
            prepared["bulk-size"] = self._bulk_size
            prepared["batches"] = held(documents, self._bulk_size, in_file)
        else:
            prepared["documents"] = held(documents, None, in_file)
        return prepared

    def params(self):
        if self._prepared is None:
            self._prepared = self._prepare()
        return self._prepared
