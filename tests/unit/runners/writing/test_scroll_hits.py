"""Raw scroll pages to bulk items: the bytes of every _source must arrive untouched."""

import gc
import json

import orjson
import pytest

from ingestlab.runners.writing.scroll_hits import MalformedPage, decoded_page, raw_page

DOCS = [
    {"title": "東京\u3000都", "text": 'a},{b "quoted" {"_id":1}', "link": ["x", "y"]},
    {"title": "二", "nested": {"deep": [1, 2.5, None, True]}},
    {"title": "three\\backslash", "emoji": "🙂"},
]


def page(docs, ids, scroll_id="c2Nyb2xs=="):
    hits = [{"_id": i, "_source": d} for i, d in zip(ids, docs)]
    return json.dumps({"_scroll_id": scroll_id, "hits": {"hits": hits}}, ensure_ascii=False, separators=(",", ":")).encode()


def test_raw_page_moves_source_bytes_untouched():
    body = page(DOCS, ["1", "22", "333"])
    scroll_id, actions, sources, *_ = raw_page(body)
    assert scroll_id == "c2Nyb2xs=="
    assert actions == [b'{"index":{"_id":"1"}}', b'{"index":{"_id":"22"}}', b'{"index":{"_id":"333"}}']
    assert [orjson.loads(bytes(s)) for s in sources] == DOCS
    assert all(s in body for s in sources)  # slices of the response, not re-encodings


def test_raw_and_decoded_pages_give_the_same_documents():
    body = page(DOCS, ["1", "2", "3"])
    _, raw_actions, raw_sources, *_ = raw_page(body)
    _, dec_actions, dec_sources, *_ = decoded_page(json.loads(body))
    assert raw_actions == dec_actions
    assert [orjson.loads(bytes(s)) for s in raw_sources] == [orjson.loads(s) for s in dec_sources]


def test_a_page_leaves_nothing_for_the_cycle_collector_to_walk():
    # a memoryview per source (the earlier form) is tracked: in Rally's load driver, with many objects alive, the
    # collections a thousand of them per page set off cost more than the parse
    before = len(gc.get_objects())
    _, actions, sources, *_ = raw_page(page(DOCS * 300, [str(i) for i in range(900)]))
    assert len(sources) == 900 and not any(gc.is_tracked(s) for s in sources)
    assert b"".join(sources) == b"".join(json.dumps(d, ensure_ascii=False, separators=(",", ":")).encode() for d in DOCS * 300)
    assert len(gc.get_objects()) - before < 10  # the page's lists, not one object per hit


def test_empty_pages():
    assert raw_page(b'{"_scroll_id":"abc"}') == ("abc", [], [], None, 0, None)
    assert raw_page(b'{"_scroll_id":"abc","hits":{"hits":[]}}') == ("abc", [], [], None, 0, None)


@pytest.mark.parametrize("total", ['{"value":7,"relation":"eq"}', "7"])  # 7.0 and later; 6.x
def test_a_page_says_its_scrolls_total_and_its_failed_shards_either_way(total):
    body = (
        '{"_scroll_id":"abc","_shards":{"failed":1,"failures":[{"reason":{"type":"search_context_missing_exception",'
        '"reason":"No search context found for id [3]"}}]},"hits":{"total":' + total + ',"hits":[]}}'
    ).encode()
    for got in (raw_page(body), decoded_page(json.loads(body))):
        assert got.total == 7 and got.failed_shards == 1
        assert got.failure == "search_context_missing_exception: No search context found for id [3]"


def test_unexpected_layout_is_an_error():
    with pytest.raises(MalformedPage):
        raw_page(b'{"_scroll_id":"abc","hits":{"hits":[{"_index":"x","_id":"1","_source":{}}]}}')


ADVERSARIAL = [
    {"nested": {"_id": 7, "_source": {"_id": "x"}}, "list": [{"_id": "a"}, {"_id": "b"}]},  # nested _id keys
    {"text": '},{"_id":"evil","_source":{"x":1}}', "k": '},{"_id":'},  # the old split sequence inside strings
    {"esc": '\\"},{\\"_id\\":\\\\', "quote": '"', "slash": "\\/", "unicode": "\u0000\u001f\u2028"},  # escapes
    {"deep": [[[[[[[[[[{"_id": [[[[{"_id": {}}]]]]}]]]]]]]]]]},  # deep nesting
    {"title": "日本語\u3000テキスト", "emoji": "🙂🙃", "accents": "é à ü ß"},  # non-ASCII
    {},
]


@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_every_valid_document_moves_byte_for_byte(ensure_ascii):
    ids = ["1", "2", 'it\'s "3"', "4", "五", "6"]
    hits = [{"_id": i, "_source": d} for i, d in zip(ids, ADVERSARIAL)]
    body = json.dumps({"_scroll_id": "s", "hits": {"hits": hits}}, ensure_ascii=ensure_ascii, separators=(",", ":")).encode()
    scroll_id, actions, sources, *_ = raw_page(body)
    assert scroll_id == "s" and len(sources) == len(ADVERSARIAL)
    assert [orjson.loads(bytes(s)) for s in sources] == ADVERSARIAL
    assert [orjson.loads(a)["index"]["_id"] for a in actions] == ids
    for s, d in zip(sources, ADVERSARIAL):  # the exact bytes Elasticsearch wrote for each _source
        assert bytes(s) == json.dumps(d, ensure_ascii=ensure_ascii, separators=(",", ":")).encode()


def test_a_truncated_page_is_an_error_not_a_short_copy():
    body = page(DOCS, ["1", "2", "3"])
    with pytest.raises(MalformedPage):
        raw_page(body[: len(body) // 2])
