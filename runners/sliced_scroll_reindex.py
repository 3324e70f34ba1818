"""Runner ``sliced-scroll-reindex``: the study's reindex tool, as one runner call per run.

``slices`` scroll readers (a sliced scroll, ``sort: _doc``) feed a bounded queue; ``bulk-workers``
writers drain it into bulk requests of ``bulk-size``. Options follow the study's steps:

- ``local-shards``: read only the primaries on the node the client talks to (``preference=_shards:…``),
  with ``slices: auto`` = one slice per such shard;
- ``raw``: move each hit's ``_source`` bytes into the bulk body without decoding or encoding it
  (see :mod:`ingestlab.runners.scroll_hits`), against decoding and re-encoding every document;
- ``compression``: gzip on both directions (search responses and bulk bodies), or neither.

Untimed: recreate the destination, count the source, find the local primaries. Timed: the copy.
Untimed: refresh and check the destination holds exactly the source's count. Rejected bulk items
(429) are re-sent with bounded backoff. Scroll contexts are cleared in every case, also on errors.
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from elasticsearch import ApiError

from ingestlab.runners.bulk_bodies import Batch
from ingestlab.runners.index_lifecycle import DocumentsLost, count_documents, recreate_index
from ingestlab.runners.indexing import JSON, WriteStats, index_in_bulks
from ingestlab.runners.params import ParameterError, positive_int
from ingestlab.runners.runner_stats import record
from ingestlab.runners.scroll_hits import SCROLL_FILTER, decoded_page, raw_page
from ingestlab.runners.timing import untimed
from ingestlab.runners.failures import RequestFailed, describe

NAME = "sliced-scroll-reindex"


class ScrollFailed(RequestFailed):
    """A scroll page could not be read (e.g. its context expired); nothing of the run counts."""


@dataclass
class Options:
    slices: int | str
    scroll_size: int
    keep_alive: str
    bulk_size: int
    bulk_workers: int
    queue_depth: int
    local_shards: bool
    compression: bool
    raw: bool

    @classmethod
    def parse(cls, params: dict) -> "Options":
        op = params.get("operation", NAME)
        slices = params.get("slices", "auto")
        if slices != "auto":
            slices = positive_int(params, "slices", op)
        for flag in ("local-shards", "compression", "raw"):
            if not isinstance(params.get(flag, False), bool):
                raise ParameterError(f"operation [{op}]: [{flag}] must be true or false, got {params.get(flag)!r}")
        return cls(
            slices=slices,
            scroll_size=positive_int(params, "scroll-size", op, default=1000),
            keep_alive=str(params.get("scroll-keep-alive", "2m")),
            bulk_size=positive_int(params, "bulk-size", op, default=1000),
            bulk_workers=positive_int(params, "bulk-workers", op, default=4),
            queue_depth=positive_int(params, "queue-depth", op, default=8),
            local_shards=params.get("local-shards", False),
            compression=params.get("compression", False),
            raw=params.get("raw", False),
        )


async def primaries(es, index: str) -> tuple[list[str], list[str]]:
    """(all primary shard numbers, those on the node this client talks to)."""
    nodes = await es.perform_request("GET", "/_nodes/_local", headers=dict(JSON), params={"filter_path": "nodes.*.name"})
    local_node = next(iter(nodes["nodes"]))
    shards = await es.perform_request("GET", f"/_cat/shards/{index}", headers=dict(JSON), params={"format": "json", "h": "shard,prirep,id"})
    all_primaries = sorted({s["shard"] for s in shards if s["prirep"] == "p"}, key=int)
    local = sorted({s["shard"] for s in shards if s["prirep"] == "p" and s["id"] == local_node}, key=int)
    return all_primaries, local


@dataclass
class CopyStats:
    docs_read: int = 0
    source_bytes: int = 0
    pages: int = 0


class SlicedScrollReindex:
    async def __call__(self, es, params):
        opts = Options.parse(params)
        source, dest = params["source-index"], params["dest-index"]

        async def prepare():
            await recreate_index(es, dest, params["dest-body"])
            expected = await count_documents(es, source)
            return expected, await primaries(es, source)

        expected, (all_primaries, local) = await untimed(prepare)
        if opts.local_shards and not local:
            raise ScrollFailed(f"no primary of [{source}] on the node this client talks to; local-shards needs one")
        shards = local if opts.local_shards else all_primaries
        slices = len(shards) if opts.slices == "auto" else opts.slices
        preference = f"_shards:{','.join(shards)}|_local" if opts.local_shards else None
        accept = {"accept-encoding": "gzip" if opts.compression else "identity"}
        if opts.raw:
            es.return_raw_response()  # this call's requests return bytes: no JSON decoding in the client

        copy, written = CopyStats(), WriteStats()
        queue: asyncio.Queue = asyncio.Queue(maxsize=opts.queue_depth)

        async def read_slice(slice_id: int):
            body = {"size": opts.scroll_size, "sort": ["_doc"]}
            if slices > 1:
                body["slice"] = {"id": slice_id, "max": slices}
            query = {"scroll": opts.keep_alive, "filter_path": SCROLL_FILTER}
            if preference:
                query["preference"] = preference
            scroll_id = None
            try:
                response = await es.perform_request("POST", f"/{source}/_search", params=query, headers={**JSON, **accept}, body=body)
                while True:
                    new_id, actions, sources = raw_page(response.read()) if opts.raw else decoded_page(response)
                    scroll_id = new_id or scroll_id
                    if not actions:
                        return
                    copy.pages += 1
                    copy.docs_read += len(actions)
                    copy.source_bytes += sum(map(len, sources))
                    await queue.put((actions, sources))
                    response = await es.perform_request(
                        "POST", "/_search/scroll", params={"filter_path": SCROLL_FILTER}, headers={**JSON, **accept},
                        body={"scroll": opts.keep_alive, "scroll_id": scroll_id},
                    )
            except ApiError as e:
                hint = f"; the scroll context is gone: did its keep-alive ({opts.keep_alive}) run out between pages?" if e.meta.status == 404 else ""
                raise ScrollFailed(f"slice {slice_id} of [{source}]: scroll failed (HTTP {e.meta.status}): {describe(e)}{hint}") from e
            finally:
                if scroll_id:
                    try:
                        await es.perform_request("DELETE", "/_search/scroll", headers=dict(JSON), body={"scroll_id": [scroll_id]})
                    except ApiError:
                        pass  # already gone (expired): nothing left to free

        async def write():
            actions: list[bytes] = []
            sources: list[bytes] = []
            while True:
                item = await queue.get()
                if item is not None:
                    actions.extend(item[0])
                    sources.extend(item[1])
                while len(actions) >= opts.bulk_size or (item is None and actions):
                    batch = Batch.with_actions(actions[: opts.bulk_size], sources[: opts.bulk_size])
                    del actions[: opts.bulk_size], sources[: opts.bulk_size]
                    await index_in_bulks(es, dest, [batch], None, params["backoff"], written,
                                         gzip_level=1 if opts.compression else None, lean=True)
                if item is None:
                    return

        async def feed():
            await asyncio.gather(*(read_slice(i) for i in range(slices)))
            for _ in range(opts.bulk_workers):
                await queue.put(None)

        start, cpu = time.perf_counter(), time.process_time()
        tasks = [asyncio.ensure_future(feed())] + [asyncio.ensure_future(write()) for _ in range(opts.bulk_workers)]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu

        found = await untimed(lambda: count_documents(es, dest))
        if found != expected or copy.docs_read != expected:
            raise DocumentsLost(f"[{dest}] holds {found} documents, {copy.docs_read} were read from [{source}] which holds {expected}")
        record({
            "task": params.get("operation"), "method": NAME, "docs": expected, "elapsed_s": elapsed, "client_cpu_s": cpu,
            "source_bytes": copy.source_bytes, "raw": opts.raw, "compression": opts.compression, "slices": slices,
            "bulk_workers": opts.bulk_workers, "local_shards": opts.local_shards, "retries": written.retries,
        })
        return {
            "weight": expected, "unit": "docs", "success": True, "throughput": expected / elapsed, "elapsed-ms": elapsed * 1000.0,
            "mb-per-s": copy.source_bytes / elapsed / 1e6, "source-bytes": copy.source_bytes, "pages": copy.pages,
            "bulk-requests": written.requests, "retries": written.retries, "slices": slices,
            "client-cpu-us-per-doc": cpu / expected * 1e6 if expected else None,
        }

    def __repr__(self):
        return NAME
