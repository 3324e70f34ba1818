"""Parameter source of ``recreate-index`` and ``check-doc-count``: the index, and what the write task before the check wrote."""

from __future__ import annotations

import copy

from ingestlab.runners.utils.params import positive_int
from ingestlab.runners.utils.track_lookup import (
    document_set,
    ingest_percentage,
    of_percentage,
    pick,
    rally_bulk_documents,
    wanted_documents,
)


class IndexLifecycleParamSource:
    """``index`` (a track index; ``number-of-shards`` overrides its body's), and for the check what the write task
    before it wrote, from the writer's own ``doc-count`` and ``ingest-percentage``; with ``bulk-size`` and
    ``writer-clients`` too, the writer splits its work as Rally's ``bulk`` does (the percentage per client and bulk)."""

    def __init__(self, track, params, **kwargs):
        operation = kwargs.get("operation_name") or params.get("name") or "index-lifecycle"
        index = pick(track.indices, params.get("index"), "index", operation)
        body = copy.deepcopy(index.body or {})
        if params.get("number-of-shards") is not None:  # e.g. a destination with more shards than its source
            body.setdefault("settings", {})["index.number_of_shards"] = positive_int(params, "number-of-shards", operation)
        self._params = {"index": index.name, "index-body": body, "operation": operation}
        expected = None
        if track.corpora:
            expected = wanted_documents({**params, "ingest-percentage": 100}, operation, document_set(track, params, operation))
        elif "doc-count" in params:  # documents made on the fly (no corpus): the count the writer was given
            expected = positive_int(params, "doc-count", operation)
        if expected is not None:
            percentage = ingest_percentage(params, operation)
            if "bulk-size" in params and "writer-clients" in params:
                expected = rally_bulk_documents(
                    expected, positive_int(params, "writer-clients", operation), positive_int(params, "bulk-size", operation), percentage
                )
            else:
                expected = of_percentage(expected, percentage, operation)
            self._params["expected"] = expected
        self.infinite = True

    def partition(self, partition_index, total_partitions):
        return self

    def params(self):
        return dict(self._params)
