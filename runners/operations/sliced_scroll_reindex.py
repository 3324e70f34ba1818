"""Runner ``sliced-scroll-reindex``: the study's reindex tool, one runner call per run. ``slices`` scroll readers feed a
bounded queue that ``bulk-workers`` writers drain into bulks of ``bulk-size``. Options: ``local-shards`` (read only the
primaries on the client's node; ``slices: auto``: one per shard), ``raw`` (move ``_source`` bytes undecoded:
:mod:`ingestlab.runners.writing.scroll_hits`), ``compression`` (gzip both ways), ``node: driver-host`` (every request
to the node on the load driver's host) and ``dest: existing`` (write into a destination an earlier task made).

Only the copy is timed. Every document read must be acknowledged (and, with ``dest: recreate``, counted in the
destination); scroll contexts are cleared in every case; an expired one is named the same way whatever form it came in.
"""

from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass

from ingestlab.runners.compat import ApiErrors, request
from ingestlab.runners.compat import status as http_status
from ingestlab.runners.utils.failures import RequestFailed, describe
from ingestlab.runners.utils.params import ParameterError, positive_int
from ingestlab.runners.utils.runner_stats import record
from ingestlab.runners.utils.timing import untimed
from ingestlab.runners.writing.bulk_bodies import Batch
from ingestlab.runners.writing.driver_host import local_node, pinned_to
from ingestlab.runners.writing.indexing import JSON, WriteStats, index_in_bulks
from ingestlab.runners.writing.indices import DocumentsLost, count_documents, recreate_index
from ingestlab.runners.writing.scroll_hits import SCROLL_FILTER, MalformedPage, decoded_page, raw_page

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
    node: str = "any"
    dest: str = "recreate"

    @classmethod
    def parse(cls, params: dict) -> "Options":
        op = params.get("operation", NAME)
        slices = params.get("slices", "auto")
        if slices != "auto":
            slices = positive_int(params, "slices", op)
        for flag in ("local-shards", "compression", "raw"):
            if not isinstance(params.get(flag, False), bool):
                raise ParameterError(f"operation [{op}]: [{flag}] must be true or false, got {params.get(flag)!r}")
        for choice, allowed in (("node", ("any", "driver-host")), ("dest", ("recreate", "existing"))):
            if params.get(choice, allowed[0]) not in allowed:
                raise ParameterError(f"operation [{op}]: [{choice}] must be one of {', '.join(allowed)}, got {params.get(choice)!r}")
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
            node=params.get("node", "any"),
            dest=params.get("dest", "recreate"),
        )


async def primaries(es, index: str) -> tuple[list[str], list[str]]:
    """(all primary shard numbers, those on the node this client talks to)."""
    nodes = await request(es, "GET", "/_nodes/_local", headers=dict(JSON), params={"filter_path": "nodes.*.name"})
    local_node = next(iter(nodes["nodes"]))
    shards = await request(es, "GET", f"/_cat/shards/{index}", headers=dict(JSON), params={"format": "json", "h": "shard,prirep,id"})
    all_primaries = sorted({s["shard"] for s in shards if s["prirep"] == "p"}, key=int)
    local = sorted({s["shard"] for s in shards if s["prirep"] == "p" and s["id"] == local_node}, key=int)
    return all_primaries, local


@dataclass
class CopyStats:
    docs_read: int = 0
    source_bytes: int = 0
    pages: int = 0


async def count_shards(es, index: str, preference: str | None) -> int:
    """Documents in ``index`` (refreshed first), or in the shards a preference picks."""
    if preference is None:
        return await count_documents(es, index)
    await request(es, "POST", f"/{index}/_refresh", headers=dict(JSON))
    response = await request(es, "GET", f"/{index}/_count", headers=dict(JSON), params={"preference": preference})
    return int(response["count"])


