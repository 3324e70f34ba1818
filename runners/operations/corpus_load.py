"""Runner ``corpus-load``: one request per call (a bulk, or with ``bulk-size: 1`` one document through the index API),
each client sending its own share of the corpus. Rejections (429) are retried with bounded backoff; anything else
Elasticsearch refuses fails the call. Each call's acknowledged documents (count and an id sample) go to the runner stats.
"""

from __future__ import annotations

import time

from ingestlab.runners.compat import raw_responses
from ingestlab.runners.utils.failures import RequestFailed
from ingestlab.runners.utils.runner_stats import record
from ingestlab.runners.writing.indexing import Backoff, WriteStats, index_in_bulks, index_one_by_one


def _record(params: dict, stats: WriteStats, started: float, error: str | None = None) -> None:
    """What this call got acknowledged and retried, and when it ran (wall clock: a task's rate however short it is)."""
    entry = {
        "task": params.get("operation"),
        "method": NAME,
        "sent": params["batch"].size,
        "acknowledged": stats.acknowledged,
        "retries": stats.retries,
        "ids": stats.id_sample,
        "start": started,
        "end": time.time(),
    }
    if error:
        entry["error"] = error
    record(entry)


NAME = "corpus-load"


class CorpusLoad:
    """Params: ``index``, ``batch`` (a :class:`~ingestlab.runners.writing.bulk_bodies.Batch`), ``bulk`` (bool), ``backoff``."""

    async def __call__(self, es, params):
        index, batch = params["index"], params["batch"]
        backoff = params.get("backoff") or Backoff()
        stats = WriteStats()
        raw_responses(es)
        started = time.time()
        try:
            if params["bulk"]:
                await index_in_bulks(es, index, [batch], None, backoff, stats, doc_type=params.get("doc-type"))
            else:
                await index_one_by_one(es, index, batch.documents, None, backoff, stats, doc_type=params.get("doc-type"))
        except Exception as e:
            _record(params, stats, started, error=f"{e.__class__.__name__}: {e}")
            if isinstance(e, RequestFailed):
                e.weight, e.recorded = stats.acknowledged, True  # what this call did get written counts towards docs/s
            raise
        _record(params, stats, started)
        return {"weight": batch.size, "unit": "docs", "success": True, "retries": stats.retries, "bytes": stats.bytes}

    def __repr__(self):
        return NAME
