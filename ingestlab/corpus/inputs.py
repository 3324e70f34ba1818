"""A publisher's file as it comes: plain, gzip, bz2, or a ZIP of several members, told by its first bytes, never by its
name, and decompressed as a stream. :func:`sources` turns one input into the :class:`Source` s a converter reads; what
cannot be read is an :class:`UnreadableInput`, one line naming the file, what it looks like and what to do.
"""

from __future__ import annotations

import bz2
import gzip
import io
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable

from ingestlab.corpus.read_ahead import ReadAhead
from ingestlab.errors import IngestlabError

PLAIN, GZIP, BZ2, ZIP = "plain", "gzip", "bz2", "zip"
READ = {GZIP: b"\x1f\x8b", BZ2: b"BZh", ZIP: b"PK\x03\x04"}
EMPTY_ZIP = b"PK\x05\x06"
# formats seen in the wild that the pack does not read: (first bytes, what it is, how to decompress it)
NOT_READ = [
    (b"\xfd7zXZ\x00", "xz-compressed", "xz -d"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "zstd -d"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "7z x"),
    (b"Rar!\x1a\x07", "a RAR archive", "unrar x"),
    (b"\x04\x22\x4d\x18", "lz4-compressed", "lz4 -d"),
    (b"\x1f\x9d", "compressed with compress(1) (.Z)", "uncompress"),
    (b"LZIP", "lzip-compressed", "lzip -d"),
]
DESCRIBED = {GZIP: "gzip-compressed", BZ2: "bz2-compressed", ZIP: "a ZIP archive"}
OTHER_BINARY = [
    (b"%PDF", "a PDF document"),
    (b"\xd0\xcf\x11\xe0", "an old Office document (.xls/.doc)"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x89PNG", "a PNG image"),
]


class UnreadableInput(IngestlabError):
    """An input the pack cannot read as it is; the message names the file and what to do."""


def kind(head: bytes) -> str | None:
    """The compression the pack reads that ``head`` (a file's first bytes) starts with, ``plain`` for none of them, or
    None for a compressed format it does not read."""
    if head.startswith(READ[BZ2]) and head[3:4].isdigit():
        return BZ2
    for name in (GZIP, ZIP):
        if head.startswith(READ[name]):
            return name
    if head.startswith(EMPTY_ZIP):
        return ZIP
    if any(head.startswith(magic) for magic, _, _ in NOT_READ):
        return None
    return PLAIN


def describe(head: bytes) -> str | None:
    """What binary data ``head`` is, in words ("gzip-compressed", "a PDF document", "binary data"); None for text."""
    found = kind(head)
    if found in DESCRIBED:
        return DESCRIBED[found]
    for magic, what, _ in NOT_READ:
        if head.startswith(magic):
            return what
    for magic, what in OTHER_BINARY:
        if head.startswith(magic):
            return what
    if len(head) > 257 + 5 and head[257:262] == b"ustar":
        return "a tar archive"
    sample = head[:4096]
    if b"\0" in sample or sum(b < 9 or 13 < b < 32 for b in sample) > len(sample) // 20:
        return "binary data"
    return None


@dataclass(frozen=True)
class Source:
    """One stream of data: a file (``member`` None) or one member of a ZIP; ``kind``: how the file is compressed."""

    path: Path
    kind: str = PLAIN
    member: str | None = None

    @property
    def label(self) -> str:
        """How messages name it: the file, and the member in brackets (``ValeursFoncieres-2023.txt.zip[…txt]``)."""
        return str(self.path) if self.member is None else f"{self.path}[{self.member}]"

    @property
    def compressed(self) -> bool:
        return self.kind != PLAIN

    def open_raw(self) -> BinaryIO:
        """The decompressed bytes, read in the caller's thread; errors of the stream become :class:`UnreadableInput`."""
        if self.kind == PLAIN:
            return open(self.path, "rb")
        return _Checked(self)

    def open(self) -> BinaryIO:
        """The decompressed bytes, decompressed ahead of the reader in a thread of its own (a plain file as it is)."""
        if self.kind == PLAIN:
            return open(self.path, "rb")
        return io.BufferedReader(ReadAhead(lambda: _Checked(self), self.label), buffer_size=1 << 20)

    def head(self, size: int = 1 << 16) -> bytes:
        with self.open_raw() as f:
            return f.read(size)

    def error(self, e: BaseException) -> UnreadableInput:
        """What a stream's error means for this input, in one line."""
        if isinstance(e, UnreadableInput):
            return e
        if isinstance(e, EOFError):
            return UnreadableInput(f"{self.label}: ends inside a {self.kind} stream (the file is truncated: download it again)")
        return UnreadableInput(f"{self.label}: a damaged {self.kind} stream ({e}): download it again")


STREAM_ERRORS = (EOFError, OSError, zlib.error, zipfile.BadZipFile)  # gzip.BadGzipFile is an OSError


class _Checked(io.RawIOBase):
    """A source's decompressing stream whose errors name the source; a ZIP member's closes its archive with it."""

    def __init__(self, source: Source):
        self._source, self._archive = source, None
        if source.kind == GZIP:
            self._raw = gzip.open(source.path, "rb")
        elif source.kind == BZ2:
            self._raw = bz2.open(source.path, "rb")
        else:
            self._archive = _zip(source.path)
            try:
                self._raw = self._archive.open(source.member)
            except (zipfile.BadZipFile, NotImplementedError) as e:
                self._archive.close()
                raise UnreadableInput(f"{source.label}: cannot read this ZIP member ({e})") from None

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        try:
            return self._raw.read(size)
        except STREAM_ERRORS as e:
            raise self._source.error(e) from None

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
            if self._archive is not None:
                self._archive.close()
        super().close()


def _zip(path: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise UnreadableInput(
            f"{path}: a ZIP archive whose directory is missing or damaged (the file is truncated: download it again)"
        ) from None


def sources(path: Path, wanted: Callable[[bytes], bool], what: str, left_out: list[str] | None = None) -> list[Source]:
    """The sources of one input, in order: a directory's files (name order), a file, or the members of a ZIP whose
    first bytes ``wanted`` accepts (``what``: the data, in words; the others are added to ``left_out``)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise UnreadableInput(f"{path}: a directory with no files")
        return [s for f in files for s in sources(f, wanted, what, left_out)]
    if not path.is_file():
        raise UnreadableInput(f"{path}: no such file")
    with open(path, "rb") as f:
        head = f.read(16)
    found = kind(head)
    if found is None:
        what_it_is, tool = next((w, t) for magic, w, t in NOT_READ if head.startswith(magic))
        raise UnreadableInput(
            f"{path}: {what_it_is}; the pack reads plain, gzip, bz2 and ZIP files: decompress it first ({tool} {path.name})"
        )
    if found != ZIP:
        return [Source(path, found)]
    with _zip(path) as archive:
        names = sorted(i.filename for i in archive.infolist() if not i.is_dir())
    members = [Source(path, ZIP, name) for name in names]
    kept = [m for m in members if wanted(m.head(4096))]
    if not kept:
        holds = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "") if names else "nothing"
        raise UnreadableInput(f"{path}: a ZIP with no {what} member (it holds {holds})")
    if left_out is not None:
        left_out.extend(m.label for m in members if m not in kept)
    return kept
