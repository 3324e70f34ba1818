"""Whether study 5's indices and corpus files fit on this machine's disks at the sizes asked, told before the first
race rather than an hour into one. Sizes are estimated from the pack's own full-size races per document, copy and node
count (:attr:`Corpus.stored_bytes_per_doc`); the last 5 % before Elasticsearch's flood stage does not count as room.
``--skip-disk-check`` races anyway.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from ingestlab.errors import IngestlabError
from ingestlab.rally.home import corpus_dirs

FLOOD_STAGE = 0.95  # Elasticsearch's default cluster.routing.allocation.disk.watermark.flood_stage


@dataclass(frozen=True)
class Need:
    track: str
    docs_param: str
    docs: int
    nodes: int
    copies: int
    index_bytes: int
    file_bytes: int  # 0 when the corpus file is there already, or is not a file (generated on the fly)


def needs(tracks, params: dict[str, dict], nodes: int, home: Path | None = None) -> list[Need]:
    """What each track's race on ``nodes`` nodes needs at the parameters ``params`` give it (after overrides): its
    documents (times ``ingest_percentage``), one copy on one node, 1 + the largest of ``replica_sweep`` on three. A
    corpus file counts as made where Rally would find it (the track's folder, then the data cache of the Rally home
    ``home``, None: the pack's)."""
    out = []
    for t in tracks:
        p = params[t.name]
        docs = p.get(t.docs_param)
        if isinstance(docs, bool) or not isinstance(docs, int) or docs < 0:
            raise IngestlabError(f"track param {t.name}.{t.docs_param} must be a whole number of documents, not {docs!r}")
        sweep = p.get("replica_sweep", [0, 1])
        try:
            replicas = [int(r) for r in (sweep if isinstance(sweep, (list, tuple)) else [sweep])]
            percentage = float(p.get("ingest_percentage", 100))
        except (TypeError, ValueError):
            raise IngestlabError(
                f"track params {t.name}.replica_sweep (a list of replica counts) and {t.name}.ingest_percentage "
                f"(a number) must be numbers, not {sweep!r} and {p.get('ingest_percentage')!r}"
            ) from None
        copies = 1 if nodes == 1 else 1 + max(replicas, default=0)
        indexed = docs * min(percentage, 100.0) / 100
        made = (
            not t.file_bytes_per_doc
            or "corpus_file" in p
            or any((Path(d) / f"{t.name}-{docs}.json").exists() for d in corpus_dirs(t.track, t.name, home))
        )
        measured = t.stored_bytes_per_doc  # per node count; a count not raced takes the largest measured
        index_bytes = round(indexed * measured.get(nodes, max(measured.values(), default=0)) * copies)
        out.append(Need(t.name, t.docs_param, docs, nodes, copies, index_bytes, 0 if made else round(docs * t.file_bytes_per_doc)))
    return out


def _usable(path: Path) -> tuple[int, int, int]:
    """(device, bytes writable before Elasticsearch's flood stage, free bytes) of the file system ``path`` is on."""
    while not path.exists():
        path = path.parent
    usage = shutil.disk_usage(path)
    return os.stat(path).st_dev, max(0, usage.free - round(usage.total * (1 - FLOOD_STAGE))), usage.free


def check(race_needs: list[Need], index_dir: Path, corpus_dir: Path) -> None:
    """Raise, naming each track's need and the parameter to lower, when the largest race's indices (the races run one
    after another, each on emptied nodes) plus every corpus file still to make exceed the room on their disks."""
    if not race_needs:
        return
    index_dev, index_room, index_free = _usable(index_dir)
    corpus_dev, corpus_room, corpus_free = _usable(corpus_dir)
    largest = max(race_needs, key=lambda n: n.index_bytes)
    files = sum({n.track: n.file_bytes for n in race_needs}.values())  # each made once, whatever the clusters
    if index_dev == corpus_dev:
        short = [(index_dir, largest.index_bytes + files, index_room, index_free)]
    else:
        short = [(index_dir, largest.index_bytes, index_room, index_free), (corpus_dir, files, corpus_room, corpus_free)]
    short = [s for s in short if s[1] > s[2]]
    if not short:
        return
    gb = lambda b: f"{b / 1e9:,.1f} GB"  # noqa: E731
    lines = ["not enough disk for these races at the sizes asked (estimated from the pack's own full-size races):"]
    for n in race_needs:
        lines.append(
            f"  {n.track} on {n.nodes} node{'' if n.nodes == 1 else 's'}: {n.docs:,} docs ({n.track}.{n.docs_param}), "
            f"{n.copies} cop{'y' if n.copies == 1 else 'ies'} "
            f"of its index ≈ {gb(n.index_bytes)}" + (f", its corpus file to make ≈ {gb(n.file_bytes)}" if n.file_bytes else "")
        )
    for where, need, room, free in short:
        lines.append(
            f"  {where}: needs ≈ {gb(need)}, has {gb(free)} free, {gb(room)} of it before Elasticsearch's "
            f"flood stage ({FLOOD_STAGE:.0%} full) blocks writes"
        )
    lines.append(
        f"lower {largest.track}.{largest.docs_param} with --track-param, race fewer --tracks or --nodes, free space, "
        "or pass --skip-disk-check to race anyway"
    )
    raise IngestlabError("\n".join(lines))
