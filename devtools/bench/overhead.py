"""``python -m devtools.bench overhead``: what the pack costs, measured side by side with a minimal client in one run.

On one node, round after round (the order of the two sides alternating), each task runs as the pack's Rally
race and as the minimal client (:mod:`devtools.bench.minimal`) doing the same work on the same corpus:

- docs/s: Rally's median throughput of the task's runs; the minimal client's median over its runs;
- client CPU µs/doc: the CPU of the process that sent the documents, during the timed part (the pack's
  runner records it; the minimal client measures its own loop);
- node CPU µs/doc: the nodes' CPU over the whole side (runs, index recreations, checks) ÷ documents written.

Before each side both sides' indices are deleted and the bench waits for a quiet second on the nodes
(:mod:`devtools.bench.settle`), so neither side inherits the work the one before it left.

Every task gets the rounds asked for; a task whose ratio the rounds do not yet pin down (its 95 % interval of the median,
:mod:`devtools.bench.interval`, missing or wider than ``width``) gets more, up to ``max_rounds``: one side of a
single-request task moved 10–30 % between rounds here (the refresh task's twelve rounds ran 0.77–1.15×), and three
rounds' median landed anywhere from 0.87 to 1.32× in runs an hour apart.

It ends with one line per task, ``<task>: pack/minimal = 0.97x`` (the median of the rounds' ratios), so a
script can read it; min and max of the rounds and the interval are in the table.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from devtools.bench import child_env
from devtools.bench.interval import CONFIDENCE, median_interval, settled
from devtools.bench.overhead_report import ratios, report
from devtools.bench.settle import node_snapshot, settle
from ingestlab import allocator, paths, racing
from ingestlab.cluster.http import http_json
from ingestlab.rally.trackinfo import load as load_track


@dataclass(frozen=True)
class Task:
    key: str  # what --tasks names it by
    name: str
    track: str
    challenge: str
    task: str  # the Rally task whose throughput is the pack's figure
    params: dict
    minimal: list  # the minimal client's arguments (after the host)
    corpus_docs: int  # documents one run writes
    only: bool = False  # race only the measured task (Rally's --include-tasks): its challenge has other cells
    # race the whole challenge once before any round, then only the measured task: its challenge first makes what the
    # task reads (the reindex's source index); loaded anew in every race, the source's loading counted in the pack's
    # node CPU and ran just before the pack's copies, never before the minimal client's
    prepare: bool = False
    posts_corpus: int = 0  # documents of the posts corpus file the minimal client reads (0: none)


def _posts_file(name: str) -> Path:
    """Where the pack's posts race finds (or makes) its corpus file: the minimal client reads the same one."""
    from ingestlab.rally.home import corpus_dirs
    from ingestlab.runners.track_processors.corpora import generated_target

    return generated_target(corpus_dirs(paths.TRACKS_DIR / "posts", "posts"), name)


