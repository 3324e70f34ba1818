"""Scroll pages into bulk items: either by decoding the hits (JSON in, JSON out) or *raw*, moving each
hit's ``_source`` bytes into the bulk body untouched.

Raw mode reads pages fetched with ``filter_path=_scroll_id,hits.hits._id,hits.hits._routing,hits.hits._source``. The page is
parsed by msgspec (C) into raw byte spans: each hit's ``_id`` and ``_source`` come back as ``msgspec.Raw``,
the exact bytes Elasticsearch wrote, never decoded into objects. The page's structs and the spans are not tracked by
Python's cycle collector (``gc=False``; none can hold a cycle): a page makes no thousand objects for it to walk, which
in a process holding many (Rally's load driver) cost more than the parse itself. A parser that knows strings, escapes and
nesting finds where a document ends, so every valid JSON document is moved byte for byte — including ones
with nested ``_id`` keys or ``},{"_id":`` inside their strings, which a split on bytes would cut apart.
"""
from __future__ import annotations

import json

import msgspec

SCROLL_FILTER = "_scroll_id,hits.hits._id,hits.hits._routing,hits.hits._source"
_ACTION_START, _ROUTING, _ACTION_END = b'{"index":{"_id":', b',"routing":', b"}}"


class MalformedPage(ValueError):
    pass


class _Hit(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: msgspec.Raw = msgspec.field(name="_id")
    source: msgspec.Raw = msgspec.field(name="_source")
    routing: msgspec.Raw = msgspec.field(name="_routing", default=msgspec.Raw())  # empty: none; a routed document keeps it


class _Hits(msgspec.Struct, gc=False):
    hits: list[_Hit] = []


class _Page(msgspec.Struct, gc=False):
    scroll_id: str | None = msgspec.field(name="_scroll_id", default=None)
    hits: _Hits | None = None


_DECODER = msgspec.json.Decoder(_Page)


def raw_page(body: bytes) -> tuple[str | None, list[bytes], list]:
    """(scroll id, action lines, sources) of one filtered scroll page, without decoding any document. The sources
    are spans of the response's own bytes (``msgspec.Raw``: bytes-like, joined and measured as bytes are, nothing
    copied; unlike memoryviews, not tracked by the cycle collector)."""
    try:
        page = _DECODER.decode(body)
    except (msgspec.ValidationError, msgspec.DecodeError) as e:
        raise MalformedPage(f"unexpected scroll page ({e}): {bytes(body[:80])!r}") from None
    hits = page.hits.hits if page.hits else []
    actions = [_ACTION_START + h.id + (_ROUTING + h.routing if len(h.routing) else b"") + _ACTION_END for h in hits]
    return page.scroll_id, actions, [h.source for h in hits]


def _action(hit: dict) -> dict:
    meta = {"_id": hit["_id"]}
    if "_routing" in hit:
        meta["routing"] = hit["_routing"]
    return {"index": meta}


def decoded_page(response: dict) -> tuple[str | None, list[bytes], list[bytes]]:
    """The same from a decoded response: every document is encoded again, as a plain tool does."""
    try:
        hits = response.get("hits", {}).get("hits", [])
        dumps = json.dumps
        actions = [dumps(_action(h), separators=(",", ":")).encode() for h in hits]
        sources = [dumps(h["_source"], ensure_ascii=False, separators=(",", ":")).encode() for h in hits]
    except (AttributeError, KeyError, TypeError) as e:
        raise MalformedPage(f"unexpected scroll page ({type(e).__name__}: {e}): {str(response)[:80]}") from None
    return response.get("_scroll_id"), actions, sources
