"""Raw scroll pages to bulk items: the bytes of every _source must arrive untouched."""
import json

import orjson
import pytest

from ingestlab.runners.scroll_hits import MalformedPage, decoded_page, raw_page

DOCS = [
    {"title": "東京\u3000都", "text": "a},{b \"quoted\" {\"_id\":1}", "link": ["x", "y"]},
    {"title": "二", "nested": {"deep": [1, 2.5, None, True]}},
    {"title": "three\\backslash", "emoji": "🙂"},
]


def page(docs, ids, scroll_id="c2Nyb2xs=="):
    hits = [{"_id": i, "_source": d} for i, d in zip(ids, docs)]
    return json.dumps({"_scroll_id": scroll_id, "hits": {"hits": hits}}, ensure_ascii=False, separators=(",", ":")).encode()


def test_raw_page_moves_source_bytes_untouched():
    body = page(DOCS, ["1", "22", "333"])
    scroll_id, actions, sources = raw_page(body)
    assert scroll_id == "c2Nyb2xs=="
    assert actions == [b'{"index":{"_id":"1"}}', b'{"index":{"_id":"22"}}', b'{"index":{"_id":"333"}}']
    assert [orjson.loads(s) for s in sources] == DOCS
    assert all(s in body for s in sources)  # slices of the response, not re-encodings


def test_raw_and_decoded_pages_give_the_same_documents():
    body = page(DOCS, ["1", "2", "3"])
    _, raw_actions, raw_sources = raw_page(body)
    _, dec_actions, dec_sources = decoded_page(json.loads(body))
    assert raw_actions == dec_actions
    assert [orjson.loads(s) for s in raw_sources] == [orjson.loads(s) for s in dec_sources]


def test_empty_pages():
    assert raw_page(b'{"_scroll_id":"abc"}') == ("abc", [], [])
    assert raw_page(b'{"_scroll_id":"abc","hits":{"hits":[]}}') == ("abc", [], [])


def test_unexpected_layout_is_an_error():
    with pytest.raises(MalformedPage):
        raw_page(b'{"_scroll_id":"abc","hits":{"hits":[{"_index":"x","_id":"1","_source":{}}]}}')
