"""The runners' client, whichever generator made it: requests, HTTP errors and their status, raw responses, the
request context."""

from __future__ import annotations

from contextlib import suppress
from importlib import import_module
from urllib.parse import urlencode

from ingestlab.runners.compat.core import generator_module


def _is_opensearch(es) -> bool:
    return type(es).__module__.startswith(("osbenchmark", "opensearchpy"))


# aiohttp asks for ``gzip, deflate`` when a request names no encoding, and the node then spends CPU compressing every
# response, which the studies' clients never asked for. A runner that wants compression names an encoding itself.
IDENTITY = "identity"


def _uncompressed_unless_asked(headers: dict | None) -> dict:
    headers = headers or {}
    return headers if any(k.lower() == "accept-encoding" for k in headers) else {**headers, "accept-encoding": IDENTITY}


async def request(es, method: str, path: str, params: dict | None = None, headers: dict | None = None, body=None):
    """One request with the runner's client: Rally's ``perform_request``, or opensearch-py's transport's (with the query
    in the URL: it takes a ``timeout`` parameter as its own). Responses come uncompressed unless ``headers`` name an
    ``accept-encoding``."""
    headers = _uncompressed_unless_asked(headers)
    if _is_opensearch(es):
        if params:
            path = f"{path}?{urlencode({k: str(v).lower() if isinstance(v, bool) else v for k, v in params.items()})}"
        return await es.transport.perform_request(method, path, params=None, headers=headers, body=body)
    return await es.perform_request(method, path, params=params, headers=headers, body=body)


def _error_classes() -> tuple:
    classes = []
    for module, name in (("elasticsearch", "ApiError"), ("opensearchpy.exceptions", "TransportError")):
        with suppress(ImportError, AttributeError):
            classes.append(getattr(import_module(module), name))
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
    """Ask the client to hand this call's responses over as bytes (a test's stand-in keeps decoding)."""
    ask = getattr(es, "return_raw_response", None)
    if ask is not None:
        ask()


def request_context():
    """The class that holds a request's timing in a context variable (the client's hooks write it)."""
    return generator_module("osbenchmark.context", "esrally.client.context").RequestContextHolder
