"""The minimal clients the pack's races are measured against: the same work, hand-written, nothing else.

Run as its own process (``python -m devtools.bench.minimal <task> …``), it prints one JSON line with each run's
documents, wall seconds and client CPU seconds. Like the pack's runners, every run recreates the index (not
timed), writes (timed) and checks the count (not timed), and request bodies are built before the timed loop.

- ``write``: elasticsearch-py's synchronous client, one request per document (index API) or per bulk of
  ``--bulk-size``, optionally with ``refresh``;
- ``copy``: a sliced scroll (one slice per primary, a thread each) into bulk writers, moving each ``_source``
  byte for byte (the same msgspec splice as the pack's raw mode), over urllib3's keep-alive pool.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time

JSON = {"content-type": "application/json", "accept": "application/json"}
NDJSON = {"content-type": "application/x-ndjson", "accept": "application/json"}


def _documents(path: str, count: int) -> list[bytes]:
    with open(path, "rb") as f:
        docs = [line.rstrip(b"\n") for _, line in zip(range(count), f)]
    if len(docs) < count:
        raise SystemExit(f"{path} holds {len(docs)} documents, not {count}")
    return docs


def write(args) -> list[dict]:
    from elasticsearch import Elasticsearch

    es = Elasticsearch(f"http://{args.host}", request_timeout=120)
    docs = _documents(args.corpus, args.docs)
    bodies = (
        [b"".join(b'{"index":{}}\n' + d + b"\n" for d in docs[i : i + args.bulk_size]) for i in range(0, len(docs), args.bulk_size)]
        if args.method == "bulk"
        else docs
    )
    params = {"refresh": args.refresh} if args.refresh else None
    runs = []
    for _ in range(args.runs):
        es.options(ignore_status=404).indices.delete(index=args.index)
        es.indices.create(index=args.index, body=json.loads(args.index_body))
        es.cluster.health(index=args.index, wait_for_status="green")
        start, cpu = time.perf_counter(), time.process_time()
        path = f"/{args.index}/_bulk" if args.method == "bulk" else f"/{args.index}/_doc"
        for body in bodies:
            response = es.perform_request("POST", path, headers=NDJSON if args.method == "bulk" else JSON, body=body, params=params)
            if args.method == "bulk" and response["errors"]:
                raise SystemExit(f"bulk errors: {response['items'][:1]}")
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        es.indices.refresh(index=args.index)
        found = es.count(index=args.index)["count"]
        if found != len(docs):
            raise SystemExit(f"[{args.index}] holds {found} documents, {len(docs)} were written")
        runs.append({"docs": len(docs), "seconds": seconds, "cpu_s": cpu})
    return runs


class _Copy:
    """The minimal sliced-scroll copy: one reader thread per primary, ``workers`` bulk writers, raw ``_source`` bytes."""

    def __init__(self, args):
        import urllib3

        self.args, self.base = args, f"http://{args.host}"
        self.http = urllib3.PoolManager(maxsize=args.workers + 8)
        shards = json.loads(self.call("GET", f"/_cat/shards/{args.source}?format=json&h=shard,prirep"))
        self.primaries = sorted({s["shard"] for s in shards if s["prirep"] == "p"}, key=int)
        source_body = json.loads(self.call("GET", f"/{args.source}"))[args.source]
        self.dest_body = json.dumps(
            {
                "settings": {"index.number_of_shards": len(self.primaries), "index.number_of_replicas": 0, "index.refresh_interval": "-1"},
                "mappings": source_body["mappings"],
            }
        ).encode()
        self.expected = json.loads(self.call("GET", f"/{args.source}/_count"))["count"]

    def call(self, method: str, path: str, body: bytes | None = None, headers=JSON) -> bytes:
        r = self.http.request(method, self.base + path, body=body, headers=headers)
        if r.status >= 300:
            raise SystemExit(f"{method} {path}: HTTP {r.status} {r.data[:200]!r}")
        return r.data

    def reader(self, slice_id: int, pages: queue.Queue, read: list) -> None:
        from ingestlab.runners.writing.scroll_hits import SCROLL_FILTER, raw_page

        body = {"size": self.args.scroll_size, "sort": ["_doc"]}
        if len(self.primaries) > 1:
            body["slice"] = {"id": slice_id, "max": len(self.primaries)}
        data = self.call("POST", f"/{self.args.source}/_search?scroll=2m&filter_path={SCROLL_FILTER}", json.dumps(body).encode())
        while True:
            scroll_id, actions, sources, *_ = raw_page(data)
            if not actions:
                break
            read[slice_id] += len(actions)
            pages.put((actions, sources))
            data = self.call(
                "POST", f"/_search/scroll?filter_path={SCROLL_FILTER}", json.dumps({"scroll": "2m", "scroll_id": scroll_id}).encode()
            )
        self.call("DELETE", "/_search/scroll", json.dumps({"scroll_id": [scroll_id]}).encode())

    def writer(self, pages: queue.Queue) -> None:
        while (item := pages.get()) is not None:
            parts = []
            for a, s in zip(*item):
                parts += [a, b"\n", s, b"\n"]
            if json.loads(self.call("POST", f"/{self.args.dest}/_bulk?filter_path=errors", b"".join(parts), NDJSON)).get("errors"):
                raise SystemExit("bulk errors")

    def run(self) -> dict:
        """One run: recreate the destination (not timed), copy (timed), check the count (not timed)."""
        self.http.request("DELETE", f"{self.base}/{self.args.dest}")
        self.call("PUT", f"/{self.args.dest}", self.dest_body)
        self.call("GET", f"/_cluster/health/{self.args.dest}?wait_for_status=green")
        pages: queue.Queue = queue.Queue(maxsize=8)
        read = [0] * len(self.primaries)
        start, cpu = time.perf_counter(), time.process_time()
        readers = [threading.Thread(target=self.reader, args=(i, pages, read)) for i in range(len(self.primaries))]
        writers = [threading.Thread(target=self.writer, args=(pages,)) for _ in range(self.args.workers)]
        for t in readers + writers:
            t.start()
        for t in readers:
            t.join()
        for _ in writers:
            pages.put(None)
        for t in writers:
            t.join()
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        self.call("POST", f"/{self.args.dest}/_refresh")
        found = json.loads(self.call("GET", f"/{self.args.dest}/_count"))["count"]
        if sum(read) != self.expected or found != self.expected:
            raise SystemExit(f"read {sum(read)}, [{self.args.dest}] holds {found}, the source {self.expected}")
        return {"docs": self.expected, "seconds": seconds, "cpu_s": cpu}


def copy(args) -> list[dict]:
    copier = _Copy(args)
    return [copier.run() for _ in range(args.runs)]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m devtools.bench.minimal")
    sub = p.add_subparsers(dest="task", required=True)
    w = sub.add_parser("write")
    w.add_argument("--host", required=True)
    w.add_argument("--index", required=True)
    w.add_argument("--index-body", required=True)
    w.add_argument("--corpus", required=True)
    w.add_argument("--docs", type=int, required=True)
    w.add_argument("--method", choices=["index", "bulk"], required=True)
    w.add_argument("--bulk-size", type=int, default=1000)
    w.add_argument("--refresh")
    w.add_argument("--runs", type=int, default=3)
    c = sub.add_parser("copy")
    c.add_argument("--host", required=True)
    c.add_argument("--source", required=True)
    c.add_argument("--dest", required=True)
    c.add_argument("--scroll-size", type=int, default=1000)
    c.add_argument("--workers", type=int, default=4)
    c.add_argument("--runs", type=int, default=3)
    args = p.parse_args(argv)
    runs = write(args) if args.task == "write" else copy(args)
    print(json.dumps({"runs": runs}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
