"""Read documents of a Rally corpus file (one JSON document per line) as raw bytes, lazily, from any line on.

Lines are validated a chunk at a time, as JSON objects in UTF-8 without building them (one msgspec decode into empty
structs); only a chunk that fails is read again line by line, to name the file, the line and what is wrong."""

from __future__ import annotations

import itertools
from typing import Iterator

import msgspec
import orjson

CHUNK_LINES = 4096
SEEK_BLOCK = 16 << 20


class CorpusError(ValueError):
    """A corpus line that is not a JSON object; the message names file and line."""


class _AnyObject(msgspec.Struct):
    """Matches any JSON object; its members are skipped (their syntax checked)."""


_OBJECTS = msgspec.json.Decoder(list[_AnyObject])


def _check_line(path: str, line_number: int, line: bytes) -> None:
    try:
        parsed = orjson.loads(line)
    except orjson.JSONDecodeError as e:
        raise CorpusError(f"{path}:{line_number}: not valid JSON ({e})") from None
    if not isinstance(parsed, dict):
        raise CorpusError(f"{path}:{line_number}: expected a JSON object, got {type(parsed).__name__}")


def _check_chunk(path: str, first_line: int, lines: list[bytes]) -> None:
    joined = b",".join(lines)
    try:
        if not joined.isascii():
            joined.decode("utf-8")
        if len(_OBJECTS.decode(b"[" + joined + b"]")) == len(lines):  # a line `{…},{…}` would add one
            return
    except (msgspec.DecodeError, UnicodeDecodeError):
        pass
    for offset, line in enumerate(lines):  # name the first bad line
        _check_line(path, first_line + offset, line)
    raise CorpusError(f"{path}:{first_line}-{first_line + len(lines) - 1}: not one JSON object per line")  # orjson named none


def seek_line(f, line: int, path: str = "") -> None:
    """Put binary file ``f`` at the start of its 0-based ``line``, counting newlines a block at a time."""
    f.seek(0)
    position, remaining = 0, line
    while remaining:
        block = f.read(SEEK_BLOCK)
        if not block:
            raise CorpusError(f"{path}: asked to start at line {line + 1} but the file holds only {line - remaining} lines")
        found = block.count(b"\n")
        if found < remaining:
            remaining -= found
            position += len(block)
            continue
        end = -1
        for _ in range(remaining):
            end = block.index(b"\n", end + 1)
        position += end + 1
        remaining = 0
    f.seek(position)


def chunks(path: str, first: int = 0, count: int | None = None, chunk_lines: int | None = None) -> Iterator[list[bytes]]:
    """Lines ``first`` … ``first + count - 1`` (0-based; all to the end when ``count`` is None), without newlines,
    validated, one chunk of at most ``chunk_lines`` at a time. Fewer lines than asked for is an error."""
    size = chunk_lines or CHUNK_LINES
    read = 0
    with open(path, "rb") as f:
        seek_line(f, first, path)
        lines = f if count is None else itertools.islice(f, count)
        while chunk := [line.rstrip(b"\r\n") for line in itertools.islice(lines, size)]:
            number = first + read + 1
            if not all(chunk):
                empty = number + chunk.index(b"")
                raise CorpusError(f"{path}:{empty}: empty line (every line must hold one JSON document)")
            _check_chunk(path, number, chunk)
            read += len(chunk)
            yield chunk
    if count is not None and read < count:
        raise CorpusError(
            f"{path}: asked for {count} documents but the file holds only {read}" + (f" from line {first + 1} on" if first else "")
        )


def read_documents(path: str, limit: int | None = None) -> list[bytes]:
    """The first ``limit`` documents of ``path`` (all if None), each validated once, without the newline."""
    return [line for chunk in chunks(path, 0, limit) for line in chunk]
