"""A client's share of a corpus file (:class:`Share`), read lazily and built into request bodies a window of documents
at a time, so a worker's memory stays the same whatever the corpus size; :func:`held` keeps them in memory instead when
they fit in :data:`HOLD_BYTES`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Iterator

from ingestlab.runners.writing.bulk_bodies import Batch
from ingestlab.runners.writing.corpus_reader import CorpusError, chunks

WINDOW_DOCS = 4096
HOLD_BYTES = 64 << 20


@dataclass(frozen=True)
class Share:
    path: str
    start: int  # first document, 0-based
    count: int
    action_lines: bool = False  # the file holds an action line before every document

    def _windows(self, docs: int) -> Iterator[tuple[list[bytes] | None, list[bytes]]]:
        """(action lines or None, documents), ``docs`` documents at a time (fewer at the end)."""
        per = 2 if self.action_lines else 1
        for lines in chunks(self.path, self.start * per, self.count * per, chunk_lines=docs * per):
            if per == 1:
                yield None, lines
                continue
            if len(lines) % 2:
                raise CorpusError(f"{self.path}: an action line without its document at the end of the file")
            yield lines[0::2], lines[1::2]

    def batches(self, bulk_size: int) -> Iterator[Batch]:
        """The share as bulks of ``bulk_size``, each document with its own action line where the file has them."""
        if bulk_size < 1:
            raise ValueError(f"bulk-size must be at least 1, got {bulk_size}")
        window = max(WINDOW_DOCS // bulk_size, 1) * bulk_size  # whole bulks per window
        for actions, docs in self._windows(window):
            for i in range(0, len(docs), bulk_size):
                if actions is None:
                    yield Batch.of(docs[i : i + bulk_size])
                else:
                    yield Batch.with_actions(actions[i : i + bulk_size], docs[i : i + bulk_size])

    def documents(self) -> Iterator[bytes]:
        for _, docs in self._windows(WINDOW_DOCS):
            yield from docs

    def bulks(self, bulk_size: int) -> int:
        return math.ceil(self.count / bulk_size)

    def estimated_bytes(self, documents_in_file: int) -> int:
        """The share's size on disk, estimated from the file's size and document count."""
        return os.path.getsize(self.path) * self.count // max(documents_in_file, 1)


class Streamed:
    """Iterable again and again: each iteration reads the share anew (a run of ``fresh-index-load``)."""

    def __init__(self, share: Share, bulk_size: int | None):
        self.share, self.bulk_size = share, bulk_size

    def __iter__(self):
        return self.share.batches(self.bulk_size) if self.bulk_size else self.share.documents()


def held(share: Share, bulk_size: int | None, documents_in_file: int):
    """The share's batches (``bulk_size``) or documents (None), built now and kept when they fit in
    :data:`HOLD_BYTES`, else a :class:`Streamed` iterable that reads them a window at a time whenever iterated."""
    if share.estimated_bytes(documents_in_file) <= HOLD_BYTES:
        return list(Streamed(share, bulk_size))
    return Streamed(share, bulk_size)
