"""Waiting for nodes: until one answers on HTTP, and until the cluster has all its nodes and a status."""

from __future__ import annotations

import json
import time
import urllib.error

from ingestlab.cluster.http import http_json
from ingestlab.cluster.model import Cluster, Node
from ingestlab.cluster.node_process import log_tail
from ingestlab.errors import IngestlabError


def wait_until_answers(cluster: Cluster, node: Node, timeout: float) -> None:
    """Until the node answers its local health (not ``GET /``, which a zip without a root endpoint answers 405)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not node.running:
            raise IngestlabError(f"node {node.name} (pid {node.pid}) exited during start-up\n{log_tail(node)}")
        try:
            cluster.get_json("/_cluster/health?local=true", node=node, timeout=2)
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
            time.sleep(0.5)
    raise IngestlabError(f"node {node.name} did not answer on {node.url} within {timeout:.0f}s\n{log_tail(node)}")


def wait_for_health(cluster: Cluster, status: str = "green", timeout: float = 120) -> dict:
    return wait_for_health_at(cluster.url, len(cluster.nodes), status, timeout, cluster.credentials(), cluster.name)


def wait_for_health_at(
    url: str, count: int, status: str = "green", timeout: float = 120, credentials=None, name: str = "the cluster"
) -> dict:
    """Wait until the cluster behind ``url`` has ``count`` nodes and ``status``; its health, or an error."""
    path = f"/_cluster/health?wait_for_status={status}&wait_for_nodes={count}&timeout={int(timeout)}s"
    try:
        health = http_json(url + path, timeout=timeout + 10, credentials=credentials)
    except urllib.error.HTTPError as e:  # 408 when the wait timed out
        health = json.loads(e.read() or b"{}")
    if health.get("timed_out", True) or health.get("number_of_nodes") != count:
        raise IngestlabError(
            f"cluster {name} not {status} with {count} nodes within {timeout:.0f}s: "
            f"status={health.get('status')} nodes={health.get('number_of_nodes')}"
        )
    return health
