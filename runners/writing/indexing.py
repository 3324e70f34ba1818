"""Writing documents with the index API or bulk requests, retrying rejections (HTTP 429) with bounded backoff: every
document handed in is either acknowledged or the call raises :class:`IndexingFailed` naming what was refused.
"""

from __future__ import annotations

import asyncio
import gzip
import random
from dataclasses import dataclass, field

import orjson

from ingestlab.runners.compat import ApiErrors, pass_built_bodies, request
from ingestlab.runners.compat import status as http_status
from ingestlab.runners.utils.failures import RequestFailed, describe
from ingestlab.runners.writing.bulk_bodies import Batch, acknowledged_ids, clean_bulk, failed_items

JSON = {"content-type": "application/json", "accept": "application/json"}
NDJSON = {"content-type": "application/x-ndjson", "accept": "application/json"}


class IndexingFailed(RequestFailed):
    """Elasticsearch refused documents for a reason that retrying does not fix, or retries ran out."""


_JITTER = random.SystemRandom()  # OS entropy: forked load-driver workers do not share one sequence


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with jitter: attempt *n* waits between half and all of ``initial × 2ⁿ`` (at most
    ``max_seconds``). ``max_retries`` bounds the retries in a row in which Elasticsearch took none of what was sent:
    a bulk whose retry was partly taken (a node rejects per shard) starts again at attempt 0."""

    initial_seconds: float = 0.05
    max_seconds: float = 5.0
    max_retries: int = 12

    def ceiling(self, attempt: int) -> float:
        return min(self.initial_seconds * (2**attempt), self.max_seconds)

    def delay(self, attempt: int) -> float:
        ceiling = self.ceiling(attempt)
        return ceiling / 2 + _JITTER.uniform(0, ceiling / 2)


@dataclass
class WriteStats:
    requests: int = 0
    retries: int = 0
    bytes: int = 0
    acknowledged: int = 0  # documents Elasticsearch confirmed (HTTP 200/201 per document)
    id_sample: list = field(default_factory=list)  # ids of some acknowledged documents: the first and last of each response

    def acknowledge(self, ids: list) -> None:
        self.acknowledged += len(ids)
        if len(self.id_sample) < 1000:
            self.id_sample.extend(i for i in ids[:1] + ids[1:][-1:] if i is not None)

    def acknowledge_all(self, count: int, sample: list) -> None:
        """``count`` documents confirmed at once, ``sample`` their first and last id (see ``bulk_bodies.clean_bulk``)."""
        self.acknowledged += count
        if len(self.id_sample) < 1000:
            self.id_sample.extend(sample)


TERSE = "errors"  # a bulk answer with only its errors flag
ITEM_STATUSES = "errors,items.*.status,items.*.error"


def _no_errors(answer) -> bool:
    """A terse bulk answer saying no item failed: ``{"errors":false}`` and nothing else."""
    if isinstance(answer, (bytes, bytearray)):
        return len(answer) < 64 and answer.replace(b" ", b"") == b'{"errors":false}'
    return answer == {"errors": False}


async def index_one_by_one(
    es, index: str, documents, refresh: str | None, backoff: Backoff, stats: WriteStats, doc_type: str | None = None
) -> None:
    """One ``POST /{index}/_doc`` per document (``/{index}/{doc_type}`` with a 6.x ``doc_type``)."""
    path = f"/{index}/{doc_type or '_doc'}"
    query = {"refresh": refresh} if refresh else None
    for doc in documents:
        attempt = 0
        while True:
            stats.requests += 1
            stats.bytes += len(doc)
            try:
                response = _as_dict(await request(es, "POST", path, params=query, headers=dict(JSON), body=doc))
                stats.acknowledge([response.get("_id")])
                break
            except ApiErrors as e:
                if http_status(e) != 429 or attempt >= backoff.max_retries:
                    raise IndexingFailed(f"index API refused a document into [{index}] (HTTP {http_status(e)}): {describe(e)}") from e
                stats.retries += 1
                await asyncio.sleep(backoff.delay(attempt))
                attempt += 1


def _to_retry(response: dict, batch: Batch, index: str, attempt: int, backoff: Backoff, stats: WriteStats) -> list:
    """Account for a bulk answer's acknowledged items; the positions to send again (429). Raises for any other
    refusal, or when ``attempt`` rounds in a row, this one too, took none of the batch."""
    stats.acknowledge(acknowledged_ids(response))
    if not response["errors"]:
        return []
    failures = failed_items(response)
    if failures.errors:
        position, status, reason = failures.errors[0]
        raise IndexingFailed(
            f"{len(failures.errors)} of {batch.size} documents refused by [{index}]; first: item {position}, HTTP {status}, {reason}"
        )
    if attempt >= backoff.max_retries and len(failures.rejected) == batch.size:
        raise IndexingFailed(f"{batch.size} documents still rejected (429) after {attempt} retries in a row that took none of them")
    return failures.rejected


def _raw(response) -> bytes | None:
    """The body's bytes when the runner asked Rally's client for raw responses (``es.return_raw_response()``)."""
    if hasattr(response, "getvalue"):
        return response.getvalue()
    if hasattr(response, "read"):
        return response.read()
    return bytes(response) if isinstance(response, (bytes, bytearray)) else None


def _as_dict(response):
    raw = _raw(response)
    return response if raw is None else orjson.loads(raw)


async def index_in_bulks(
    es,
    index: str,
    batches: list[Batch],
    refresh: str | None,
    backoff: Backoff,
    stats: WriteStats,
    gzip_level: int | None = None,
    lean: bool = False,
    doc_type: str | None = None,
) -> None:
    """One ``POST /{index}/_bulk`` per batch; rejected items (or whole rejected requests) are re-sent. ``gzip_level``
    compresses both ways. ``lean``, for actions that name each document's ``_id``, asks for ``errors`` alone; when that
    says some item failed, the batch is sent again asking for each item's status (a document already written is
    written again under its own ``_id``)."""
    path = f"/{index}/{doc_type}/_bulk" if doc_type else f"/{index}/_bulk"  # 6.x wants the mapping type
    pass_built_bodies(es)  # the bodies are built: the client sends them without copying them twice
    query = {"refresh": refresh} if refresh else {}
    headers = dict(NDJSON)
    if gzip_level is not None:
        headers["content-encoding"] = headers["accept-encoding"] = "gzip"  # compressed both ways
    for batch in batches:
        attempt, terse = 0, lean
        while True:
            body = batch.body
            stats.requests += 1
            stats.bytes += len(body)
            if gzip_level is not None:
                body = gzip.compress(body, compresslevel=gzip_level)
            if lean:
                query["filter_path"] = TERSE if terse else ITEM_STATUSES
            try:
                answer = await request(es, "POST", path, params=query or None, headers=dict(headers), body=body)
            except ApiErrors as e:
                if http_status(e) != 429 or attempt >= backoff.max_retries:
                    raise IndexingFailed(f"bulk request into [{index}] failed (HTTP {http_status(e)}): {describe(e)}") from e
                rejected = list(range(batch.size))
            else:
                raw = _raw(answer)
                if terse and _no_errors(raw if raw is not None else answer):
                    stats.acknowledge_all(batch.size, [])
                    break
                sample = clean_bulk(raw, batch.size) if raw is not None else None
                if sample is not None:  # every item acknowledged: counted on the bytes, not decoded item by item
                    stats.acknowledge_all(batch.size, sample)
                    break
                response = _as_dict(raw if raw is not None else answer)
                if terse and "items" not in response:  # errors, but not which items: the next answer names them
                    terse, rejected = False, list(range(batch.size))
                else:
                    rejected = _to_retry(response, batch, index, attempt, backoff, stats)
                    if not rejected:
                        break
            stats.retries += 1
            attempt = attempt + 1 if len(rejected) == batch.size else 0  # some were taken: the node is making progress
            await asyncio.sleep(backoff.delay(max(attempt - 1, 0)))
            batch = batch.subset(rejected)
