"""Recreate an index and count what it holds: the set-up and the check around every write the pack measures."""

from __future__ import annotations

from ingestlab.runners.compat import ApiErrors, request
from ingestlab.runners.compat import status as http_status
from ingestlab.runners.utils.failures import RequestFailed
from ingestlab.runners.writing.indexing import JSON


class DocumentsLost(RequestFailed):
    """The index holds fewer (or more) documents than were written."""

    @classmethod
    def mismatch(cls, index: str, found: int, expected: int, wrote: str) -> "DocumentsLost":
        """``wrote``: what should be there, in words (e.g. "the task before wrote 1000")."""
        if found > expected:
            why = (
                f"{found - expected} more than written: documents without ids were written twice "
                f"(a request re-sent after a lost connection is applied again)"
            )
        else:
            why = f"{expected - found} missing"
        return cls(f"[{index}] holds {found} documents; {wrote}: {why}")


async def recreate_index(es, index: str, body: dict) -> None:
    try:
        await request(es, "DELETE", f"/{index}", headers=dict(JSON))
    except ApiErrors as e:
        if http_status(e) != 404:
            raise
    await request(es, "PUT", f"/{index}", headers=dict(JSON), body=body)
    # every copy the cluster can hold must be started before writing: a replica still recovering when a
    # node fails cannot take over, and the study would measure recovery instead of indexing
    data_nodes = (await request(es, "GET", "/_cluster/health", headers=dict(JSON)))["number_of_data_nodes"]
    status = "green" if data_nodes >= replicas(body) + 1 else "yellow"
    await request(
        es,
        "GET",
        f"/_cluster/health/{index}",
        headers=dict(JSON),
        params={"wait_for_status": status, "wait_for_no_initializing_shards": "true", "timeout": "60s"},
    )


def replicas(body: dict) -> int:
    """The index body's replica count, however its settings are spelled (Elasticsearch's default: 1)."""
    settings = (body or {}).get("settings", {})
    nested = settings.get("index", {}) if isinstance(settings.get("index"), dict) else {}
    value = settings.get("index.number_of_replicas", settings.get("number_of_replicas", nested.get("number_of_replicas", 1)))
    return int(value)


async def count_documents(es, index: str) -> int:
    await request(es, "POST", f"/{index}/_refresh", headers=dict(JSON))
    response = await request(es, "GET", f"/{index}/_count", headers=dict(JSON))
    return int(response["count"])
