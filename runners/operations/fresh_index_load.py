"""Runner ``fresh-index-load``: one call is one run of an indexing study. Untimed, it recreates the index; timed, it
writes a fixed set of documents (index API or bulks); untimed, it checks every one is there. It reports its own
``throughput``, so with ``iterations: N`` Rally's maximum is the study's "fastest of N runs".
"""

from __future__ import annotations

import time

from ingestlab.runners.compat import raw_responses
from ingestlab.runners.utils.runner_stats import record
from ingestlab.runners.utils.timing import untimed
from ingestlab.runners.writing.indexing import Backoff, WriteStats, index_in_bulks, index_one_by_one
from ingestlab.runners.writing.indices import DocumentsLost, count_documents, recreate_index

NAME = "fresh-index-load"
__all__ = ["NAME", "DocumentsLost", "FreshIndexLoad"]


class FreshIndexLoad:
    """Params (prepared by :class:`~ingestlab.runners.param_sources.fresh_index_load.FreshIndexLoadParamSource`):
    ``index``, ``index-body``, ``method`` (``index``|``bulk``), ``documents`` or ``batches``,
    ``refresh`` (None, ``true``, ``false``, ``wait_for``), ``backoff``."""

    async def __call__(self, es, params):
        index = params["index"]
        method = params["method"]
        refresh = params.get("refresh")
        backoff = params.get("backoff") or Backoff()
        expected = params["doc-count"]
        stats = WriteStats()
        await untimed(lambda: recreate_index(es, index, params["index-body"]))
        raw_responses(es)
        start, cpu = time.perf_counter(), time.process_time()
        if method == "bulk":
            await index_in_bulks(es, index, params["batches"], refresh, backoff, stats, doc_type=params.get("doc-type"))
        else:
            await index_one_by_one(es, index, params["documents"], refresh, backoff, stats, doc_type=params.get("doc-type"))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        record(
            {
                "task": params.get("operation"),
                "method": NAME,
                "docs": expected,
                "requests": stats.requests,
                "retries": stats.retries,
                "elapsed_s": elapsed,
                "client_cpu_s": cpu,
            }
        )
        found = await untimed(lambda: count_documents(es, index))
        if found != expected:
            raise DocumentsLost.mismatch(index, found, expected, f"the run wrote {expected}")
        return {
            "weight": expected,
            "unit": "docs",
            "success": True,
            "throughput": expected / elapsed,
            "elapsed-ms": elapsed * 1000.0,
            "method": method,
            "bulk-size": params.get("bulk-size"),
            "refresh": refresh or "none",
            "requests": stats.requests,
            "retries": stats.retries,
            "bytes": stats.bytes,
        }

    def __repr__(self):
        return NAME
