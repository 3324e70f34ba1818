"""Peak memory of each streaming converter and generator, at 1× and 10× its input, and of a load-driver worker's
writers at 1× and 100× their corpus.

Each measurement runs in a child process of its own (``python -m devtools.bench.memory KIND N SOURCE OUT``), which
reports its peak resident set size as the kernel kept it (``VmHWM`` of its own address space: the parent's memory,
which ``wait4``'s ``ru_maxrss`` would carry over from the fork, and the making of the input files are not in it).
A flat peak (about the same at 10× or 100×) is what streaming means.

A worker (``<study>-worker``) is what one of Rally's load-driver processes holds: the modules a track's ``track.py``
imports (esrally's driver and track loader, the Elasticsearch client, the pack's runners), and the parameter
sources of its clients, each drawing every request of its share as Rally's event loop does, in turn, until all
are done (each body dropped once "sent"). Its input is a corpus file of ~500-byte documents made in the parent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from devtools.bench import child_env
from ingestlab import allocator

# kind: (what N counts, N at 1×)
KINDS = {
    "posts-generator": ("docs", 100_000),
    "eventdata-generator": ("docs", 200_000),
    "dvf-etalab-converter": ("rows", 100_000),
    "dvf-official-converter": ("rows", 100_000),
    "wikipedia-converter": ("pages", 20_000),
}
# a load-driver worker's writers: kind -> (parameter source, its operation parameters, clients in this worker)
WORKERS = {
    "dvf-worker": ("corpus-load", {"bulk-size": 1000}, 8),  # 16 clients on this machine's 2 workers
    "wikipedia-worker": ("corpus-load-actions", {"bulk-size": 500}, 2),  # load-source: action and document lines
    "posts-worker": ("fresh-index-load", {"method": "bulk", "bulk-size": 1000}, 1),  # two runs of the whole corpus
    "eventdata-worker": ("eventdata", {"bulk-size": 1000}, 4),
}
WORKER_DOCS = 20_000


def _prepare(kind: str, n: int, tmp: Path) -> Path:
    """The input a converter reads (made in the parent, outside the measured child); generators read none."""
    from devtools.bench import loadbench

    if kind in WORKERS:
        return _worker_corpus(tmp / "corpus.json", n, WORKERS[kind][0] == "corpus-load-actions")
    if kind.startswith("dvf-"):
        from ingestlab.corpus.dvf import reference

        return loadbench.dvf_input(tmp, kind.split("-")[1], n, reference.load_communes())
    if kind == "wikipedia-converter":
        return loadbench.wikipedia_input(tmp / "jawiki.xml", n)
    return tmp / "none"


def _worker_corpus(path: Path, docs: int, action_lines: bool) -> Path:
    filler = "x" * 440
    with open(path, "wb") as f:
        for i in range(docs):
            if action_lines:
                f.write(b'{"index":{"_id":"%d"}}\n' % i)
            f.write(b'{"n":%d,"text":"%s"}\n' % (i, filler.encode()))
    return path


def _worker(kind: str, n: int, corpus: Path) -> int:
    """In the child: one load-driver worker's clients draw every request of their shares, in turn."""
    from types import SimpleNamespace

    import esrally.driver.driver  # noqa: F401  what a Rally worker has loaded before any track code
    import esrally.track.loader  # noqa: F401

    from ingestlab.runners import registration  # noqa: F401  what a track's track.py imports
    from ingestlab.runners.param_sources.corpus_load import CorpusLoadParamSource
    from ingestlab.runners.param_sources.eventdata import EventdataParamSource
    from ingestlab.runners.param_sources.fresh_index_load import FreshIndexLoadParamSource

    source_kind, params, clients = WORKERS[kind]
    documents = SimpleNamespace(
        is_bulk=True, number_of_documents=n, document_file=str(corpus), includes_action_and_meta_data=source_kind == "corpus-load-actions"
    )
    track = SimpleNamespace(
        indices=[SimpleNamespace(name="bench", body={}, types=[])],
        corpora=[SimpleNamespace(name="bench", documents=[documents])] if source_kind != "eventdata" else [],
    )
    if source_kind == "fresh-index-load":
        prepared = FreshIndexLoadParamSource(track, params).partition(0, 1).params()
        return sum(batch.size for _ in range(2) for batch in prepared["batches"]) // 2
    if source_kind == "eventdata":
        source = EventdataParamSource(track, {**params, "docs": n * 2})  # this worker: half of the task's clients
        parts = [source.partition(i, clients * 2) for i in range(clients)]
        size = lambda p: p["bulk-size"]
    else:
        source = CorpusLoadParamSource(track, params)
        parts = [source.partition(i, clients) for i in range(clients)]
        size = lambda p: p["batch"].size
    sent, live = 0, list(parts)
    while live:
        for part in list(live):
            try:
                sent += size(part.params())
            except StopIteration:
                live.remove(part)
    return sent