class SlicedScrollReindex:
    async def __call__(self, es, params):
        opts = Options.parse(params)
        node = await untimed(lambda: local_node(es)) if opts.node == "driver-host" else None
        with pinned_to(es, node):
            return await self._copy(es, params, opts, node.name if node else None)

    async def _copy(self, es, params, opts: Options, node_name: str | None):
        source, dest = params["source-index"], params["dest-index"]
        expected, shards = await untimed(lambda: _prepare(es, params, opts))
        if expected is None:
            raise ScrollFailed(
                f"no primary of [{source}] on the node this client talks to ({node_name or 'any node'}); local-shards needs one"
            )
        if opts.raw:
            es.return_raw_response()  # this call's requests return bytes: no JSON decoding in the client
        run = _Run(es, params, opts, shards)
        await run.copy()
        what = f"the primaries {','.join(shards)} of [{source}]" if opts.local_shards else f"[{source}]"
        if run.read.docs_read != expected or run.written.acknowledged != expected:
            raise DocumentsLost(
                f"{run.read.docs_read} documents were read from {what} which holds {expected}; "
                f"[{dest}] acknowledged {run.written.acknowledged}",
                weight=run.written.acknowledged,
            )
        if opts.dest == "recreate":
            found = await untimed(lambda: count_documents(es, dest))
            if found != expected:
                raise DocumentsLost.mismatch(dest, found, expected, f"{expected} were copied from {what}")
        record(
            {
                "task": params.get("operation"),
                "method": NAME,
                "docs": expected,
                "elapsed_s": run.elapsed,
                "client_cpu_s": run.cpu,
                "source_bytes": run.read.source_bytes,
                "raw": opts.raw,
                "compression": opts.compression,
                "slices": run.slices,
                "bulk_workers": opts.bulk_workers,
                "local_shards": opts.local_shards,
                "retries": run.written.retries,
                "started_at": run.started_at,
                "ended_at": run.ended_at,
                "node": node_name,
                "driver_host": socket.gethostname(),
                "shards": shards,
                "acknowledged": run.written.acknowledged,
            }
        )
        outcome = {
            "weight": expected,
            "unit": "docs",
            "success": True,
            "elapsed-ms": run.elapsed * 1000.0,
            "mb-per-s": run.read.source_bytes / run.elapsed / 1e6,
            "source-bytes": run.read.source_bytes,
            "pages": run.read.pages,
            "bulk-requests": run.written.requests,
            "retries": run.written.retries,
            "slices": run.slices,
            "client-cpu-us-per-doc": run.cpu / expected * 1e6 if expected else None,
        }
        if int(params.get("clients", 1)) == 1:
            # one client: the run's own docs/s, its set-up left out. With several, Rally must add the clients up
            # itself (it takes a runner's throughput as one client's sample), so it is left to Rally.
            outcome["throughput"] = expected / run.elapsed
        return outcome

    def __repr__(self):
        return NAME


async def _prepare(es, params: dict, opts: Options) -> tuple[int | None, list[str]]:
    """Untimed: recreate the destination (``dest: recreate``), find the primaries to read and count what they
    hold. (None, []) when ``local-shards`` finds no primary on this client's node."""
    source = params["source-index"]
    if opts.dest == "recreate":
        await recreate_index(es, params["dest-index"], params["dest-body"])
    all_primaries, local = await primaries(es, source)
    if opts.local_shards and not local:
        return None, []
    shards = local if opts.local_shards else all_primaries
    return await count_shards(es, source, _preference(shards, opts)), shards


# How Elasticsearch says a page's scroll context expired (404, a shard failure, or a 500 when released while read);
# an empty page before the slice's count says it too (caught in :meth:`_Run.read_slice`).
EXPIRY_SIGNS = ("search_context_missing_exception", "No search context found", "already closed, can't increment ref count")


def _expiry(said: str | None, status: int | None = None) -> bool:
    """Whether an error or shard failure says the scroll context is gone."""
    return bool(said) and any(sign in said for sign in EXPIRY_SIGNS) and status in (None, 404, 500)


def _preference(shards: list[str], opts: Options) -> str | None:
    return f"_shards:{','.join(shards)}|_local" if opts.local_shards else None


