"""The DVF converter's compiled fast path (``native/``, Rust), built on first use (:mod:`ingestlab.corpus.native_build`).

:class:`Run` runs it on one file: it writes the documents into the corpus file itself and leaves to Python the rows
outside the plain forms it converts (``native/src/main.rs``). Its plan comes from :mod:`.rows`, so the columns have one
source. Without cargo, or with ``INGESTLAB_DVF_CONVERTER=python``, Python does the whole work.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ingestlab.corpus import inputs, native_build

SOURCE = Path(__file__).parent / "native"
VARIABLE = "INGESTLAB_DVF_CONVERTER"
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)  # Linux; in fcntl from Python 3.10


@dataclass
class Block:
    """``count`` documents of ``size`` bytes; ``data``: all of them, or (when the program wrote them to the corpus
    file) those that go into the -1k file."""

    count: int
    size: int
    data: bytes


@dataclass
class Row:
    """A row left to Python: its line number and bytes (no line end); Python answers with :meth:`Run.answer`."""

    line: int
    data: bytes


@dataclass
class Rest:
    """The program stopped after ``line``: Python converts the file's remaining lines."""

    line: int


def binary() -> Path | None:
    """The built program, building it first if its sources changed; None: convert in Python."""
    if not native_build.wanted(VARIABLE):
        return None
    return native_build.build(
        SOURCE, "dvf-fast", "dvf-fast", "DVF files are converted in Python (about a seventh of the compiled path's speed)"
    )


class Run:
    """The program on one file. ``frames()`` yields :class:`Block`, :class:`Row` and at most one :class:`Rest`, the
    last. ``out_fd``: the corpus file's descriptor, which the program appends to (None: the documents come in the
    blocks); ``head_docs``: how many of the next documents still go into the -1k file; ``path``: the file it reads
    (``/dev/fd/N`` for a pipe, ``input_fd`` N passed on); ``label``: how messages name it."""

    def __init__(
        self,
        exe: Path,
        plan: str,
        path: Path | str,
        out_fd: int | None,
        head_docs: int,
        label: str | None = None,
        input_fd: int | None = None,
    ):
        self.path = label or str(path)
        fds = tuple(fd for fd in (out_fd, input_fd) if fd is not None)
        self.proc = subprocess.Popen(
            [str(exe), plan, str(path), "-" if out_fd is None else str(out_fd), str(head_docs)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=fds,
            bufsize=1 << 20,
        )

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def answer(self, written: bool) -> None:
        self.proc.stdin.write(b"W" if written else b"S")
        self.proc.stdin.flush()

    def frames(self) -> Iterator[Block | Row | Rest]:
        out, finished = self.proc.stdout, False
        kind = out.read(1)
        try:
            while kind:
                if kind == b"D":
                    head = out.read(12)
                    count, size, n = (int.from_bytes(head[i : i + 4], "little") for i in (0, 4, 8))
                    yield Block(count, size, out.read(n))
                elif kind == b"R":
                    head = out.read(12)
                    yield Row(int.from_bytes(head[:8], "little"), out.read(int.from_bytes(head[8:], "little")))
                elif kind in (b"E", b"Q"):
                    line = int.from_bytes(out.read(8), "little")
                    finished = True
                    if kind == b"Q":
                        yield Rest(line)
                    break
                else:
                    raise RuntimeError(f"{self.path}: the DVF fast path wrote a frame of unknown kind {kind!r}")
                kind = out.read(1)
            if not finished or self.proc.wait() != 0:
                err = self.proc.stderr.read().decode(errors="replace").strip()
                raise RuntimeError(f"{self.path}: the DVF fast path stopped before the file's end (exit {self.proc.wait()}): {err}")
        finally:
            self.close()

    def close(self) -> None:
        """End the program (killed if the reader stopped early) and close its pipes; again is harmless."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()


class Feed:
    """A compressed source decompressed by a thread of its own into a pipe the fast path reads as ``path``
    (``/dev/fd/N``). :meth:`error` is what the stream met (a truncated file), once the thread has ended."""

    def __init__(self, source: inputs.Source):
        self._source = source
        self.read_fd, write_fd = os.pipe()
        try:  # a pipe of 1 MiB, not 64 KiB: the two sides then run at once, not in turn
            fcntl.fcntl(write_fd, F_SETPIPE_SZ, 1 << 20)
        except OSError:
            pass  # more than /proc/sys/fs/pipe-max-size allows: the default works, slower
        self.path = f"/dev/fd/{self.read_fd}"
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._feed, args=(write_fd,), name=f"dvf-feed {source.label}", daemon=True)
        self._thread.start()

    def _feed(self, write_fd: int) -> None:
        try:
            with open(write_fd, "wb", buffering=0) as out, self._source.open_raw() as f:
                while chunk := f.read(1 << 20):
                    view = memoryview(chunk)
                    while view:
                        view = view[out.write(view) :]
        except BrokenPipeError:
            pass  # the fast path stopped reading: Python reads the rest itself
        except BaseException as e:
            self._error = e

    def started(self) -> None:
        """The fast path holds its own copy of the read end: close ours, so that its end stops the thread."""
        os.close(self.read_fd)

    def error(self) -> BaseException | None:
        self._thread.join()
        return self._error
