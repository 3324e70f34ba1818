"""Runner ``corpus-load``: one request per call, many clients, until the corpus is written.

The parameter source gives each client its own share of the corpus, as prepared request bodies;
one call sends one of them: a bulk request, or with ``bulk-size: 1`` one document through the
index API (not a bulk of one). Rejections (HTTP 429) are retried with bounded backoff and counted;
anything else Elasticsearch refuses fails the call. Rally sums the calls' weights into docs/s.
"""
from __future__ import annotations

from ingestlab.runners.indexing import Backoff, WriteStats, index_in_bulks, index_one_by_one

NAME = "corpus-load"


class CorpusLoad:
    """Params: ``index``, ``batch`` (a :class:`~ingestlab.runners.bulk_bodies.Batch`), ``bulk`` (bool), ``backoff``."""

    async def __call__(self, es, params):
        index, batch = params["index"], params["batch"]
        backoff = params.get("backoff") or Backoff()
        stats = WriteStats()
        if params["bulk"]:
            await index_in_bulks(es, index, [batch], None, backoff, stats)
        else:
            await index_one_by_one(es, index, batch.documents, None, backoff, stats)
        return {"weight": batch.size, "unit": "docs", "success": True, "retries": stats.retries, "bytes": stats.bytes}

    def __repr__(self):
        return NAME
