"""The runners' request helper asks for uncompressed responses unless told otherwise: Rally's client (aiohttp) would
otherwise accept gzip and the node would compress every response."""

import asyncio
import socket
import threading

from ingestlab.runners.compat import request
from ingestlab.runners.writing.bulk_bodies import Batch
from ingestlab.runners.writing.indexing import Backoff, WriteStats, index_in_bulks

IDENTITY = "identity"


class Recorder:
    """Keeps the headers of every request (an elasticsearch-py client's ``perform_request``)."""

    def __init__(self):
        self.headers = []

    async def perform_request(self, method, path, params=None, headers=None, body=None):
        self.headers.append(headers)
        if path.endswith("/_bulk"):
            return {"errors": False, "items": [{"index": {"status": 201}}]}
        return {}


def test_no_headers_and_headers_without_an_encoding_ask_for_identity():
    es = Recorder()
    given = {"content-type": "application/json"}
    asyncio.run(request(es, "GET", "/_cluster/health"))
    asyncio.run(request(es, "POST", "/i/_doc", headers=given, body=b"{}"))
    assert es.headers == [{"accept-encoding": IDENTITY}, {"content-type": "application/json", "accept-encoding": IDENTITY}]
    assert given == {"content-type": "application/json"}  # the caller's dict is left as it was


def test_an_encoding_the_caller_names_is_kept_whatever_its_case():
    es = Recorder()
    asyncio.run(request(es, "POST", "/_search", headers={"Accept-Encoding": "gzip"}))
    asyncio.run(request(es, "POST", "/_search", headers={"accept-encoding": "gzip"}))
    assert es.headers == [{"Accept-Encoding": "gzip"}, {"accept-encoding": "gzip"}]


def test_bulks_ask_for_compressed_responses_only_when_their_bodies_are_compressed():
    es = Recorder()
    batch = Batch.with_actions([b'{"index":{}}'], [b'{"a":1}'])
    asyncio.run(index_in_bulks(es, "i", [batch], None, Backoff(), WriteStats()))
    asyncio.run(index_in_bulks(es, "i", [batch], None, Backoff(), WriteStats(), gzip_level=1))
    assert [h["accept-encoding"] for h in es.headers] == [IDENTITY, "gzip"]
    assert es.headers[1]["content-encoding"] == "gzip"


def _capture_one_request(server: socket.socket, seen: list) -> None:
    conn, _ = server.accept()
    with conn:
        data = b""
        while b"\r\n\r\n" not in data:
            data += conn.recv(65536)
        seen.append(data.split(b"\r\n\r\n")[0].decode("latin-1"))
        conn.sendall(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nX-elastic-product: Elasticsearch\r\n\r\n{}"
        )


def test_rallys_own_client_sends_identity_on_the_wire_instead_of_aiohttps_gzip():
    from esrally.client.factory import EsClientFactory

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    seen: list = []
    thread = threading.Thread(target=_capture_one_request, args=(server, seen), daemon=True)
    thread.start()

    async def one():
        es = EsClientFactory(
            [{"host": "127.0.0.1", "port": server.getsockname()[1]}], {"timeout": 10}, distribution_version="7.17.29"
        ).create_async(client_id=0)
        try:
            with es.new_request_context():
                await request(es, "POST", "/i/_bulk", headers={"content-type": "application/x-ndjson"}, body=b"{}\n")
        finally:
            await es.close()

    try:
        asyncio.run(one())
    finally:
        thread.join(10)
        server.close()
    head = seen[0].lower().split("\r\n")
    assert "accept-encoding: identity" in head and not any(h.startswith("accept-encoding: gzip") for h in head)


def _rally_client(port: int = 9):
    from esrally.client.factory import EsClientFactory

    return EsClientFactory([{"host": "127.0.0.1", "port": port}], {"timeout": 10}, distribution_version="7.17.29").create_async(client_id=0)


def test_a_built_bulk_body_reaches_the_wire_as_the_same_object_and_other_bodies_as_before():
    from ingestlab.runners.compat import pass_built_bodies

    es = _rally_client()
    serializers = es.transport.serializers
    body = Batch.with_actions([b'{"index":{}}'] * 2, [b'{"a":1}', b'{"b":2}']).body
    before = {
        m: serializers.dumps(x, m)
        for m in ("application/x-ndjson", "application/vnd.elasticsearch+x-ndjson")
        for x in (body, body[:-1], body.decode(), [{"index": {}}, {"a": 1}])
    }
    assert serializers.dumps(body, "application/x-ndjson") is not body  # the client's own serializer copies it
    pass_built_bodies(es)
    pass_built_bodies(es)  # once is enough; twice wraps nothing twice
    for mimetype in ("application/x-ndjson", "application/vnd.elasticsearch+x-ndjson; compatible-with=8"):
        assert serializers.dumps(body, mimetype) is body
    assert {
        m: serializers.dumps(x, m)
        for m in ("application/x-ndjson", "application/vnd.elasticsearch+x-ndjson")
        for x in (body, body[:-1], body.decode(), [{"index": {}}, {"a": 1}])
    } == before
    assert serializers.dumps({"a": 1}, "application/json") == b'{"a":1}'  # JSON bodies untouched
    assert type(serializers.get_serializer("application/x-ndjson").inner).__name__ == "NdjsonSerializer"


def test_bulk_writes_hand_their_bodies_to_the_client_uncopied():
    es = _rally_client()

    class Sent:
        async def perform_request(self, method, path, params=None, headers=None, body=None):
            sent.append(es.transport.serializers.dumps(body, headers["content-type"]) is body)
            return {"errors": False, "items": [{"index": {"status": 201}}]}

    sent: list = []
    es.perform_request = Sent().perform_request
    asyncio.run(index_in_bulks(es, "i", [Batch.with_actions([b'{"index":{}}'], [b'{"a":1}'])], None, Backoff(), WriteStats()))
    assert sent == [True]
