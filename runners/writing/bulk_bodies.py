"""Bulk request bodies built once, before timing starts, and the bookkeeping of their items."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

INDEX_ACTION = b'{"index":{}}\n'
NEWLINE = b"\n"


@dataclass(frozen=True)
class Batch:
    """One bulk request: its body and the documents it carries (kept to re-send rejected items); ``actions``, when
    given, holds each document's own action line, else every document gets the plain ``{"index":{}}``."""

    body: bytes
    documents: tuple[bytes, ...]
    actions: tuple[bytes, ...] | None = None

    @property
    def size(self) -> int:
        return len(self.documents)

    @classmethod
    def of(cls, documents) -> "Batch":
        documents = tuple(documents)
        return cls(bulk_body(documents), documents)

    @classmethod
    def with_actions(cls, actions, documents) -> "Batch":
        actions, documents = tuple(actions), tuple(documents)
        parts = [NEWLINE] * (4 * len(documents))  # one join: each document's bytes are copied once, into the body
        parts[0::4], parts[2::4] = actions, documents
        return cls(b"".join(parts), documents, actions)

    def subset(self, positions) -> "Batch":
        """The batch of only the items at ``positions`` (to re-send rejected ones)."""
        documents = [self.documents[i] for i in positions]
        if self.actions is None:
            return Batch.of(documents)
        return Batch.with_actions([self.actions[i] for i in positions], documents)


def bulk_body(documents) -> bytes:
    """``{"index":{}}`` and each document on its own line, in one join (each document copied once)."""
    documents = documents if isinstance(documents, (list, tuple)) else list(documents)
    parts = [NEWLINE] * (3 * len(documents))
    parts[0::3], parts[1::3] = [INDEX_ACTION] * len(documents), documents
    return b"".join(parts)


def batches(documents: list[bytes], bulk_size: int, actions: list[bytes] | None = None) -> list[Batch]:
    """Bulks of ``bulk_size`` documents; with ``actions``, each document keeps its own action line."""
    if bulk_size < 1:
        raise ValueError(f"bulk-size must be at least 1, got {bulk_size}")
    spans = range(0, len(documents), bulk_size)
    if actions is None:
        return [Batch.of(documents[i : i + bulk_size]) for i in spans]
    return [Batch.with_actions(actions[i : i + bulk_size], documents[i : i + bulk_size]) for i in spans]


@dataclass
class ItemFailures:
    """What a bulk response says went wrong, split into retryable rejections and real errors."""

    rejected: list[int]
    errors: list[tuple[int, int, str]]  # (position, status, reason)


def failed_items(response: dict) -> ItemFailures:
    rejected, errors = [], []
    for position, item in enumerate(response.get("items", [])):
        result = next(iter(item.values()))
        status = result.get("status", 0)
        if status == 429:
            rejected.append(position)
        elif status >= 300:
            error = result.get("error", {})
            reason = f"{error.get('type', 'error')}: {error.get('reason', '')}" if isinstance(error, dict) else str(error)
            errors.append((position, status, reason))
    return ItemFailures(rejected, errors)


def acknowledged_ids(response: dict) -> list:
    """The ids of the documents a bulk response confirms, in order (None where ``filter_path`` left ``_id`` out)."""
    ids = []
    for item in response.get("items", []):
        result = next(iter(item.values()))
        if result.get("status", 0) < 300:
            ids.append(result.get("_id"))
    return ids


def _string_at(raw: bytes, start: int):
    """The JSON string value starting at ``raw[start]`` (a quote), decoded; escaped quotes inside are skipped."""
    end = start
    while True:
        end = raw.index(b'"', end + 1)
        backslashes = len(raw[start + 1 : end]) - len(raw[start + 1 : end].rstrip(b"\\"))
        if not backslashes % 2:
            return orjson.loads(raw[start : end + 1])


def clean_bulk(raw: bytes, documents: int) -> list | None:
    """For a raw bulk response that reports no error and holds an item for each of ``documents`` (counted on the bytes,
    not decoded): the first and the last item's ids to sample (none where ``filter_path`` left ids out). None when the
    response must be read in full (errors, another layout, a count that does not match)."""
    head = raw[:128]
    if b'"errors":false' not in head or b'"items":[' not in head or raw.count(b'"status":') != documents:
        return None
    sample = []
    for position in dict.fromkeys((raw.find(b'"_id":'), raw.rfind(b'"_id":'))):
        if position >= 0 and raw[position + 6 : position + 7] == b'"':
            sample.append(_string_at(raw, position + 6))
    return sample
