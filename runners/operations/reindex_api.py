"""Runner ``reindex-api``: one call is one run of Elasticsearch's own ``_reindex``, started as a task and polled until it
ends (each poll waits on the node for at most ``poll-timeout``). The run's time is the ``took`` Elasticsearch reports.
Untimed around it: the destination recreated, the source counted; then the task's result removed from ``.tasks`` and
the destination's count checked.
"""

from __future__ import annotations

import re
import time

from ingestlab.runners.compat import ApiErrors, error_body, request
from ingestlab.runners.compat import status as http_status
from ingestlab.runners.utils.failures import RequestFailed, describe
from ingestlab.runners.utils.params import ParameterError, positive_int
from ingestlab.runners.utils.runner_stats import record
from ingestlab.runners.utils.timing import untimed
from ingestlab.runners.writing.indexing import JSON
from ingestlab.runners.writing.indices import DocumentsLost, count_documents, recreate_index

NAME = "reindex-api"
MODULE = "reindex"  # the Elasticsearch module behind POST /_reindex
_TIME_VALUE = re.compile(r"^\d+(ms|s|m|h)$")


class ReindexFailed(RequestFailed):
    pass


def poll_timeout(params: dict, operation: str) -> str:
    value = str(params.get("poll-timeout", "30s"))
    if not _TIME_VALUE.match(value):
        raise ParameterError(f"operation [{operation}]: [poll-timeout] must be a time like 500ms, 30s or 5m, got {value!r}")
    return value


async def wait_for(es, task: str, timeout: str) -> tuple[dict, int]:
    """The completed task's status, and how many polls it took."""
    polls = 0
    while True:
        polls += 1
        try:
            status = await request(
                es, "GET", f"/_tasks/{task}", headers=dict(JSON), params={"wait_for_completion": "true", "timeout": timeout}
            )
        except ApiErrors as e:
            if http_status(e) in (408, 500, 504) and "timeout" in describe(e).lower():
                continue  # the poll's wait ran out before the task ended: poll again
            raise
        if status.get("completed"):
            return status, polls


async def forget(es, task: str) -> str | None:
    """Remove the task's stored result from ``.tasks``; why not, where it could not be."""
    try:
        await request(es, "DELETE", f"/.tasks/_doc/{task}", headers=dict(JSON))
    except ApiErrors as e:
        return None if http_status(e) == 404 else f"HTTP {http_status(e)}: {describe(e)}"
    return None


class ReindexApi:
    async def __call__(self, es, params):
        operation = params["operation"]
        source, dest = params["source-index"], params["dest-index"]
        scroll_size = positive_int(params, "scroll-size", operation, default=1000)
        slices = str(params.get("slices", 1))
        timeout = poll_timeout(params, operation)
        expected = await untimed(lambda: _prepare(es, source, dest, params["dest-body"]))
        start = time.perf_counter()
        cpu = time.process_time()
        try:
            response = await request(
                es,
                "POST",
                "/_reindex",
                headers=dict(JSON),
                params={"wait_for_completion": "false", "slices": slices, "refresh": "false"},
                body={"source": {"index": source, "size": scroll_size}, "dest": {"index": dest}},
            )
        except ApiErrors as e:
            if http_status(e) == 405 or (http_status(e) == 400 and "no handler found" in str(error_body(e))):
                raise ReindexFailed(
                    f"POST /_reindex is not available on this Elasticsearch (HTTP {http_status(e)}): "
                    f"it has no {MODULE} module; race with --exclude-tasks=type:{NAME}"
                ) from e
            raise
        task = response["task"]
        status, polls = await wait_for(es, task, timeout)
        waited = time.perf_counter() - start
        cpu = time.process_time() - cpu
        result = status.get("response", {})
        took_ms = result.get("took")
        elapsed = took_ms / 1000.0 if took_ms else waited  # Elasticsearch's own time for the reindex
        not_forgotten = await untimed(lambda: forget(es, task))
        if status.get("error") or result.get("failures"):
            raise ReindexFailed(f"_reindex {source} → {dest} failed: {status.get('error') or result.get('failures')[:3]}")
        found = await untimed(lambda: count_documents(es, dest))
        if found != expected:
            raise DocumentsLost.mismatch(dest, found, expected, f"_reindex copied {expected} from [{source}]")
        stats = {
            "task": operation,
            "method": NAME,
            "docs": expected,
            "elapsed_s": elapsed,
            "waited_s": waited,
            "polls": polls,
            "task_id": task,
            "client_cpu_s": cpu,
            "scroll_size": scroll_size,
            "slices": slices,
            "retries": result.get("retries", {}),
        }
        if not_forgotten:
            stats["tasks_index"] = f"result not removed from .tasks: {not_forgotten}"
        record(stats)
        return {
            "weight": expected,
            "unit": "docs",
            "success": True,
            "throughput": expected / elapsed,
            "elapsed-ms": elapsed * 1000.0,
            "waited-ms": waited * 1000.0,
            "polls": polls,
            "scroll-size": scroll_size,
            "slices": slices,
            "batches": result.get("batches"),
            "bulk-retries": result.get("retries", {}).get("bulk"),
        }

    def __repr__(self):
        return NAME


async def _prepare(es, source: str, dest: str, dest_body: dict) -> int:
    await recreate_index(es, dest, dest_body)
    return await count_documents(es, source)
