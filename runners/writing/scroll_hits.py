"""Scroll pages into bulk items: either by decoding the hits (JSON in, JSON out) or *raw*, moving each hit's ``_source``
bytes into the bulk body untouched. Raw mode parses a page (fetched with ``filter_path`` = :data:`SCROLL_FILTER`) with
msgspec into ``msgspec.Raw`` spans, the exact bytes Elasticsearch wrote, in structs the cycle collector does not track
(``gc=False``: none can hold a cycle).
"""

from __future__ import annotations

import json
from typing import NamedTuple

import msgspec

# the page's documents, and what tells a short page from the end of the slice: the hits it holds in all (``hits.total``)
# and the shards that failed to answer it (``_shards.failed``, ``_shards.failures``)
SCROLL_FILTER = "_scroll_id,_shards.failed,_shards.failures.reason,hits.total,hits.hits._id,hits.hits._routing,hits.hits._source"
_ACTION_START, _ROUTING, _ACTION_END = b'{"index":{"_id":', b',"routing":', b"}}"


class MalformedPage(ValueError):
    pass


class _Hit(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: msgspec.Raw = msgspec.field(name="_id")
    source: msgspec.Raw = msgspec.field(name="_source")
    routing: msgspec.Raw = msgspec.field(name="_routing", default=msgspec.Raw())  # empty: none; a routed document keeps it


class _Total(msgspec.Struct, gc=False):
    value: int


class _Hits(msgspec.Struct, gc=False):
    hits: list[_Hit] = []
    total: int | _Total | None = None  # an object since 7.0, a number before


class _Shards(msgspec.Struct, gc=False):
    failed: int = 0
    failures: list[dict] = []


class _Page(msgspec.Struct, gc=False):
    scroll_id: str | None = msgspec.field(name="_scroll_id", default=None)
    shards: _Shards | None = msgspec.field(name="_shards", default=None)
    hits: _Hits | None = None


_DECODER = msgspec.json.Decoder(_Page)


class Page(NamedTuple):
    """One scroll page: its id for the next, the bulk action lines and sources of its documents, the hits its scroll
    holds in all (None where the page did not say), and the shards that failed to answer it (with the first reason)."""

    scroll_id: str | None
    actions: list
    sources: list
    total: int | None = None
    failed_shards: int = 0
    failure: str | None = None


def _total(total) -> int | None:
    if isinstance(total, dict):
        total = total.get("value")
    if isinstance(total, _Total):
        total = total.value
    return total if isinstance(total, int) else None


def _failure(failures: list) -> str | None:
    """The first shard failure's reason in a line (``type: reason``)."""
    for f in failures or []:
        reason = f.get("reason") if isinstance(f, dict) else None
        if isinstance(reason, dict):
            return f"{reason.get('type', 'shard failure')}: {reason.get('reason', '')}".rstrip(": ")
        if reason:
            return str(reason)
    return None


def raw_page(body: bytes) -> Page:
    """One filtered scroll page, without decoding any document: the sources are spans of the response's own bytes."""
    try:
        page = _DECODER.decode(body)
    except (msgspec.ValidationError, msgspec.DecodeError) as e:
        raise MalformedPage(f"unexpected scroll page ({e}): {bytes(body[:80])!r}") from None
    hits = page.hits.hits if page.hits else []
    actions = [_ACTION_START + h.id + (_ROUTING + h.routing if len(h.routing) else b"") + _ACTION_END for h in hits]
    shards = page.shards or _Shards()
    return Page(
        page.scroll_id,
        actions,
        [h.source for h in hits],
        _total(page.hits.total) if page.hits else None,
        shards.failed,
        _failure(shards.failures),
    )


def _action(hit: dict) -> dict:
    meta = {"_id": hit["_id"]}
    if "_routing" in hit:
        meta["routing"] = hit["_routing"]
    return {"index": meta}


def decoded_page(response: dict) -> Page:
    """The same from a decoded response: every document is encoded again, as a plain tool does."""
    try:
        hits = response.get("hits", {}).get("hits", [])
        dumps = json.dumps
        actions = [dumps(_action(h), separators=(",", ":")).encode() for h in hits]
        sources = [dumps(h["_source"], ensure_ascii=False, separators=(",", ":")).encode() for h in hits]
        shards = response.get("_shards") or {}
        total = _total(response.get("hits", {}).get("total"))
    except (AttributeError, KeyError, TypeError) as e:
        raise MalformedPage(f"unexpected scroll page ({type(e).__name__}: {e}): {str(response)[:80]}") from None
    return Page(response.get("_scroll_id"), actions, sources, total, int(shards.get("failed") or 0), _failure(shards.get("failures")))
