"""Scroll pages into bulk items: either by decoding the hits (JSON in, JSON out) or *raw*, moving each
hit's ``_source`` bytes into the bulk body untouched.

Raw mode reads pages fetched with ``filter_path=_scroll_id,hits.hits._id,hits.hits._source``, which
Elasticsearch writes as ``{"_scroll_id":"…","hits":{"hits":[{"_id":"1","_source":{…}},…]}}``. Hits are
split on the bytes ``},{"_id":`` between them. Inside a JSON string a quote is always escaped, so that
sequence can only be structure: the boundary of two hits, or a nested object with an ``_id`` key inside
a document. Such documents would be cut apart and refused by the bulk API, and the runner's final count
check would fail; documents without nested ``_id`` keys (all of this pack's) are moved byte for byte.
"""
from __future__ import annotations

import json

SCROLL_FILTER = "_scroll_id,hits.hits._id,hits.hits._source"
_HIT_BOUNDARY = b'},{"_id":'
_SOURCE = b',"_source":'


class MalformedPage(ValueError):
    pass


def raw_page(body: bytes) -> tuple[str | None, list[bytes], list[bytes]]:
    """(scroll id, action lines, sources) of one filtered scroll page, without decoding any document."""
    scroll_id = None
    if body.startswith(b'{"_scroll_id":"'):
        end = body.index(b'"', 15)
        scroll_id = body[15:end].decode()
    start = body.find(b'"hits":[')
    if start < 0:
        return scroll_id, [], []  # an empty page: filter_path drops the empty array
    start += len(b'"hits":[')
    end = body.rindex(b"]")
    hits = body[start:end]
    if not hits:
        return scroll_id, [], []
    if not (hits.startswith(b'{"_id":') and hits.endswith(b"}")):
        raise MalformedPage(f"unexpected hit layout: {hits[:80]!r}")
    actions, sources = [], []
    for piece in hits[len(b'{"_id":') : -1].split(_HIT_BOUNDARY):
        id_json, sep, source = piece.partition(_SOURCE)
        if not sep:
            raise MalformedPage(f"a hit without _source: {piece[:80]!r}")
        actions.append(b'{"index":{"_id":' + id_json + b"}}")
        sources.append(source)
    return scroll_id, actions, sources


def decoded_page(response: dict) -> tuple[str | None, list[bytes], list[bytes]]:
    """The same from a decoded response: every document is encoded again, as a plain tool does."""
    hits = response.get("hits", {}).get("hits", [])
    dumps = json.dumps
    actions = [dumps({"index": {"_id": h["_id"]}}, separators=(",", ":")).encode() for h in hits]
    sources = [dumps(h["_source"], ensure_ascii=False, separators=(",", ":")).encode() for h in hits]
    return response.get("_scroll_id"), actions, sources
