import pytest

from ingestlab.runners.bulk_bodies import Batch, batches, bulk_body, failed_items


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


def test_a_clean_bulk_response_is_counted_on_its_bytes_and_sampled_at_both_ends():
    import orjson

    from ingestlab.runners.bulk_bodies import clean_bulk

    items = [{"index": {"_index": "p", "_id": f'id-{i}"q\\\\', "_version": 1, "result": "created", "status": 201}} for i in range(3)]
    raw = orjson.dumps({"took": 5, "errors": False, "items": items})
    assert clean_bulk(raw, 3) == ['id-0"q\\\\', 'id-2"q\\\\']
    assert clean_bulk(raw, 4) is None  # an item missing: read it in full
    assert clean_bulk(orjson.dumps({"took": 5, "errors": True, "items": items}), 3) is None
    lean = orjson.dumps({"errors": False, "items": [{"index": {"status": 201}}] * 5})  # filter_path without ids
    assert clean_bulk(lean, 5) == []


def test_raw_bulk_responses_account_for_every_document_and_errors_are_still_read_in_full():
    import asyncio

    import orjson

    from ingestlab.runners.indexing import Backoff, IndexingFailed, WriteStats, index_in_bulks

    class RawEs:
        def __init__(self, bodies):
            self.bodies = list(bodies)

        async def perform_request(self, *args, **kwargs):
            import io

            return io.BytesIO(self.bodies.pop(0))

    ok = orjson.dumps({"took": 1, "errors": False, "items": [{"index": {"_id": str(i), "status": 201}} for i in range(4)]})
    stats = WriteStats()
    asyncio.run(index_in_bulks(RawEs([ok]), "p", [Batch.of([b"{}"] * 4)], None, Backoff(0, 0, 1), stats))
    assert stats.acknowledged == 4 and stats.id_sample == ["0", "3"]
    bad = orjson.dumps({"took": 1, "errors": True, "items": [{"index": {"_id": "0", "status": 201}},
                                                            {"index": {"_id": "1", "status": 400, "error": {"type": "mapper_parsing_exception", "reason": "x"}}}]})
    stats = WriteStats()
    with pytest.raises(IndexingFailed, match="1 of 2 documents refused"):
        asyncio.run(index_in_bulks(RawEs([bad]), "p", [Batch.of([b"{}"] * 2)], None, Backoff(0, 0, 1), stats))
    assert stats.acknowledged == 1
