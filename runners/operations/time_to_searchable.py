"""Runner ``time-to-searchable``: how long after a write can a search find it? One call is one sample: after a random
phase delay (writes land anywhere in the refresh cycle), it writes a probe (one document, or a bulk) with a unique
``probe`` keyword and searches until every document of it is found; Rally's service time is then the time to
searchable. A probe not found within ``timeout-s`` fails the call: a sample is never silently dropped.
"""

from __future__ import annotations

import asyncio
import time

from ingestlab.runners.compat import request
from ingestlab.runners.utils.failures import RequestFailed
from ingestlab.runners.utils.runner_stats import record
from ingestlab.runners.writing.bulk_bodies import Batch
from ingestlab.runners.writing.indexing import JSON, Backoff, WriteStats, index_in_bulks, index_one_by_one

NAME = "time-to-searchable"


class NotSearchable(RequestFailed):
    """The probe did not show up in search results before the timeout."""


def total_hits(response: dict) -> int:
    """``hits.total`` is an object from 7.0 on and a number before."""
    total = response["hits"]["total"]
    return int(total["value"] if isinstance(total, dict) else total)


async def count_probe(es, index: str, probe: str) -> int:
    response = await request(
        es,
        "POST",
        f"/{index}/_search",
        params={"request_cache": "false"},
        headers=dict(JSON),
        body={"size": 0, "track_total_hits": True, "query": {"term": {"probe": probe}}},
    )
    return total_hits(response)


class TimeToSearchable:
    """Params (from :class:`~ingestlab.runners.param_sources.time_to_searchable.TimeToSearchableParamSource`): ``index``,
    ``probe``, ``documents`` (bytes, each with the probe field), ``bulk`` (bool), ``refresh`` (None, ``true``,
    ``wait_for``), ``phase-delay-s``, ``poll-interval-s``, ``timeout-s``, ``backoff``."""

    async def __call__(self, es, params):
        index, probe, documents = params["index"], params["probe"], params["documents"]
        refresh = params.get("refresh")
        backoff = params.get("backoff") or Backoff()
        poll_interval = params["poll-interval-s"]
        stats = WriteStats()
        await asyncio.sleep(params.get("phase-delay-s", 0.0))

        start = time.perf_counter()
        if params["bulk"]:
            await index_in_bulks(es, index, [Batch.of(documents)], refresh, backoff, stats, doc_type=params.get("doc-type"))
        else:
            await index_one_by_one(es, index, documents, refresh, backoff, stats, doc_type=params.get("doc-type"))
        acknowledged = time.perf_counter()
        deadline = start + params["timeout-s"]
        searches = 0
        while True:
            searches += 1
            found = await count_probe(es, index, probe)
            if found >= len(documents):
                break
            if time.perf_counter() >= deadline:
                raise NotSearchable(
                    f"probe [{probe}] in [{index}]: {found} of {len(documents)} documents searchable "
                    f"{params['timeout-s']} s after the write (refresh={refresh or 'none'})"
                )
            await asyncio.sleep(poll_interval)
        searchable = time.perf_counter()
        record(
            {
                "task": params.get("operation"),
                "method": NAME,
                "docs": len(documents),
                "searchable_ms": (searchable - start) * 1000.0,
                "searches": searches,
                "retries": stats.retries,
            }
        )
        return {
            "weight": 1,
            "unit": "ops",
            "success": True,
            "docs": len(documents),
            "refresh": refresh or "none",
            "acknowledged-ms": (acknowledged - start) * 1000.0,
            "searchable-ms": (searchable - start) * 1000.0,
            "searches": searches,
            "retries": stats.retries,
        }

    def __repr__(self):
        return NAME
