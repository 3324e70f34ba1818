"""Write a Rally corpus file as it streams: ``<name>.json``, optionally its ``.json.bz2`` archive
(compressed in a second thread: the bz2 module releases the GIL), both atomically (``.tmp`` then rename)."""
from __future__ import annotations

import bz2
import os
import queue
import threading
from pathlib import Path

CHUNK_BYTES = 4 << 20


def one_k_path(path: Path) -> Path:
    """The file Rally's --test-mode reads instead of ``path``."""
    return path.with_name(f"{path.stem}-1k{path.suffix}")


class Compressor:
    """bz2 in a second thread (the bz2 module releases the GIL while compressing)."""

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

    def put(self, chunk: bytes) -> None:
        self.queue.put(chunk)

    def close(self) -> None:
        self.queue.put(None)
        self.thread.join()
        if self.error:
            raise self.error


class CorpusWriter:
    def __init__(self, path: Path, compress: bool):
        self.path, self.tmp = path, path.with_name(path.name + ".tmp")
        self.file = open(self.tmp, "wb")
        self.archive = path.with_name(path.name + ".bz2")
        self.compressor = Compressor(self.archive.with_name(self.archive.name + ".tmp")) if compress else None
        self.buffer: list[bytes] = []
        self.buffered = self.bytes = self.docs = 0

    def write(self, line: bytes) -> None:
        self.buffer.append(line)
        self.buffered += len(line)
        self.docs += 1
        if self.buffered >= CHUNK_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.buffer:
            chunk = b"".join(self.buffer)
            self.file.write(chunk)
            if self.compressor:
                self.compressor.put(chunk)
            self.bytes += len(chunk)
            self.buffer, self.buffered = [], 0

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
