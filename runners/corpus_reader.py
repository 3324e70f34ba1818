"""Read documents of a Rally corpus file (one JSON document per line) as raw bytes.

Every line is validated once, as a JSON object in UTF-8, without building it: lines are checked in chunks, one
msgspec decode of ``[line,line,…]`` into empty structs per chunk (msgspec skips an object's members while checking
their syntax) plus one UTF-8 check of the chunk. Only a chunk that fails is read again line by line, to name the
file, the line and what is wrong with it."""
from __future__ import annotations

import itertools

import msgspec
import orjson

CHUNK_LINES = 4096


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


def read_documents(path: str, limit: int | None = None) -> list[bytes]:
    """The first ``limit`` documents of ``path`` (all if None), each validated once, without the newline."""
    docs: list[bytes] = []
    with open(path, "rb") as f:
        lines = f if limit is None else itertools.islice(f, limit)
        while chunk := [line.rstrip(b"\r\n") for line in itertools.islice(lines, CHUNK_LINES)]:
            first = len(docs) + 1
            if not all(chunk):
                empty = first + chunk.index(b"")
                raise CorpusError(f"{path}:{empty}: empty line (every line must hold one JSON document)")
            _check_chunk(path, first, chunk)
            docs.extend(chunk)
    if limit is not None and len(docs) < limit:
        raise CorpusError(f"{path}: asked for {limit} documents but the file holds only {len(docs)}")
    return docs


def read_action_pairs(path: str, limit: int | None = None) -> tuple[list[bytes], list[bytes]]:
    """(action lines, documents) of a corpus with ``includes-action-and-meta-data``: two lines per document."""
    lines = read_documents(path, None if limit is None else 2 * limit)
    if len(lines) % 2:
        raise CorpusError(f"{path}:{len(lines)}: an action line without its document (the file has an odd number of lines)")
    return lines[0::2], lines[1::2]