def tasks(runs: int, scale: float = 1.0) -> list[Task]:
    posts = int(10000 * scale)
    # bulk runs of 50,000 documents: with 10,000 a bulk-10000 run was one 0.2 s request, and its rounds spread 0.77-1.07x
    bulked = int(50000 * scale)
    single = int(2000 * scale)
    refreshed = int(1000 * scale)  # 200 a run swung 0.72–1.11x between rounds (a run under a second); 1,000 ran 0.94–1.06x
    pages = int(20000 * scale)
    posts_file = _posts_file(f"posts-{posts}.json")
    posts_index = json.dumps(
        {
            "settings": {"index.number_of_shards": 1, "index.number_of_replicas": 0},
            "mappings": {"properties": {"user": {"type": "text"}, "postDate": {"type": "date"}, "message": {"type": "text"}}},
        }
    )
    write = ["write", "--index", "overhead-minimal", "--index-body", posts_index, "--corpus", str(posts_file), "--runs", str(runs)]
    write_bulk = write[:6] + [str(_posts_file(f"posts-{bulked}.json"))] + write[7:]
    return [
        Task(
            "posts-index",
            "posts index API",
            "posts",
            "index-api",
            "index-api",
            {"posts_docs": posts, "repetitions": runs, "index_name": "overhead-pack"},
            write + ["--method", "index", "--docs", str(single)],
            single,
            posts_corpus=posts,
        ),
        Task(
            "posts-bulk-1000",
            "posts bulk 1000",
            "posts",
            "bulk",
            "bulk-1000",
            {"posts_docs": bulked, "repetitions": runs, "bulk_size": 1000, "index_name": "overhead-pack"},
            write_bulk + ["--method", "bulk", "--bulk-size", "1000", "--docs", str(bulked)],
            bulked,
            posts_corpus=bulked,
        ),
        Task(
            "posts-bulk-10000",
            "posts bulk 10000",
            "posts",
            "bulk",
            "bulk-10000",
            {"posts_docs": bulked, "repetitions": runs, "bulk_size": 10000, "index_name": "overhead-pack"},
            write_bulk + ["--method", "bulk", "--bulk-size", "10000", "--docs", str(bulked)],
            bulked,
            posts_corpus=bulked,
        ),
        Task(
            "refresh",
            "refresh single+refresh",
            "refresh",
            "refresh-table",
            f"single-{refreshed}-refresh-true",
            {"doc_counts": [refreshed], "refresh_modes": ["true"], "repetitions": runs, "index_name": "overhead-pack"},
            write + ["--method", "index", "--refresh", "true", "--docs", str(refreshed)],
            refreshed,
            only=True,
            posts_corpus=posts,
        ),
        Task(
            "reindex-raw",
            "reindex raw sliced scroll",
            "wikipedia",
            "raw-copy",
            "tool-sliced-local-raw",
            {
                "wiki_pages": pages,
                "source_shards": 2,
                "repetitions": runs,
                "source_index": "overhead-source",
                "dest_index": "overhead-pack",
            },
            ["copy", "--source", "overhead-source", "--dest", "overhead-minimal", "--runs", str(runs)],
            pages,
            only=True,
            prepare=True,
        ),
    ]


def posts_corpora(chosen: list[Task]) -> list[int]:
    """The posts corpus sizes the chosen tasks' minimal clients read: the refresh task's too, whose pack side races
    another track and so never makes it."""
    return sorted({t.posts_corpus for t in chosen if t.posts_corpus})


def _node_us_per_doc(node_ms: float, docs: int) -> float | None:
    """The nodes' CPU per document, or None (shown as missing) when their counter did not move."""
    return node_ms * 1000 / docs if docs and node_ms > 0 else None


def _node_cpu_ms(
    url: str, taken_after_ms: float | None = None, wait_s: float = 3.0, fetch=http_json, clock=time.time, sleep=time.sleep
) -> float:
    """The nodes' process CPU, summed, as they measured it at or after ``taken_after_ms`` (epoch ms; None: now).

    Elasticsearch keeps its process stats for a second (``monitor.process.refresh_interval``, which cannot go lower)
    and answers that copy, stamped with when it was taken: a side shorter than that read the same copy before and
    after it, and its nodes seemed to have spent nothing (the minimal client's 1,000 posts in 0.12 s). So this asks
    again until every node's copy is no older than the moment given; after ``wait_s`` it takes what the nodes have
    (a node whose clock runs behind this machine's)."""
    now = clock()
    taken_after_ms, deadline = now * 1000 if taken_after_ms is None else taken_after_ms, now + wait_s
    while True:
        nodes = node_snapshot(url, fetch)
        if all(ts >= taken_after_ms for ts, _ in nodes.values()) or clock() >= deadline:
            return sum(cpu for _, cpu in nodes.values())
        sleep(0.2)


@dataclass
class Side:
    docs_per_s: float | None = None
    client_us: float | None = None
    node_us: float | None = None


@dataclass
class Round:
    pack: dict = field(default_factory=dict)  # task name → Side
    minimal: dict = field(default_factory=dict)


def _race(task: Task, hosts: str, only: bool):
    return racing.race(
        paths.TRACKS_DIR / task.track,
        racing.Target(hosts=hosts),
        racing.Options(challenge=task.challenge, params=task.params, tags={"bench": "overhead"}, include_tasks=task.task if only else None),
        log=lambda *_: None,
        stream=False,
    )


