"""When Elasticsearch refuses or loses documents, runners raise a :class:`RequestFailed`; registered through
:func:`reporting_failures`, such a call returns ``success: False`` with the error's type and description, and Rally
applies ``--on-error``. Any other exception is a bug and still stops the race.
"""

from __future__ import annotations

import orjson

from ingestlab.runners.compat import error_body
from ingestlab.runners.utils.runner_stats import record


class RequestFailed(RuntimeError):
    """A call did not do what it measures; ``weight`` is the work it did complete (e.g. acknowledged docs)."""

    def __init__(self, message: str, weight: int = 0):
        super().__init__(message)
        self.weight = weight
        self.recorded = False  # True once the runner put it in its runner stats itself


def failed_call(error: RequestFailed, unit: str = "docs") -> dict:
    return {"weight": error.weight, "unit": unit, "success": False, "error-type": type(error).__name__, "error-description": str(error)}


class reporting_failures:
    """Wraps a runner so that a :class:`RequestFailed` becomes a failed request Rally can count or abort on."""

    def __init__(self, runner):
        self._runner = runner

    async def __call__(self, es, params):
        try:
            return await self._runner(es, params)
        except RequestFailed as e:
            if not e.recorded:
                record({"task": params.get("operation"), "method": repr(self._runner), "error": f"{type(e).__name__}: {e}"})
            return failed_call(e)

    def __repr__(self):
        return repr(self._runner)


def describe(error) -> str:
    """An Elasticsearch error in a line: the root cause's type and reason, whether the body came as a dict or bytes."""
    body = error_body(error)
    if hasattr(body, "getvalue"):
        body = body.getvalue()
    if isinstance(body, (bytes, bytearray)):
        try:
            body = orjson.loads(body)
        except orjson.JSONDecodeError:
            return body[:200].decode("utf-8", "replace")
    cause = body.get("error") if isinstance(body, dict) else None
    if isinstance(cause, dict):
        root = (cause.get("root_cause") or [cause])[0]
        return f"{root.get('type', cause.get('type'))}: {root.get('reason', cause.get('reason', ''))}"
    return str(getattr(error, "message", error))
