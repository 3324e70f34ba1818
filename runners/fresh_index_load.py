"""Runner ``fresh-index-load``: one call is one run of an indexing study.

Each call recreates the target index (not timed), indexes a fixed set of documents
with either the single-document index API or bulk requests of a given size (timed),
then checks that every document is in the index (not timed). It reports its own
``throughput`` (docs/s of this run), so with ``iterations: N`` Rally's maximum
throughput is the study's "fastest of N runs" and its service time is the run's
elapsed time. Rejections (HTTP 429) are retried with bounded backoff; any other
failure, or a final count that does not match, fails the run loudly.
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from elasticsearch import ApiError

from ingestlab.runners.bulk_bodies import Batch, bulk_body, failed_items
from ingestlab.runners.timing import untimed

NAME = "fresh-index-load"
JSON = {"content-type": "application/json", "accept": "application/json"}
NDJSON = {"content-type": "application/x-ndjson", "accept": "application/json"}


class DocumentsLost(RuntimeError):
    """The index holds fewer (or more) documents than the run wrote."""


class IndexingFailed(RuntimeError):
    """Elasticsearch refused documents for a reason that retrying does not fix, or retries ran out."""


@dataclass(frozen=True)
class Backoff:
    initial_seconds: float = 0.05
    max_seconds: float = 5.0
    max_retries: int = 12

    def delay(self, attempt: int) -> float:
        return min(self.initial_seconds * (2**attempt), self.max_seconds)


@dataclass
class RunStats:
    requests: int = 0
    retries: int = 0
    bytes: int = 0


async def recreate_index(es, index: str, body: dict) -> None:
    try:
        await es.perform_request("DELETE", f"/{index}", headers=dict(JSON))
    except ApiError as e:
        if e.meta.status != 404:
            raise
    await es.perform_request("PUT", f"/{index}", headers=dict(JSON), body=body)
    await es.perform_request(
        "GET",
        f"/_cluster/health/{index}",
        headers=dict(JSON),
        params={"wait_for_status": "yellow", "wait_for_no_initializing_shards": "true", "timeout": "60s"},
    )


async def count_documents(es, index: str) -> int:
    await es.perform_request("POST", f"/{index}/_refresh", headers=dict(JSON))
    response = await es.perform_request("GET", f"/{index}/_count", headers=dict(JSON))
    return int(response["count"])


def _query(refresh: str | None) -> dict | None:
    return {"refresh": refresh} if refresh else None


async def index_one_by_one(es, index: str, documents, refresh: str | None, backoff: Backoff, stats: RunStats) -> None:
    path = f"/{index}/_doc"
    query = _query(refresh)
    for doc in documents:
        attempt = 0
        while True:
            stats.requests += 1
            stats.bytes += len(doc)
            try:
                await es.perform_request("POST", path, params=query, headers=dict(JSON), body=doc)
                break
            except ApiError as e:
                if e.meta.status != 429 or attempt >= backoff.max_retries:
                    raise IndexingFailed(f"index API refused a document into [{index}] (HTTP {e.meta.status}): {e.message}") from e
                stats.retries += 1
                await asyncio.sleep(backoff.delay(attempt))
                attempt += 1


async def index_in_bulks(es, index: str, batches: list[Batch], refresh: str | None, backoff: Backoff, stats: RunStats) -> None:
    path = f"/{index}/_bulk"
    query = _query(refresh)
    for batch in batches:
        body, documents, attempt = batch.body, batch.documents, 0
        while True:
            stats.requests += 1
            stats.bytes += len(body)
            try:
                response = await es.perform_request("POST", path, params=query, headers=dict(NDJSON), body=body)
            except ApiError as e:
                if e.meta.status != 429 or attempt >= backoff.max_retries:
                    raise IndexingFailed(f"bulk request into [{index}] failed (HTTP {e.meta.status}): {e.message}") from e
                rejected = list(range(len(documents)))
            else:
                if not response["errors"]:
                    break
                failures = failed_items(response)
                if failures.errors:
                    position, status, reason = failures.errors[0]
                    raise IndexingFailed(
                        f"{len(failures.errors)} of {len(documents)} documents refused by [{index}]; "
                        f"first: item {position}, HTTP {status}, {reason}"
                    )
                if attempt >= backoff.max_retries:
                    raise IndexingFailed(f"{len(failures.rejected)} documents still rejected (429) after {attempt} retries")
                rejected = failures.rejected
            stats.retries += 1
            await asyncio.sleep(backoff.delay(attempt))
            attempt += 1
            documents = tuple(documents[i] for i in rejected)
            body = bulk_body(documents)


class FreshIndexLoad:
    """Params (prepared by :class:`~ingestlab.runners.fresh_index_load_source.FreshIndexLoadParamSource`):
    ``index``, ``index-body``, ``method`` (``index``|``bulk``), ``documents`` or ``batches``,
    ``refresh`` (None, ``true``, ``false``, ``wait_for``), ``backoff``."""

    async def __call__(self, es, params):
        index = params["index"]
        method = params["method"]
        refresh = params.get("refresh")
        backoff = params.get("backoff") or Backoff()
        expected = params["doc-count"]
        stats = RunStats()
        await untimed(lambda: recreate_index(es, index, params["index-body"]))
        start = time.perf_counter()
        if method == "bulk":
            await index_in_bulks(es, index, params["batches"], refresh, backoff, stats)
        else:
            await index_one_by_one(es, index, params["documents"], refresh, backoff, stats)
        elapsed = time.perf_counter() - start
        found = await untimed(lambda: count_documents(es, index))
        if found != expected:
            raise DocumentsLost(f"[{index}] holds {found} documents after a run that wrote {expected}")
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
