"""A Rally corpus file as the pack writes every one: ``<name>.json``, its ``-1k`` file (what ``--test-mode`` reads),
an optional ``.bz2`` archive and the entry ``<name>.meta.json`` (exact count, bytes, origin). Everything is written as
``.tmp`` and renamed into place when complete; Rally's ``.offset`` files of an older file of the name are removed.
"""

from __future__ import annotations

import bz2
import json
import os
import queue
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from ingestlab.errors import IngestlabError

TEST_MODE_DOCS = 1000
CHUNK_BYTES = 4 << 20
PROGRESS_EVERY_S = 15.0


def one_k_path(path: Path) -> Path:
    """The file Rally's --test-mode reads instead of ``path``."""
    return path.with_name(f"{path.stem}-1k{path.suffix}")


def meta_path(path: Path) -> Path:
    return path.with_name(f"{path.stem}.meta.json")


def read_meta(path: Path) -> dict | None:
    """The entry written beside a corpus file, or None when there is none."""
    f = meta_path(Path(path))
    return json.loads(f.read_text()) if f.is_file() else None


@dataclass(frozen=True)
class CorpusFile:
    path: Path
    documents: int
    uncompressed_bytes: int
    compressed_bytes: int | None = None


class _Compressor:
    """bz2 in a second thread, fed whole chunks."""

    def __init__(self, path: Path):
        self.path = path
        self.queue: queue.Queue = queue.Queue(maxsize=8)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            compressor = bz2.BZ2Compressor(9)
            with open(self.path, "wb") as out:
                while (chunk := self.queue.get()) is not None:
                    out.write(compressor.compress(chunk))
                out.write(compressor.flush())
        except BaseException as e:  # reported by close()
            self.error = e

    def close(self) -> None:
        self.queue.put(None)
        self.thread.join()
        if self.error:
            raise self.error


class _Stream:
    """One output file written in chunks to ``<path>.tmp``, with an optional archive beside it."""

    def __init__(self, path: Path, compress: bool):
        self.path, self.tmp = path, path.with_name(path.name + ".tmp")
        self.file = open(self.tmp, "wb")
        self.archive = path.with_name(path.name + ".bz2")
        self.compressor = _Compressor(self.archive.with_name(self.archive.name + ".tmp")) if compress else None
        self.buffer: list[bytes] = []
        self.buffered = self.bytes = 0

    def write(self, data: bytes) -> None:
        self.buffer.append(data)
        self.buffered += len(data)
        if self.buffered >= CHUNK_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.buffer:
            chunk = b"".join(self.buffer)
            self.file.write(chunk)
            if self.compressor:
                self.compressor.queue.put(chunk)
            self.bytes += len(chunk)
            self.buffer, self.buffered = [], 0

    def sync(self) -> None:
        """Everything written so far in the file itself, for another process to append to it."""
        self.flush()
        self.file.flush()

    def commit(self) -> int | None:
        self.flush()
        self.file.close()
        os.replace(self.tmp, self.path)
        self.path.with_name(self.path.name + ".offset").unlink(missing_ok=True)
        if not self.compressor:
            self.archive.unlink(missing_ok=True)
            return None
        self.compressor.close()
        os.replace(self.compressor.path, self.archive)
        return self.archive.stat().st_size

    def abort(self) -> None:
        self.file.close()
        self.tmp.unlink(missing_ok=True)
        if self.compressor:
            try:
                self.compressor.close()
            finally:
                self.compressor.path.unlink(missing_ok=True)


