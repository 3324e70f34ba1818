import orjson
import pytest

from ingestlab.runners.writing.bulk_bodies import Batch, batches, bulk_body, failed_items


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

    from ingestlab.runners.writing.bulk_bodies import clean_bulk

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

    from ingestlab.runners.writing.indexing import Backoff, IndexingFailed, WriteStats, index_in_bulks

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
    bad = orjson.dumps(
        {
            "took": 1,
            "errors": True,
            "items": [
                {"index": {"_id": "0", "status": 201}},
                {"index": {"_id": "1", "status": 400, "error": {"type": "mapper_parsing_exception", "reason": "x"}}},
            ],
        }
    )
    stats = WriteStats()
    with pytest.raises(IndexingFailed, match="1 of 2 documents refused"):
        asyncio.run(index_in_bulks(RawEs([bad]), "p", [Batch.of([b"{}"] * 2)], None, Backoff(0, 0, 1), stats))
    assert stats.acknowledged == 1


class _TerseEs:
    """Answers each bulk in turn with the next scripted body (raw bytes), recording the filter_path and the ids sent."""

    def __init__(self, answers):
        self.answers, self.asked = list(answers), []

    async def perform_request(self, method, path, params=None, headers=None, body=None):
        import io

        ids = [line.split(b'"_id":"')[1].split(b'"')[0].decode() for line in body.split(b"\n") if line.startswith(b'{"index"')]
        self.asked.append(((params or {}).get("filter_path"), ids))
        return io.BytesIO(self.answers.pop(0))


def _copy_batch(n):
    return Batch.with_actions([b'{"index":{"_id":"%d"}}' % i for i in range(n)], [b"{}"] * n)


def test_a_lean_bulk_asks_only_for_errors_and_an_answer_without_errors_acknowledges_the_batch():
    """The minimal client's copy asks for `filter_path=errors`; the pack asked for a status per item, which the node
    writes for every document (the raw reindex at 0.94x of the minimal client, node CPU 172 against 167 µs/doc)."""
    import asyncio

    from ingestlab.runners.writing.indexing import Backoff, WriteStats, index_in_bulks

    es, stats = _TerseEs([b'{"errors":false}']), WriteStats()
    asyncio.run(index_in_bulks(es, "dst", [_copy_batch(3)], None, Backoff(0, 0, 2), stats, lean=True))
    assert es.asked == [("errors", ["0", "1", "2"])] and stats.acknowledged == 3 and stats.requests == 1


def test_a_lean_bulk_with_errors_is_sent_again_asking_which_items_failed_and_retries_only_those():
    import asyncio

    from ingestlab.runners.writing.indexing import Backoff, WriteStats, index_in_bulks

    statuses = orjson.dumps(
        {
            "errors": True,
            "items": [
                {"index": {"status": 201}},
                {"index": {"status": 429, "error": {"type": "es_rejected_execution_exception"}}},
                {"index": {"status": 200}},
            ],
        }
    )
    es, stats = _TerseEs([b'{"errors":true}', statuses, b'{"errors":false,"items":[{"index":{"status":201}}]}']), WriteStats()
    asyncio.run(index_in_bulks(es, "dst", [_copy_batch(3)], None, Backoff(0, 0, 4), stats, lean=True))
    filters = "errors,items.*.status,items.*.error"
    assert es.asked == [("errors", ["0", "1", "2"]), (filters, ["0", "1", "2"]), (filters, ["1"])]
    assert stats.acknowledged == 3 and stats.retries == 2 and stats.requests == 3


def test_a_lean_bulk_whose_items_are_refused_names_the_first_one():
    import asyncio

    from ingestlab.runners.writing.indexing import Backoff, IndexingFailed, WriteStats, index_in_bulks

    refused = orjson.dumps(
        {
            "errors": True,
            "items": [
                {"index": {"status": 201}},
                {"index": {"status": 400, "error": {"type": "mapper_parsing_exception", "reason": "bad"}}},
            ],
        }
    )
    es, stats = _TerseEs([b'{"errors":true}', refused]), WriteStats()
    with pytest.raises(IndexingFailed, match=r"1 of 2 documents refused by \[dst\]; first: item 1, HTTP 400"):
        asyncio.run(index_in_bulks(es, "dst", [_copy_batch(2)], None, Backoff(0, 0, 4), stats, lean=True))
    assert stats.acknowledged == 1
