"""JSON over HTTP to a node, with a secured cluster's credentials and CA when it has them."""

from __future__ import annotations

import json
import urllib.request


def http_json(url: str, timeout: float = 5.0, credentials=None, body: bytes | None = None, method: str | None = None) -> dict:
    """GET ``url`` (POST ``body`` as JSON when given) and return the parsed answer."""
    request = urllib.request.Request(
        url, data=body, method=method, headers={"Content-Type": "application/json"} if body is not None else {}
    )
    context = None
    if credentials:
        request.add_header("Authorization", credentials.authorization())
        context = credentials.ssl_context()
    with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
        raw = response.read()
        return json.loads(raw) if raw else {}
