"""Fault injection on a running local cluster: crash one node (SIGKILL), and restart it on its own data."""

from __future__ import annotations

import os
import signal
import time

from ingestlab import procs
from ingestlab.cluster import distribution, health, node_process
from ingestlab.cluster.jdk import java_home_for
from ingestlab.cluster.model import Cluster, Node
from ingestlab.cluster.service_user import ensure_service_user
from ingestlab.cluster.versions import spec_for
from ingestlab.errors import IngestlabError


def kill_node(cluster: Cluster, node_name: str, timeout: float = 30) -> Node:
    """SIGKILL one node, as a crash would end it (no clean shutdown); its data stays for a restart."""
    node = cluster.node(node_name)
    if node.running:
        os.kill(node.pid, signal.SIGKILL)
        deadline = time.monotonic() + timeout
        while procs.alive(node.pid, node.started) and time.monotonic() < deadline:
            time.sleep(0.1)
    node.pid = node.started = None
    cluster.save()
    return node


def start_node(cluster: Cluster, node_name: str, log=print) -> Node:
    """Restart one stopped node of a running cluster on its own data, and wait until it answers."""
    node = cluster.node(node_name)
    if node.running:
        raise IngestlabError(f"{node_name} of cluster {cluster.name!r} is running (pid {node.pid})")
    spec = spec_for(cluster.version, cluster.engine)
    es_home = distribution.ensure_distribution(cluster.version, log=log, engine=cluster.engine)
    log(f"[ingestlab] restarting {node.name} of {cluster.name} on {node.url}{node_process.java_options_words(cluster)}")
    node_process.start(es_home, spec, cluster, node, ensure_service_user(), java_home_for(spec), fresh=False)
    cluster.save()
    health.wait_until_answers(cluster, node, timeout=180)
    return node
