"""Read documents of a Rally corpus file (one JSON document per line) as raw bytes."""
from __future__ import annotations

import orjson


class CorpusError(ValueError):
    """A corpus line that is not a JSON object; the message names file and line."""


def read_documents(path: str, limit: int | None = None) -> list[bytes]:
    """The first ``limit`` documents of ``path`` (all if None), each validated once, without the newline."""
    docs: list[bytes] = []
    with open(path, "rb") as f:
        for line_number, line in enumerate(f, start=1):
            if limit is not None and len(docs) >= limit:
                break
            line = line.rstrip(b"\r\n")
            if not line:
                raise CorpusError(f"{path}:{line_number}: empty line (every line must hold one JSON document)")
            try:
                parsed = orjson.loads(line)
            except orjson.JSONDecodeError as e:
                raise CorpusError(f"{path}:{line_number}: not valid JSON ({e})") from None
            if not isinstance(parsed, dict):
                raise CorpusError(f"{path}:{line_number}: expected a JSON object, got {type(parsed).__name__}")
            docs.append(line)
    if limit is not None and len(docs) < limit:
        raise CorpusError(f"{path}: asked for {limit} documents but the file holds only {len(docs)}")
    return docs


def read_action_pairs(path: str, limit: int | None = None) -> tuple[list[bytes], list[bytes]]:
    """(action lines, documents) of a corpus with ``includes-action-and-meta-data``: two lines per document."""
    lines = read_documents(path, None if limit is None else 2 * limit)
    if len(lines) % 2:
        raise CorpusError(f"{path}:{len(lines)}: an action line without its document (the file has an odd number of lines)")
    return lines[0::2], lines[1::2]