class _Run:
    """One timed copy: ``slices`` scroll readers feed a bounded queue, ``bulk-workers`` writers drain it."""

    def __init__(self, es, params: dict, opts: Options, shards: list[str]):
        self.es, self.opts, self.backoff = es, opts, params["backoff"]
        self.source, self.dest, self.doc_type = params["source-index"], params["dest-index"], params.get("dest-doc-type")
        self.slices = len(shards) if opts.slices == "auto" else opts.slices
        self.preference = _preference(shards, opts)
        self.headers = {**JSON, "accept-encoding": "gzip" if opts.compression else "identity"}
        self.read, self.written = CopyStats(), WriteStats()
        self.queue: asyncio.Queue = asyncio.Queue(maxsize=opts.queue_depth)
        self.elapsed = self.cpu = self.started_at = self.ended_at = 0.0

    async def copy(self) -> None:
        self.started_at = time.time()  # wall clock: runs of several clients on several hosts are lined up by it
        start, cpu = time.perf_counter(), time.process_time()
        tasks = [asyncio.ensure_future(self.feed())] + [asyncio.ensure_future(self.write()) for _ in range(self.opts.bulk_workers)]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        self.elapsed, self.cpu = time.perf_counter() - start, time.process_time() - cpu
        self.ended_at = time.time()

    async def feed(self) -> None:
        await asyncio.gather(*(self.read_slice(i) for i in range(self.slices)))
        for _ in range(self.opts.bulk_workers):
            await self.queue.put(None)

    async def read_slice(self, slice_id: int) -> None:
        opts, es = self.opts, self.es
        body = {"size": opts.scroll_size, "sort": ["_doc"]}
        if self.slices > 1:
            body["slice"] = {"id": slice_id, "max": self.slices}
        query = {"scroll": opts.keep_alive, "filter_path": SCROLL_FILTER}
        if self.preference:
            query["preference"] = self.preference
        scroll_id, total, read = None, None, 0
        try:
            response = await request(es, "POST", f"/{self.source}/_search", params=query, headers=dict(self.headers), body=body)
            while True:
                try:
                    page = raw_page(response.read()) if opts.raw else decoded_page(response)
                except MalformedPage as e:
                    raise ScrollFailed(f"slice {slice_id} of [{self.source}]: {e}") from None
                scroll_id = page.scroll_id or scroll_id
                total = page.total if total is None else total  # the slice's hits, as its first page counted them
                if page.failed_shards:
                    raise self._failed(
                        slice_id, f"{page.failed_shards} shard(s) failed to answer a page: {page.failure}", _expiry(page.failure)
                    )
                if not page.actions:
                    if total is not None and read < total:
                        raise self._failed(slice_id, f"an empty page after {read} of the slice's {total} documents", expired=True)
                    return
                read += len(page.actions)
                self.read.pages += 1
                self.read.docs_read += len(page.actions)
                self.read.source_bytes += sum(map(len, page.sources))
                await self.queue.put((page.actions, page.sources))
                response = await request(
                    es,
                    "POST",
                    "/_search/scroll",
                    params={"filter_path": SCROLL_FILTER},
                    headers=dict(self.headers),
                    body={"scroll": opts.keep_alive, "scroll_id": scroll_id},
                )
        except ApiErrors as e:
            said = describe(e)
            raise self._failed(slice_id, f"HTTP {http_status(e)}: {said}", expired=_expiry(said, http_status(e))) from e
        finally:
            if scroll_id:
                try:
                    await request(es, "DELETE", "/_search/scroll", headers=dict(JSON), body={"scroll_id": [scroll_id]})
                except ApiErrors:
                    pass  # already gone (expired): nothing left to free

    def _failed(self, slice_id: int, how: str, expired: bool) -> ScrollFailed:
        """One way to name a failed scroll, whichever form it came in; an expired context says so the same way in each."""
        where = f"slice {slice_id} of [{self.source}]"
        if expired:
            return ScrollFailed(
                f"{where}: the scroll context is gone ({how}): did its keep-alive ({self.opts.keep_alive}) run out between pages?"
            )
        return ScrollFailed(f"{where}: scroll failed ({how})")

    async def write(self) -> None:
        size = self.opts.bulk_size
        actions: list[bytes] = []
        sources: list[bytes] = []
        while True:
            item = await self.queue.get()
            if item is not None:
                actions.extend(item[0])
                sources.extend(item[1])
            while len(actions) >= size or (item is None and actions):
                batch = Batch.with_actions(actions[:size], sources[:size])
                del actions[:size], sources[:size]
                await index_in_bulks(
                    self.es,
                    self.dest,
                    [batch],
                    None,
                    self.backoff,
                    self.written,
                    gzip_level=1 if self.opts.compression else None,
                    lean=True,
                    doc_type=self.doc_type,
                )
            if item is None:
                return
