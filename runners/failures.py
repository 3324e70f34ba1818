"""What the pack's runners do when Elasticsearch refuses or loses documents: a failed request in Rally's
terms, not a crash of the load driver.

Runners raise a :class:`RequestFailed` (documents refused after retries, a count that does not match,
a scroll that expired, ...). Registered through :func:`reporting_failures`, such a call returns
``success: False`` with the error's type and description, and Rally applies ``--on-error``: ``abort``
ends the race with that description, ``continue`` counts the error (the task's error rate, which marks
the pack's report INVALID) and races on. Any other exception is a bug and still stops the race.
"""
from __future__ import annotations


class RequestFailed(RuntimeError):
    """A call did not do what it measures; ``weight`` is the work it did complete (e.g. acknowledged docs)."""

    def __init__(self, message: str, weight: int = 0):
        super().__init__(message)
        self.weight = weight


def failed_call(error: RequestFailed, unit: str = "docs") -> dict:
    return {"weight": error.weight, "unit": unit, "success": False, "error-type": type(error).__name__,
            "error-description": str(error)}


class reporting_failures:
    """Wraps a runner so that a :class:`RequestFailed` becomes a failed request Rally can count or abort on."""

    def __init__(self, runner):
        self._runner = runner

    async def __call__(self, es, params):
        try:
            return await self._runner(es, params)
        except RequestFailed as e:
            return failed_call(e)

    def __repr__(self):
        return repr(self._runner)