def _run(kind: str, n: int, source: Path, out: Path) -> int:
    """In the child: stream N documents of ``kind`` to ``out`` (generators) or convert ``source`` (converters)."""
    if kind in WORKERS:
        return _worker(kind, n, source)
    if kind == "posts-generator":
        from ingestlab.corpus.files import write_corpus
        from ingestlab.corpus.posts import PostsGenerator

        return write_corpus(out, PostsGenerator().lines(n)).documents
    if kind == "eventdata-generator":
        from ingestlab.runners.param_sources.eventdata import EventdataGenerator

        generator, made = EventdataGenerator(1), 0
        with open(out, "wb") as f:
            while made < n:  # as the parameter source does: one bulk of documents at a time
                batch = generator.documents(min(1000, n - made))
                f.write(b"\n".join(batch) + b"\n")
                made += len(batch)
        return made
    if kind.startswith("dvf-"):
        from ingestlab.corpus.dvf import convert

        result = convert.convert([source], out, compress=False)
        return result.documents + result.skipped.count
    if kind == "wikipedia-converter":
        from ingestlab.corpus.wikipedia import convert

        return convert.convert(source, out / "wikipedia.json").documents
    raise ValueError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")


def peak_rss_mib(kind: str, n: int, tmp: Path) -> float:
    source = _prepare(kind, n, tmp)
    env = child_env(
        allocator.with_settings(os.environ) if kind in WORKERS else None
    )  # a worker: the settings Rally's load drivers race with
    proc = subprocess.run(
        [sys.executable, "-m", "devtools.bench.memory", kind, str(n), str(source), str(tmp / f"out-{n}")],
        capture_output=True,
        text=True,
        env=env,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{kind} with {n} failed (exit {proc.returncode}): {proc.stderr[-1000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])["peak_rss_kib"] / 1024


def _own_peak_kib() -> int:
    from ingestlab.rally.footprint import status_kib

    kib = status_kib(os.getpid(), "VmHWM").get("VmHWM")
    if kib is None:
        raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")
    return kib


def measure(kinds=None, scale: int = 10, base: int | None = None, worker_scale: int = 100) -> dict:
    """Peak RSS in MiB at 1× and ``scale``× for each kind (default: all), 1× being ``base`` or the kind's own size;
    a worker kind at 1× (its corpus: :data:`WORKER_DOCS` documents) and ``worker_scale``×."""
    figures = {}
    for kind in kinds or [*KINDS, *WORKERS]:
        if kind in WORKERS:
            unit, n, factor = "docs", WORKER_DOCS, worker_scale
        else:
            (unit, n), factor = KINDS[kind], scale
            n = base or n
        scale_here = factor
        row = {"unit": unit}
        for factor in (1, scale_here):
            with tempfile.TemporaryDirectory(prefix="ingestlab-memory-") as tmp:
                row[f"{factor}x"] = {unit: n * factor, "peak_rss_mib": round(peak_rss_mib(kind, n * factor, Path(tmp)), 1)}
        row["growth"] = round(row[f"{scale_here}x"]["peak_rss_mib"] / row["1x"]["peak_rss_mib"], 2)
        figures[kind] = row
    return figures


if __name__ == "__main__":
    kind, n, source, out = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
    made = _run(kind, n, source, out)
    if made != n and not kind.startswith("wikipedia-converter"):
        sys.exit(f"{kind}: made {made} of {n}")
    print(json.dumps({"made": made, "peak_rss_kib": _own_peak_kib()}))
