"""The Wikipedia converter on every core: the export is cut between pages into pieces of a few MiB (XML, or a
multistream dump's runs of bz2 streams), each converted in a worker process (a fresh interpreter fed over pipes) inside
the export's own root element, and written back in order. Broken input raises :class:`BrokenPiece`: the caller then
converts in one pass, whose error names the position in the whole file.
"""

from __future__ import annotations

import bz2
import io
import queue
import re
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import Iterable, Iterator

from ingestlab.corpus.wikipedia.pages import BadDump, CountingReader, page_lines

PIECE_BYTES = 4 << 20
_ROOT = re.compile(rb"<mediawiki\b[^>]*>")
XML, BZ2 = b"X", b"B"  # what a piece holds


class BrokenPiece(Exception):
    pass


def pieces(raw, size: int = PIECE_BYTES) -> Iterator[tuple[bytes, bytes, bytes]]:
    """(``XML``, the export's root start tag, a run of whole ``<page>`` elements) from a binary stream."""
    head = b""
    while b"<page>" not in head:
        data = raw.read(size)
        if not data:
            raise BrokenPiece("no <page> in the export")
        head += data
    root = _ROOT.search(head)
    if root is None:
        raise BrokenPiece("no <mediawiki> root element before the first <page>")
    buffer = head[head.index(b"<page>") :]
    while True:
        data = raw.read(size)
        buffer += data
        end = buffer.rfind(b"</page>")
        cut = end + len(b"</page>") if end >= 0 else 0
        if not data and buffer[cut:].strip() not in (b"</mediawiki>", b""):
            raise BrokenPiece("the export does not end with </mediawiki> after its last page")
        if end >= 0:
            yield XML, root.group(0), buffer[:cut]
            buffer = buffer[cut:]
        if not data:
            return


def pages_of_streams(compressed: bytes) -> bytes:
    """The whole ``<page>`` elements of a run of bz2 streams (a multistream dump's: the first may open with the
    export's root and ``<siteinfo>``, the last may close the root)."""
    try:
        xml = bz2.decompress(compressed)
    except (OSError, EOFError, ValueError) as e:
        raise BrokenPiece(f"a damaged bz2 stream ({e})") from None
    start, end = xml.find(b"<page>"), xml.rfind(b"</page>")
    if start < 0 or end < 0:
        if xml.strip() in (b"", b"</mediawiki>") or (start < 0 and b"<siteinfo>" in xml and end < 0):
            return b""  # a stream with no page: the header's or the footer's
        raise BrokenPiece("a run of streams with no whole <page>")
    if xml[end + len(b"</page>") :].strip() not in (b"", b"</mediawiki>"):
        raise BrokenPiece("a run of streams that does not end after a </page>")
    return xml[start : end + len(b"</page>")]


def convert_piece(root: bytes, piece: bytes) -> tuple[bytes, int]:
    """The corpus lines of one XML piece, and how many pages it held."""
    if not piece:
        return b"", 0
    source = CountingReader(io.BytesIO(root + piece + b"</mediawiki>"))
    out, count = [], 0
    try:
        for data in page_lines(source, Path("piece")):
            out.append(data)
            count += 1
    except BadDump as e:
        raise BrokenPiece(str(e)) from None
    return b"".join(out), count


_FRAME = struct.Struct("<qqq")  # (length of what follows, pages: -1 for an error message, XML bytes)


def _send(stream, data: bytes, count: int = 0, xml_bytes: int = 0) -> None:
    stream.write(_FRAME.pack(len(data), count, xml_bytes))
    stream.write(data)
    stream.flush()


def _receive(stream) -> tuple[bytes, int, int] | None:
    head = stream.read(_FRAME.size)
    if len(head) < _FRAME.size:
        return None
    size, count, xml_bytes = _FRAME.unpack(head)
    return stream.read(size), count, xml_bytes


class _Worker:
    """``python -m ingestlab.corpus.wikipedia.parallel``, a fresh interpreter converting the pieces sent to its stdin."""

    def __init__(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ingestlab.corpus.wikipedia.parallel"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.queue: queue.Queue = queue.Queue(maxsize=2)
        self.feeder = threading.Thread(target=self._feed, daemon=True)
        self.feeder.start()

    def _feed(self) -> None:
        try:
            while (item := self.queue.get()) is not None:
                kind, root, payload = item
                _send(self.proc.stdin, kind + root + b"\0" + payload)
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass  # the worker is gone: its result says why

    def result(self) -> tuple[bytes, int, int]:
        got = _receive(self.proc.stdout)
        if got is None:
            raise BrokenPiece(
                f"a converter process ended (exit {self.proc.wait()}): {self.proc.stderr.read()[-500:].decode(errors='replace')}"
            )
        data, count, xml_bytes = got
        if count < 0:
            raise BrokenPiece(data.decode())
        return data, count, xml_bytes

    def close(self) -> None:
        self.queue.put(None)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def convert_lines(work: Iterable[tuple[bytes, bytes, bytes]], workers: int) -> Iterator[tuple[bytes, int, int]]:
    """(corpus lines, pages, XML bytes) of each piece of ``work`` (:func:`pieces`, or a multistream dump's runs), in
    order; raises :class:`BrokenPiece` on broken input."""
    pool = [_Worker() for _ in range(workers)]
    try:
        sent = received = 0
        for piece in work:
            pool[sent % workers].queue.put(piece)
            sent += 1
            if sent - received >= 2 * workers:
                yield pool[received % workers].result()
                received += 1
        while received < sent:
            yield pool[received % workers].result()
            received += 1
    finally:
        for worker in pool:
            worker.close()


def main() -> int:
    """A worker: (kind, root NUL piece) frames from stdin, (lines, pages, XML bytes) frames to stdout, until stdin ends."""
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while (got := _receive(inp)) is not None:
        kind, (root, _, piece) = got[0][:1], got[0][1:].partition(b"\0")
        try:
            if kind == BZ2:
                piece = pages_of_streams(piece)
            data, count = convert_piece(root, piece)
        except BrokenPiece as e:
            _send(out, str(e).encode(), -1)
            continue
        _send(out, data, count, len(piece))
    return 0


if __name__ == "__main__":
    sys.exit(main())
