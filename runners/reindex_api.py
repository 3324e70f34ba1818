"""Runner ``reindex-api``: one call is one run of Elasticsearch's own ``_reindex``.

Untimed: recreate the destination, refresh and count the source. Timed: ``POST _reindex`` with
``wait_for_completion=false`` and ``source.size`` = ``scroll-size`` (and ``slices``), then poll the
task until it ends (no client timeout however long it runs). Untimed again: refresh the destination
and check its count equals the source's, and that the task reported no failures.
"""
from __future__ import annotations

import time

from elasticsearch import ApiError

from ingestlab.runners.index_lifecycle import DocumentsLost, count_documents, recreate_index
from ingestlab.runners.indexing import JSON
from ingestlab.runners.params import positive_int
from ingestlab.runners.runner_stats import record
from ingestlab.runners.timing import untimed
from ingestlab.runners.failures import RequestFailed

NAME = "reindex-api"
MODULE = "reindex"  # the Elasticsearch module behind POST /_reindex


class ReindexFailed(RequestFailed):
    pass


class ReindexApi:
    async def __call__(self, es, params):
        operation = params["operation"]
        source, dest = params["source-index"], params["dest-index"]
        scroll_size = positive_int(params, "scroll-size", operation, default=1000)
        slices = str(params.get("slices", 1))
        expected = await untimed(lambda: _prepare(es, source, dest, params["dest-body"]))
        start = time.perf_counter()
        cpu = time.process_time()
        try:
            response = await es.perform_request(
                "POST", "/_reindex", headers=dict(JSON),
                params={"wait_for_completion": "false", "slices": slices, "refresh": "false"},
                body={"source": {"index": source, "size": scroll_size}, "dest": {"index": dest}},
            )
        except ApiError as e:
            if e.meta.status == 405 or (e.meta.status == 400 and "no handler found" in str(e.body)):
                raise ReindexFailed(f"POST /_reindex is not available on this Elasticsearch (HTTP {e.meta.status}): "
                                    f"it has no {MODULE} module; race with --exclude-tasks=type:{NAME}") from e
            raise
        task = response["task"]
        while True:
            status = await es.perform_request(
                "GET", f"/_tasks/{task}", headers=dict(JSON), params={"wait_for_completion": "true", "timeout": "30s"}
            )
            if status.get("completed"):
                break
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu
        result = status.get("response", {})
        if status.get("error") or result.get("failures"):
            raise ReindexFailed(f"_reindex {source} → {dest} failed: {status.get('error') or result.get('failures')[:3]}")
        found = await untimed(lambda: count_documents(es, dest))
        if found != expected:
            raise DocumentsLost.mismatch(dest, found, expected, f"_reindex copied {expected} from [{source}]")
        stats = {"task": operation, "method": NAME, "docs": expected, "elapsed_s": elapsed, "client_cpu_s": cpu,
                 "scroll_size": scroll_size, "slices": slices, "retries": result.get("retries", {})}
        record(stats)
        return {"weight": expected, "unit": "docs", "success": True, "throughput": expected / elapsed,
                "elapsed-ms": elapsed * 1000.0, "scroll-size": scroll_size, "slices": slices,
                "batches": result.get("batches"), "bulk-retries": result.get("retries", {}).get("bulk")}

    def __repr__(self):
        return NAME


async def _prepare(es, source: str, dest: str, dest_body: dict) -> int:
    await recreate_index(es, dest, dest_body)
    return await count_documents(es, source)
