"""Parameter source ``time-to-searchable``: one probe per call, unique per client and call, its documents from the
track's corpus (round-robin) with an added ``probe`` keyword; the phase delay comes from a per-client seeded generator.
"""

from __future__ import annotations

import random

import orjson

from ingestlab.runners.operations.time_to_searchable import NAME
from ingestlab.runners.utils.params import non_negative_number, one_of, positive_int
from ingestlab.runners.utils.track_lookup import doc_type, document_set, pick
from ingestlab.runners.writing.corpus_reader import read_documents
from ingestlab.runners.writing.indexing import Backoff

METHODS = ("index", "bulk")
REFRESH = ("none", "false", "true", "wait_for")
POOL_SIZE = 1000


def with_probe(document: bytes, probe: str) -> bytes:
    doc = orjson.loads(document)
    doc["probe"] = probe
    return orjson.dumps(doc)


class TimeToSearchableParamSource:
    def __init__(self, track, params, **kwargs):
        operation = kwargs.get("operation_name") or params.get("name") or NAME
        index = pick(track.indices, params.get("index"), "index", operation)
        self._index, self._doc_type = index.name, doc_type(index)
        self._document_set = document_set(track, params, operation)
        self._method = one_of(params, "method", operation, METHODS, default="index")
        self._docs_per_probe = positive_int(params, "bulk-size", operation, default=100) if self._method == "bulk" else 1
        refresh = str(params.get("refresh", "none")).lower()
        refresh = one_of({"refresh": refresh}, "refresh", operation, REFRESH)
        self._refresh = None if refresh in ("none", "false") else refresh
        self._jitter_s = non_negative_number(params, "phase-jitter-ms", operation, 0) / 1000.0
        self._poll_s = non_negative_number(params, "poll-interval-ms", operation, 5) / 1000.0
        self._timeout_s = non_negative_number(params, "timeout-s", operation, 60)
        self._seed = positive_int(params, "seed", operation, default=1)
        self._backoff = Backoff(max_retries=positive_int(params, "max-retries", operation, default=12))
        self._operation = operation
        self._client = 0
        self._pool = None
        self._calls = 0
        self._random = random.Random(self._seed)
        self.infinite = True

    def partition(self, partition_index, total_partitions):
        clone = TimeToSearchableParamSource.__new__(TimeToSearchableParamSource)
        clone.__dict__.update(self.__dict__)
        clone._client = partition_index
        clone._random = random.Random(self._seed * 1_000_003 + partition_index)
        clone._pool, clone._calls = None, 0
        return clone

    def params(self):
        if self._pool is None:
            available = self._document_set.number_of_documents
            self._pool = read_documents(self._document_set.document_file, min(available, max(POOL_SIZE, self._docs_per_probe)))
        probe = f"{self._operation}-{self._client}-{self._calls}"
        start = self._calls * self._docs_per_probe
        documents = [with_probe(self._pool[(start + i) % len(self._pool)], probe) for i in range(self._docs_per_probe)]
        self._calls += 1
        return {
            "index": self._index,
            "probe": probe,
            "documents": documents,
            "bulk": self._method == "bulk",
            "refresh": self._refresh,
            "phase-delay-s": self._random.uniform(0.0, self._jitter_s),
            "poll-interval-s": self._poll_s,
            "timeout-s": self._timeout_s,
            "backoff": self._backoff,
            "doc-type": self._doc_type,
            "operation": self._operation,
        }
