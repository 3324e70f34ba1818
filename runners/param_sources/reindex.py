"""Parameter source for both reindex runners: ``source-index`` and ``dest-index`` name track indices (``dest-shards``
overrides the destination's shard count); every other parameter passes through, checked by the runner that reads it.
"""

from __future__ import annotations

import copy

from ingestlab.runners.utils.params import ParameterError, positive_int
from ingestlab.runners.utils.track_lookup import doc_type, pick
from ingestlab.runners.writing.indexing import Backoff


class ReindexParamSource:
    def __init__(self, track, params, **kwargs):
        operation = kwargs.get("operation_name") or params.get("name") or "reindex"
        if "source-index" not in params or "dest-index" not in params:
            raise ParameterError(f"operation [{operation}] needs [source-index] and [dest-index]")
        source = pick(track.indices, params["source-index"], "index", operation)
        dest = pick(track.indices, params["dest-index"], "index", operation)
        body = copy.deepcopy(dest.body or {})
        if params.get("dest-shards") is not None:
            body.setdefault("settings", {})["index.number_of_shards"] = positive_int(params, "dest-shards", operation)
        self._params = {
            **params,
            "operation": operation,
            "source-index": source.name,
            "dest-index": dest.name,
            "dest-body": body,
            "dest-doc-type": doc_type(dest),
            "backoff": Backoff(max_retries=positive_int(params, "max-retries", operation, default=12)),
        }
        self.infinite = True

    def partition(self, partition_index, total_partitions):
        clone = ReindexParamSource.__new__(ReindexParamSource)
        clone.__dict__.update(self.__dict__)
        clone._params = {**self._params, "clients": total_partitions}  # the task's clients: who reports throughput
        return clone

    def params(self):
        return dict(self._params)
