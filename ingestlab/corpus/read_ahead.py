"""A ``.bz2`` file read through a thread of its own that decompresses ahead of the reader.

bz2 lets go of the GIL while it decompresses, so on a second core the decompression and the parsing of what it
gives run at once: the reader waits for bz2 only when it is faster than bz2 (a few MiB are kept ready). Errors of
the stream (a truncated file: ``EOFError``) reach the reader at the point where it would have met them."""
from __future__ import annotations

import bz2
import queue
import threading
from pathlib import Path

CHUNK = 1 << 20
AHEAD = 8  # chunks kept ready


class Bz2Ahead:
    def __init__(self, path: Path):
        self._chunks: queue.Queue = queue.Queue(maxsize=AHEAD)
        self._stop = threading.Event()
        self._buffer = memoryview(b"")
        self._done = False
        self._thread = threading.Thread(target=self._decompress, args=(path,), name=f"bz2-ahead {path.name}", daemon=True)
        self._thread.start()

    def _put(self, item) -> bool:
        while not self._stop.is_set():
            try:
                self._chunks.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _decompress(self, path: Path) -> None:
        try:
            with bz2.open(path, "rb") as f:
                while chunk := f.read(CHUNK):
                    if not self._put(chunk):
                        return
            self._put(b"")
        except BaseException as e:  # handed to the reader, raised where it reads
            self._put(e)

    def read(self, size: int = -1) -> bytes:
        if not self._buffer and not self._done:
            item = self._chunks.get()
            if isinstance(item, BaseException):
                self._done = True
                raise item
            if not item:
                self._done = True
            self._buffer = memoryview(item)
        if size is None or size < 0:
            parts = [bytes(self._buffer)]
            self._buffer = memoryview(b"")
            while not self._done:
                parts.append(self.read(CHUNK))
            return b"".join(parts)
        data, self._buffer = bytes(self._buffer[:size]), self._buffer[size:]
        return data

    def close(self) -> None:
        self._stop.set()
        self._thread.join()

    def __enter__(self) -> "Bz2Ahead":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
