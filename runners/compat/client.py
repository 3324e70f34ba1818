"""The runners' client, whichever generator made it: requests, HTTP errors and their status, raw responses, the
request context."""

from __future__ import annotations

from urllib.parse import urlencode

from ingestlab.runners.compat.core import engine

# esrally, opensearch-benchmark, thespian and the clients are imported inside the functions that use them: the
# generator installed decides which one runs (the other is absent), and the pack's CLI starts without them.


def _is_opensearch(es) -> bool:
    return type(es).__module__.startswith(("osbenchmark", "opensearchpy"))


# Both generators' async clients send over aiohttp, which adds ``Accept-Encoding: gzip, deflate`` to a request that names
# none, and Elasticsearch and OpenSearch then compress every response: CPU the node's indexing then lacks (and the
# client's, to inflate it). The studies' clients asked for no compressed responses, nor does the minimal client
# ``python -m devtools.bench overhead`` measures against. A runner that wants them names an encoding itself.
IDENTITY = "identity"


def _uncompressed_unless_asked(headers: dict | None) -> dict:
    if headers is None:
        return {"accept-encoding": IDENTITY}
    if any(k.lower() == "accept-encoding" for k in headers):
        return headers
    return {**headers, "accept-encoding": IDENTITY}


async def request(es, method: str, path: str, params: dict | None = None, headers: dict | None = None, body=None):
    """One request with the runner's client: Rally's ``perform_request``, or opensearch-py's transport's. (opensearch-py
    takes a ``timeout`` query parameter for its own request timeout: the query goes into the URL for it instead.)

    Responses come uncompressed unless ``headers`` name an ``accept-encoding`` (see ``IDENTITY``)."""
    headers = _uncompressed_unless_asked(headers)
    if _is_opensearch(es):
        if params:
            path = f"{path}?{urlencode({k: str(v).lower() if isinstance(v, bool) else v for k, v in params.items()})}"
        return await es.transport.perform_request(method, path, params=None, headers=headers, body=body)
    return await es.perform_request(method, path, params=params, headers=headers, body=body)


def _error_classes() -> tuple:
    classes = []
    try:
        from elasticsearch import ApiError

        classes.append(ApiError)
    except ImportError:
        pass
    try:
        from opensearchpy.exceptions import TransportError

        classes.append(TransportError)
    except ImportError:
        pass
    return tuple(classes)


ApiErrors = _error_classes()  # what a client raises for an HTTP error, whichever client it is


def status(error) -> int | None:
    """The HTTP status of a client error (``meta.status`` in elasticsearch-py 8, ``status_code`` in opensearch-py)."""
    meta = getattr(error, "meta", None)
    if meta is not None and getattr(meta, "status", None) is not None:
        return meta.status
    code = getattr(error, "status_code", None)
    return code if isinstance(code, int) else None


def error_body(error):
    """The error's response body: ``body`` (elasticsearch-py) or ``info`` (opensearch-py)."""
    body = getattr(error, "body", None)
    return body if body is not None else getattr(error, "info", None)


def raw_responses(es) -> None:
    """Ask the client to hand this call's responses over as bytes (both generators' clients can; a test's stand-in
    keeps decoding)."""
    ask = getattr(es, "return_raw_response", None)
    if ask is not None:
        ask()


def request_context():
    """The class that holds a request's timing in a context variable (the client's hooks write it)."""
    if engine() == "osb":
        from osbenchmark.context import RequestContextHolder
    else:
        from esrally.client.context import RequestContextHolder
    return RequestContextHolder
