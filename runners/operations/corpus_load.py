"""Runner ``corpus-load``: one request per call, many clients, until the corpus is written.

The parameter source gives each client its own share of the corpus, as prepared request bodies;
one call sends one of them: a bulk request, or with ``bulk-size: 1`` one document through the
index API (not a bulk of one). Rejections (HTTP 429) are retried with bounded backoff and counted;
anything else Elasticsearch refuses fails the call. Rally sums the calls' weights into docs/s.
Each call's acknowledged documents (count and a sample of ids), retries and error go to the runner
stats file, so that a check after a fault can prove no acknowledged document was lost.
"""

from __future__ import annotations

import time

from ingestlab.runners.utils.failures import RequestFailed
from ingestlab.runners.utils.runner_stats import record
from ingestlab.runners.writing.indexing import Backoff, WriteStats, index_in_bulks, index_one_by_one, raw_responses


def _record(params: dict, stats: WriteStats, started: float, error: str | None = None) -> None:
    """What this call got acknowledged (count and an id sample) and retried, and when it ran (wall clock: a task's
    documents ÷ its first request's start to its last one's end is its rate however short it is); kept with
    ``ingestlab race``."""
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
