"""Parameter source ``fresh-index-load``: reads a track corpus once and prepares every request body.

All the work of the load side (reading, validating, building bulk bodies) happens here,
once per client and before timing starts, so the runner's timed loop only sends bytes.
"""
from __future__ import annotations

from ingestlab.runners.bulk_bodies import batches
from ingestlab.runners.corpus_reader import read_documents
from ingestlab.runners.fresh_index_load import NAME
from ingestlab.runners.indexing import Backoff
from ingestlab.runners.params import one_of, positive_int
from ingestlab.runners.track_lookup import doc_type, document_set, pick, wanted_documents

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
        documents = read_documents(self._document_set.document_file, self._doc_count)
        prepared = {
            "index": self._index_name,
            "index-body": self._index_body,
            "method": self._method,
            "doc-count": len(documents),
            "refresh": None if self._refresh == "none" else self._refresh,
            "backoff": self._backoff,
            "operation": self._operation,
            "doc-type": self._doc_type,
        }
        if self._method == "bulk":
            prepared["bulk-size"] = self._bulk_size
            prepared["batches"] = batches(documents, self._bulk_size)
        else:
            prepared["documents"] = documents
        return prepared

    def params(self):
        if self._prepared is None:
            self._prepared = self._prepare()
        return self._prepared
