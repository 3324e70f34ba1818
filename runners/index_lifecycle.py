"""Recreate an index before a measured task, and check afterwards that it holds every document.

Used as their own (untimed-by-design) tasks around a multi-client write task, and as helpers by
runners that do both within one call (``fresh-index-load``).
"""
from __future__ import annotations

import copy

from ingestlab.runners.compat import ApiErrors, request, status as http_status
from ingestlab.runners.indexing import JSON
from ingestlab.runners.params import positive_int
from ingestlab.runners.track_lookup import (
    document_set, ingest_percentage, of_percentage, pick, rally_bulk_documents, wanted_documents,
)
from ingestlab.runners.failures import RequestFailed
from ingestlab.runners.runner_stats import record

RECREATE = "recreate-index"
CHECK = "check-doc-count"


class DocumentsLost(RequestFailed):
    """The index holds fewer (or more) documents than were written."""

    @classmethod
    def mismatch(cls, index: str, found: int, expected: int, wrote: str) -> "DocumentsLost":
        """``wrote``: what should be there, in words (e.g. "the task before wrote 1000")."""
        if found > expected:
            why = (f"{found - expected} more than written: documents without ids were written twice "
                   f"(a request re-sent after a lost connection is applied again)")
        else:
            why = f"{expected - found} missing"
        return cls(f"[{index}] holds {found} documents; {wrote}: {why}")


async def recreate_index(es, index: str, body: dict) -> None:
    try:
        await request(es, "DELETE", f"/{index}", headers=dict(JSON))
    except ApiErrors as e:
        if http_status(e) != 404:
            raise
    await request(es, "PUT", f"/{index}", headers=dict(JSON), body=body)
    # every copy the cluster can hold must be started before writing: a replica still recovering when a
    # node fails cannot take over, and the study would measure recovery instead of indexing
    data_nodes = (await request(es, "GET", "/_cluster/health", headers=dict(JSON)))["number_of_data_nodes"]
    status = "green" if data_nodes >= replicas(body) + 1 else "yellow"
    await request(es, 
        "GET",
        f"/_cluster/health/{index}",
        headers=dict(JSON),
        params={"wait_for_status": status, "wait_for_no_initializing_shards": "true", "timeout": "60s"},
    )


def replicas(body: dict) -> int:
    """The index body's replica count, however its settings are spelled (Elasticsearch's default: 1)."""
    settings = (body or {}).get("settings", {})
    nested = settings.get("index", {}) if isinstance(settings.get("index"), dict) else {}
    value = settings.get("index.number_of_replicas", settings.get("number_of_replicas", nested.get("number_of_replicas", 1)))
    return int(value)


async def count_documents(es, index: str) -> int:
    await request(es, "POST", f"/{index}/_refresh", headers=dict(JSON))
    response = await request(es, "GET", f"/{index}/_count", headers=dict(JSON))
    return int(response["count"])


class RecreateIndex:
    async def __call__(self, es, params):
        await recreate_index(es, params["index"], params["index-body"])
        return {"weight": 1, "unit": "ops", "success": True}

    def __repr__(self):
        return RECREATE


class CheckDocCount:
    async def __call__(self, es, params):
        found = await count_documents(es, params["index"])
        record({"task": params.get("operation"), "method": CHECK, "index": params["index"], "documents": found})
        if found != params["expected"]:
            raise DocumentsLost.mismatch(params["index"], found, params["expected"], f"the task before wrote {params['expected']}")
        return {"weight": 1, "unit": "ops", "success": True, "documents": found}

    def __repr__(self):
        return CHECK


class IndexLifecycleParamSource:
    """``index`` (a track index; ``number-of-shards`` overrides its body's), and for the check what the write task
    before it wrote, with the writer's own parameters: ``doc-count`` (default: the corpus; test mode's -1k corpus
    caps it) and ``ingest-percentage``; with ``bulk-size`` and ``writer-clients`` (the write task's clients; Rally
    reserves ``clients`` in an operation) as well, the writer is Rally's ``bulk``
    (or a source that splits its work as Rally's does), whose percentage applies per client and per bulk."""

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
                expected = rally_bulk_documents(expected, positive_int(params, "writer-clients", operation),
                                                positive_int(params, "bulk-size", operation), percentage)
            else:
                expected = of_percentage(expected, percentage, operation)
            self._params["expected"] = expected
        self.infinite = True

    def partition(self, partition_index, total_partitions):
        return self

    def params(self):
        return dict(self._params)
