"""Write a Rally corpus: ``<name>.json`` plus the ``<name>-1k.json`` that ``--test-mode`` reads."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

TEST_MODE_DOCS = 1000


@dataclass(frozen=True)
class CorpusFile:
    path: Path
    documents: int
    uncompressed_bytes: int


def one_k_path(path: Path) -> Path:
    return path.with_name(f"{path.stem}-1k{path.suffix}")


def write_corpus(path: Path, lines: Iterable[bytes]) -> CorpusFile:
    """Stream ``lines`` into ``path`` and its -1k sibling atomically; returns counts for the track."""
    path.parent.mkdir(parents=True, exist_ok=True)
    small_path = one_k_path(path)
    tmp, small_tmp = path.with_suffix(".tmp"), small_path.with_suffix(".tmp")
    documents = size = 0
    with open(tmp, "wb") as full, open(small_tmp, "wb") as small:
        for line in lines:
            full.write(line)
            if documents < TEST_MODE_DOCS:
                small.write(line)
            documents += 1
            size += len(line)
    os.replace(tmp, path)
    os.replace(small_tmp, small_path)
    for stale in (path.with_name(path.name + ".offset"), small_path.with_name(small_path.name + ".offset")):
        stale.unlink(missing_ok=True)
    return CorpusFile(path, documents, size)
