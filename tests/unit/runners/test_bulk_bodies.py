import pytest

from ingestlab.runners.bulk_bodies import batches, bulk_body, failed_items


def test_body_is_action_and_source_per_document():
    assert bulk_body([b'{"a":1}', b'{"a":2}']) == b'{"index":{}}\n{"a":1}\n{"index":{}}\n{"a":2}\n'


def test_batches_cover_every_document_once():
    docs = [b'{"n":%d}' % i for i in range(25)]
    result = batches(docs, 10)
    assert [b.size for b in result] == [10, 10, 5]
    assert [d for b in result for d in b.documents] == docs
    assert result[2].body == bulk_body(docs[20:])


def test_bulk_size_must_be_positive():
    with pytest.raises(ValueError):
        batches([b"{}"], 0)


def test_failed_items_split_rejections_from_errors():
    response = {
        "errors": True,
        "items": [
            {"index": {"status": 201}},
            {"index": {"status": 429, "error": {"type": "es_rejected_execution_exception", "reason": "queue full"}}},
            {"index": {"status": 400, "error": {"type": "mapper_parsing_exception", "reason": "bad date"}}},
        ],
    }
    failures = failed_items(response)
    assert failures.rejected == [1]
    assert failures.errors == [(2, 400, "mapper_parsing_exception: bad date")]
