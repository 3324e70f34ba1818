"""The Wikipedia converter on every core: the export is cut between ``</page>`` and ``<page>`` into pieces of a
few MiB, each piece is parsed and converted in a process of its own (wrapped in the export's own root element, so
its namespace is the export's), and the pieces' corpus lines are written in the export's order.

Only well-formed input takes this path to its end. When a piece meets broken XML, the conversion is made again in
one pass (:func:`~ingestlab.corpus.wikipedia.convert.convert`), whose error names the position in the whole file
and keeps the pages before it, as it always did. The workers are fresh interpreters fed over pipes: a converter run
from a Rally actor or a script read from stdin works alike.
"""
from __future__ import annotations

import io
import queue
import re
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import Iterator

from ingestlab.corpus.wikipedia.pages import BadDump, CountingReader, page_lines

PIECE_BYTES = 4 << 20
_ROOT = re.compile(rb"<mediawiki\b[^>]*>")


class BrokenPiece(Exception):
    pass


def pieces(raw, size: int = PIECE_BYTES) -> Iterator[tuple[bytes, bytes]]:
    """(the export's root start tag, a run of whole ``<page>`` elements) from a binary stream."""
    head = b""
    while b"<page>" not in head:
        data = raw.read(size)
        if not data:
            raise BrokenPiece("no <page> in the export")
        head += data
    root = _ROOT.search(head)
    if root is None:
        raise BrokenPiece("no <mediawiki> root element before the first <page>")
    buffer = head[head.index(b"<page>"):]
    while True:
        data = raw.read(size)
        buffer += data
        end = buffer.rfind(b"</page>")
        if not data:
            tail = buffer[end + len(b"</page>"):] if end >= 0 else buffer
            if tail.strip() not in (b"</mediawiki>", b""):
                raise BrokenPiece("the export does not end with </mediawiki> after its last page")
            if end >= 0:
                yield root.group(0), buffer[: end + len(b"</page>")]
            return
        if end >= 0:
            yield root.group(0), buffer[: end + len(b"</page>")]
            buffer = buffer[end + len(b"</page>"):]


def convert_piece(root: bytes, piece: bytes) -> tuple[bytes, int]:
    """The corpus lines of one piece, and how many pages it held."""
    source = CountingReader(io.BytesIO(root + piece + b"</mediawiki>"))
    out, count = [], 0
    try:
        for data in page_lines(source, Path("piece")):
            out.append(data)
            count += 1
    except BadDump as e:
        raise BrokenPiece(str(e)) from None
    return b"".join(out), count


_FRAME = struct.Struct("<qq")  # (length of what follows, pages: -1 for an error message)


def _send(stream, data: bytes, count: int = 0) -> None:
    stream.write(_FRAME.pack(len(data), count))
    stream.write(data)
    stream.flush()


def _receive(stream) -> tuple[bytes, int] | None:
    head = stream.read(_FRAME.size)
    if len(head) < _FRAME.size:
        return None
    size, count = _FRAME.unpack(head)
    return stream.read(size), count


class _Worker:
    """``python -m ingestlab.corpus.wikipedia.parallel``: a fresh interpreter (nothing of the caller is inherited)
    that converts the pieces it is sent, in order, over its stdin and stdout."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "ingestlab.corpus.wikipedia.parallel"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.queue: queue.Queue = queue.Queue(maxsize=2)
        self.feeder = threading.Thread(target=self._feed, daemon=True)
        self.feeder.start()

    def _feed(self) -> None:
        try:
            while (item := self.queue.get()) is not None:
                _send(self.proc.stdin, item[0] + b"\0" + item[1])
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass  # the worker is gone: its result says why

    def result(self) -> tuple[bytes, int]:
        got = _receive(self.proc.stdout)
        if got is None:
            raise BrokenPiece(f"a converter process ended (exit {self.proc.wait()}): {self.proc.stderr.read()[-500:].decode(errors='replace')}")
        data, count = got
        if count < 0:
            raise BrokenPiece(data.decode())
        return data, count

    def close(self) -> None:
        self.queue.put(None)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def convert_lines(raw, workers: int) -> Iterator[tuple[bytes, int, int]]:
    """(corpus lines, pages, XML bytes) of each piece in order; raises :class:`BrokenPiece` on broken XML."""
    pool = [_Worker() for _ in range(workers)]
    try:
        sizes: list[int] = []
        sent = received = 0
        for root, piece in pieces(raw):
            pool[sent % workers].queue.put((root, piece))
            sizes.append(len(piece))
            sent += 1
            if sent - received >= 2 * workers:
                data, count = pool[received % workers].result()
                yield data, count, sizes[received]
                received += 1
        while received < sent:
            data, count = pool[received % workers].result()
            yield data, count, sizes[received]
            received += 1
    finally:
        for worker in pool:
            worker.close()


def main() -> int:
    """A worker: read (root NUL piece) frames from stdin, write (lines, pages) frames to stdout, until stdin ends."""
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while (got := _receive(inp)) is not None:
        root, _, piece = got[0].partition(b"\0")
        try:
            data, count = convert_piece(root, piece)
        except BrokenPiece as e:
            _send(out, str(e).encode(), -1)
            continue
        _send(out, data, count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
