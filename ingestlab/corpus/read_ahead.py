"""A stream read (and decompressed: zlib and bz2 release the GIL) ahead of the reader by a thread of its own. Errors
of the stream (a truncated file) reach the reader where it would have met them."""

from __future__ import annotations

import io
import queue
import threading
from typing import BinaryIO, Callable

CHUNK = 1 << 20
AHEAD = 8  # chunks kept ready


class ReadAhead(io.RawIOBase):
    """The bytes of ``opener()``'s stream, read ahead in a thread named after ``name``."""

    def __init__(self, opener: Callable[[], BinaryIO], name: str):
        super().__init__()
        self._chunks: queue.Queue = queue.Queue(maxsize=AHEAD)
        self._stop = threading.Event()
        self._buffer = memoryview(b"")
        self._done = False
        self._thread = threading.Thread(target=self._read, args=(opener,), name=f"read-ahead {name}", daemon=True)
        self._thread.start()

    def _put(self, item) -> bool:
        while not self._stop.is_set():
            try:
                self._chunks.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _read(self, opener) -> None:
        try:
            with opener() as f:
                while chunk := f.read(CHUNK):
                    if not self._put(chunk):
                        return
            self._put(b"")
        except BaseException as e:  # handed to the reader, raised where it reads
            self._put(e)

    def readable(self) -> bool:
        return True

    def _next(self) -> None:
        item = self._chunks.get()
        if isinstance(item, BaseException):
            self._done = True
            raise item
        if not item:
            self._done = True
        self._buffer = memoryview(item)

    def readinto(self, buffer) -> int:
        if not self._buffer and not self._done:
            self._next()
        n = min(len(buffer), len(self._buffer))
        buffer[:n] = self._buffer[:n]
        self._buffer = self._buffer[n:]
        return n

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            parts = []
            while part := self.read(CHUNK):
                parts.append(part)
            return b"".join(parts)
        if not self._buffer and not self._done:
            self._next()
        data, self._buffer = bytes(self._buffer[:size]), self._buffer[size:]
        return data

    def close(self) -> None:
        if not self.closed:
            self._stop.set()
            self._thread.join()
        super().close()