class CorpusWriter:
    """Documents in, a complete corpus file (and its -1k file and entry) out, or nothing at all.

    ``write(item)`` takes one document's lines, newline included (action line too with ``action_lines``);
    ``write_block`` many at once. ``progress(documents)`` is called every :data:`PROGRESS_EVERY_S` seconds."""

    def __init__(
        self,
        path: Path,
        compress: bool = False,
        one_k: bool = True,
        action_lines: bool = False,
        progress: Callable[[int], None] | None = None,
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.action_lines = path, action_lines
        self.full = _Stream(path, compress)
        self.small = _Stream(one_k_path(path), compress) if one_k else None
        self.docs = 0
        self.progress, self._next_report = progress, time.monotonic() + PROGRESS_EVERY_S

    @property
    def bytes(self) -> int:
        return self.full.bytes + self.full.buffered

    def write(self, item: bytes) -> None:
        self.full.write(item)
        if self.small is not None and self.docs < TEST_MODE_DOCS:
            self.small.write(item)
        self.docs += 1
        if not self.docs & 0x3FF:
            self._report_progress()

    def write_block(self, block: bytes, docs: int) -> None:
        """``docs`` whole documents at once, as they stand in a corpus file (e.g. one made in parts)."""
        self.full.write(block)
        if self.small is not None and self.docs < TEST_MODE_DOCS:
            per_doc = 2 if self.action_lines else 1
            lines = block.split(b"\n", (TEST_MODE_DOCS - self.docs) * per_doc)[: (TEST_MODE_DOCS - self.docs) * per_doc]
            self.small.write(b"".join(line + b"\n" for line in lines[: min(docs, TEST_MODE_DOCS - self.docs) * per_doc]))
        self.docs += docs
        self._report_progress()

    def _report_progress(self) -> None:
        if self.progress is not None and time.monotonic() >= self._next_report:
            self._next_report = time.monotonic() + PROGRESS_EVERY_S
            self.progress(self.docs)

    def shared_fd(self) -> int | None:
        """The corpus file's descriptor for a child process to append to (:meth:`written_by_other`), all written so far
        flushed; None when an archive is written too (its compressor needs every byte here)."""
        if self.full.compressor is not None:
            return None
        self.full.sync()
        return self.full.file.fileno()

    def sync(self) -> None:
        """After :meth:`write`, before another process appends to the file again."""
        self.full.sync()

    def one_k_room(self) -> int:
        """How many more documents go into the -1k file (0 when there is none)."""
        return max(0, TEST_MODE_DOCS - self.docs) if self.small is not None else 0

    def written_by_other(self, docs: int, size: int, head: bytes) -> None:
        """``docs`` documents of ``size`` bytes another process appended; ``head``: those that go into the -1k file."""
        self.full.bytes += size
        if self.small is not None and self.docs < TEST_MODE_DOCS and head:
            self.small.write(head)
        self.docs += docs
        self._report_progress()

    def commit(self, source: dict) -> CorpusFile:
        """Rename everything into place and write the entry; ``source`` says where the documents came from."""
        compressed = self.full.commit()
        if self.small is not None:
            self.small.commit()
        entry = {"source-file": self.path.name, "document-count": self.docs, "uncompressed-bytes": self.full.bytes}
        if compressed is not None:  # as a track names it: the archive, which Rally decompresses when needed
            entry.update({"source-file": self.full.archive.name, "compressed-bytes": compressed})
        if self.action_lines:
            entry["includes-action-and-meta-data"] = True
        tmp = meta_path(self.path).with_suffix(".tmp")
        tmp.write_text(json.dumps({**entry, "source": source}, indent=2) + "\n")
        os.replace(tmp, meta_path(self.path))
        return CorpusFile(self.path, self.docs, self.full.bytes, compressed)

    def abort(self) -> None:
        self.full.abort()
        if self.small is not None:
            self.small.abort()

    def __enter__(self) -> "CorpusWriter":
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is not None:
            self.abort()


def write_corpus(
    path: Path, lines: Iterable[bytes], source: dict | None = None, one_k: bool = True, progress: Callable[[int], None] | None = None
) -> CorpusFile:
    """Stream ``lines`` (one document each) into ``path``, its -1k file and its entry."""
    with CorpusWriter(path, one_k=one_k, progress=progress) as writer:
        for line in lines:
            writer.write(line)
        return writer.commit(source or {})


def import_file(source: Path, target: Path) -> CorpusFile:
    """A real Rally corpus file (``.json`` or ``.json.bz2``) streamed in as a pack corpus, with its -1k file and entry."""
    if not Path(source).is_file():
        raise IngestlabError(f"{source}: no such file")
    opener = bz2.open if Path(source).suffix == ".bz2" else open

    def lines():
        with opener(source, "rb") as f:
            for line in f:
                yield line if line.endswith(b"\n") else line + b"\n"

    return write_corpus(target, lines(), {"imported-from": str(source)})