def _pack(task: Task, hosts: str, url: str, log) -> Side:
    before = _node_cpu_ms(url)
    result = _race(task, hosts, task.only)
    node_ms = _node_cpu_ms(url) - before
    measured = next(t for t in result.schedule if t.name == task.task).operation["name"]  # the runner records it by operation
    runs = [s for s in result.runner_stats if s.get("task") == measured and "client_cpu_s" in s]
    docs = sum(s["docs"] for s in runs)
    return Side(
        result.tasks[task.task].throughput_median,
        statistics.median(s["client_cpu_s"] / s["docs"] * 1e6 for s in runs) if runs else None,
        _node_us_per_doc(node_ms, docs),
    )


def _minimal(task: Task, host: str, url: str) -> Side:
    before = _node_cpu_ms(url)
    proc = subprocess.run(
        [sys.executable, "-m", "devtools.bench.minimal", task.minimal[0], "--host", host, *task.minimal[1:]],
        capture_output=True,
        text=True,
        env=child_env(allocator.with_settings(os.environ)),
    )
    if proc.returncode != 0:
        from ingestlab.errors import IngestlabError

        raise IngestlabError(f"the minimal client of {task.name} failed: {(proc.stderr or proc.stdout)[-1000:]}")
    node_ms = _node_cpu_ms(url) - before
    runs = json.loads(proc.stdout.strip().splitlines()[-1])["runs"]
    docs = sum(r["docs"] for r in runs)
    return Side(
        statistics.median(r["docs"] / r["seconds"] for r in runs),
        statistics.median(r["cpu_s"] / r["docs"] * 1e6 for r in runs),
        _node_us_per_doc(node_ms, docs),
    )


def chosen_tasks(runs: int, scale: float, wanted: str | None) -> list[Task]:
    """The tasks to measure: all, or those ``wanted`` names (comma-separated keys); an unknown key is an error naming the keys."""
    from ingestlab.errors import IngestlabError

    every = tasks(runs, scale)
    if not wanted:
        return every
    keys = [k.strip() for k in wanted.split(",") if k.strip()]
    unknown = [k for k in keys if k not in {t.key for t in every}]
    if unknown:
        raise IngestlabError(f"--tasks {', '.join(unknown)}: the overhead bench has {', '.join(t.key for t in every)}")
    return [t for t in every if t.key in keys]


IN_MEMORY = Path("/dev/shm")
WRITTEN = ["overhead-pack", "overhead-minimal"]  # what the two sides write (the raw reindex's source stays)


def in_memory_data_dir(need_bytes: int = 4 << 30, shm: Path = IN_MEMORY) -> Path | None:
    """Where the bench's own node keeps its data unless told otherwise: the machine's shared-memory tmpfs, when it has
    ``need_bytes`` free (the bench's indices take a few hundred MB); None: no such place, the node's data goes to disk.

    Why: a ``refresh=true`` request waits for a refresh and the translog's fsync. On this machine's disk the minimal
    client alone wrote 70 to 199 docs/s in consecutive runs of the same 500 documents, so the disk, which neither side
    is, decided the pack ÷ minimal ratio (0.44–1.38× between rounds); in memory the same task ran 0.87–1.16×."""
    try:
        st = os.statvfs(shm)
    except OSError:
        return None
    if not os.access(shm, os.W_OK) or st.f_bavail * st.f_frsize < need_bytes:
        return None
    return shm / f"ingestlab-bench-{os.getuid()}"


def still_unsure(pending: list[Task], history: list[Round], rounds: int, max_rounds: int | None, width: float, log) -> list[Task]:
    """The tasks that get another round: all until ``rounds``; then, until ``max_rounds``, those whose 95 % interval of
    the median ratio is missing or wider than ``width``."""
    done = len(history)
    if done < rounds:
        return pending
    if max_rounds is None or done >= max_rounds:
        return []
    unsure, level = [], f"{CONFIDENCE * 100:.0f} %"
    for t in pending:
        values = ratios(t.name, history)
        if settled(values, width):
            continue
        found = median_interval(values)
        why = f"no {level} interval yet" if found is None else f"{level} interval {found.low:.2f}–{found.high:.2f}, wider than {width:.2f}"
        log(f"[ingestlab] overhead: {t.name}: round {done + 1} ({why})")
        unsure.append(t)
    return unsure


