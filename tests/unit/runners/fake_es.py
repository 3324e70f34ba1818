"""A scripted stand-in for Rally's async client (unit tests only): it records every request and
fires Rally's request-timing hooks like the real client does."""

import time

from elastic_transport import ApiResponseMeta, HttpHeaders, NodeConfig
from elasticsearch import ApiError
from esrally.client.context import RequestContextHolder


def api_error(status: int, message: str = "error") -> ApiError:
    meta = ApiResponseMeta(
        status=status, http_version="1.1", headers=HttpHeaders(), duration=0.0, node=NodeConfig("http", "localhost", 9200)
    )
    return ApiError(message=message, meta=meta, body={"error": message})


class FakeEs:
    def __init__(self, bulk_responses=(), index_errors=(), count=None, search_totals=None):
        self.calls = []
        self.search_totals = None if search_totals is None else list(search_totals)
        self.bulk_responses = list(bulk_responses)
        self.index_errors = list(index_errors)
        self.count = count
        self.indexed = 0

    async def perform_request(self, method, path, params=None, headers=None, body=None):
        RequestContextHolder.on_request_start()
        try:
            self.calls.append((method, path, params, body, time.perf_counter()))
            if method == "DELETE":
                raise api_error(404, "index_not_found_exception")
            if path.endswith("/_bulk"):
                docs = body.count(b"\n") // 2
                response = self.bulk_responses.pop(0) if self.bulk_responses else None
                if isinstance(response, Exception):
                    raise response
                if response is None:
                    response = {"errors": False, "items": [{"index": {"status": 201}}] * docs}
                self.indexed += sum(1 for i in response["items"] if next(iter(i.values()))["status"] < 300)
                return response
            if path.endswith("/_doc"):
                if self.index_errors:
                    error = self.index_errors.pop(0)
                    if error:
                        raise error
                self.indexed += 1
                return {"result": "created"}
            if path.endswith("/_search"):
                total = self.search_totals.pop(0) if self.search_totals else self.indexed
                return {"hits": {"total": total if isinstance(total, int) else {"value": total[0], "relation": "eq"}}}
            if path == "/_cluster/health":
                return {"status": "green", "number_of_data_nodes": 1}
            if path.endswith("/_count"):
                return {"count": self.indexed if self.count is None else self.count}
            return {"acknowledged": True}
        finally:
            RequestContextHolder.on_request_end()

    def paths(self, method=None):
        return [c[1] for c in self.calls if method is None or c[0] == method]


def call_runner(runner, es, params):
    """Call a runner inside a request context, as Rally's driver does; returns (result, request_start, request_end)."""
    import asyncio

    async def go():
        with RequestContextHolder().new_request_context() as ctx:
            result = await runner(es, params)
            return result, ctx.request_start, ctx.request_end

    return asyncio.run(go())