def run(
    hosts: str,
    url: str,
    rounds: int = 6,
    runs: int = 3,
    scale: float = 1.0,
    tasks: str | None = None,
    warmup_rounds: int = 1,
    log=print,
    data_note: str | None = None,
    max_rounds: int | None = None,
    width: float = 0.10,
) -> tuple[str, dict]:
    """``data_note``: where the node keeps its data, for the report (None: not known, e.g. a node given by --target-hosts).

    Every task gets ``rounds`` rounds; one whose 95 % interval of the median ratio is then wider than ``width`` gets more,
    one at a time, until it is not or it had ``max_rounds`` (None: no more than ``rounds``)."""
    chosen = chosen_tasks(runs, scale, tasks)
    for t in {t.track for t in chosen}:
        load_track(paths.TRACKS_DIR / t)  # a broken track fails here, before anything runs
    from ingestlab.corpus import makers

    for docs in posts_corpora(chosen):  # the minimal client reads the posts track's corpus: make it first, whatever the pack races
        for document_set, spec in makers.generated_sets(load_track(paths.TRACKS_DIR / "posts", {"posts_docs": docs}).rendered):
            makers.make_as_declared(_posts_file(document_set["source-file"]), document_set["document-count"], spec, log=log)
    for t in chosen:
        if t.prepare:
            log(f"[ingestlab] overhead: {t.name}: its whole challenge once first (the measured task reads what it makes)")
            _race(t, hosts, only=False)
    if warmup_rounds:
        log(f"[ingestlab] overhead: {warmup_rounds} warm-up round(s) first (a fresh node's JVM favours whichever side runs later)")
    waits = []

    def quiet() -> None:  # each side starts from the same state: both sides' indices gone, the nodes idle
        waits.append(settle(url, WRITTEN))
        if not waits[-1].quiet:
            log(f"[ingestlab] overhead: the nodes were still busy after {waits[-1].waited_s:.0f} s; going on")

    for _ in range(warmup_rounds):
        for t in chosen:
            quiet()
            _pack(t, hosts, url, log)
            quiet()
            _minimal(t, hosts.split(",")[0], url)
    history, pending = [], list(chosen)
    while pending:
        r, this = len(history), Round()
        for t in pending:
            order = ("pack", "minimal") if r % 2 == 0 else ("minimal", "pack")
            for side in order:
                quiet()
                if side == "pack":
                    this.pack[t.name] = _pack(t, hosts, url, log)
                else:
                    this.minimal[t.name] = _minimal(t, hosts.split(",")[0], url)
            p, m = this.pack[t.name], this.minimal[t.name]
            log(
                f"[ingestlab] overhead round {r + 1}/{rounds if r < rounds else max_rounds} {t.name}: "
                f"pack {p.docs_per_s:,.0f} docs/s, minimal {m.docs_per_s:,.0f} docs/s "
                f"= {p.docs_per_s / m.docs_per_s:.2f}x"
            )
        history.append(this)
        pending = still_unsure(pending, history, rounds, max_rounds, width, log)
    return report(chosen, history, rounds, runs, warmup_rounds, data_note, waits, width, max_rounds)


def write(text: str, data: dict) -> Path:
    from ingestlab.report import writer

    return writer.write(
        paths.results_dir() / "bench" / "overhead" / time.strftime("%Y-%m-%dT%H%M%S"), "ingestlab: the pack's overhead", text, [], data
    )


NIGHTLY = {
    "rounds": 1,
    "runs": 2,
    "scale": 0.2,
    "tasks": "posts-index,posts-bulk-1000",
    "warmup_rounds": 0,
}  # small: a trend, not the benchmark


def nightly_cost(hosts: str, url: str, log=print) -> dict:
    """The pack's cost on a night's cluster (``nightly --overhead``), small (:data:`NIGHTLY`): pack ÷ minimal client per
    task, as :func:`ingestlab.nightly.run` keeps and judges it."""
    _, data = run(hosts, url, log=log, **NIGHTLY)
    return {task: d["ratio"][1] for task, d in data.items() if d["ratio"][1] is not None}
