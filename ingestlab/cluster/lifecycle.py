"""Start, watch and stop local Elasticsearch clusters of 1..N nodes on loopback, or one node per test host; the
cluster's layout and PIDs are kept in ``cluster.json``, so ``down`` and ``status`` work from any later process.
:func:`running` holds a cluster for the length of a block."""

from __future__ import annotations

import ipaddress
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ingestlab import paths, procs
from ingestlab.cluster import distribution, health, node_process, security
from ingestlab.cluster.jdk import java_home_for
from ingestlab.cluster.model import DEFAULT_CLUSTER, DEFAULT_HTTP_PORT, DEFAULT_TRANSPORT_PORT, Cluster, Node, state_file
from ingestlab.cluster.service_user import check_reachable, ensure_service_user
from ingestlab.cluster.versions import DEFAULT_VERSION, spec_for
from ingestlab.errors import IngestlabError
from ingestlab.net import port_is_free

_SIZE = re.compile(r"^\d+[kmgKMG]$")


@dataclass(frozen=True)
class Shape:
    """What cluster to provision: the options every command that starts one shares."""

    nodes: int = 1
    version: str = DEFAULT_VERSION
    heap: str = "1g"
    name: str = DEFAULT_CLUSTER
    http_port: int = DEFAULT_HTTP_PORT
    transport_port: int = DEFAULT_TRANSPORT_PORT
    settings: dict = field(default_factory=dict)
    data_dir: str | None = None
    secured: bool = False
    engine: str = "elasticsearch"  # or "opensearch"


def validate_heap(heap: str) -> str:
    if not _SIZE.match(heap):
        raise IngestlabError(f"heap {heap!r} is not a JVM size like 512m or 2g")
    return heap


def _make_writable_dir(path: Path) -> None:
    """The directory for the nodes' data and logs, or an error naming it (not a traceback)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise IngestlabError(
            f"cannot create {path} for the nodes' data ({e.strerror}); pass a writable --data-dir or set INGESTLAB_HOME"
        ) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise IngestlabError(f"{path} is not writable; pass a writable --data-dir or set INGESTLAB_HOME")


def _layout(shape: Shape, hosts: list | None, placement: dict | None = None) -> Cluster:
    cluster_dir = (Path(shape.data_dir).resolve() if shape.data_dir else paths.clusters_dir()) / shape.name
    cluster = Cluster(
        name=shape.name, version=shape.version, heap=shape.heap, settings=dict(shape.settings), security=shape.secured, engine=shape.engine
    )
    for i in range(len(hosts) if hosts else shape.nodes):
        host = hosts[i] if hosts else None
        cluster.nodes.append(
            Node(
                name=f"node-{i + 1}",
                http_port=shape.http_port + (0 if host else i),
                transport_port=shape.transport_port + (0 if host else i),
                directory=str(cluster_dir / f"node-{i + 1}"),
                scheme="https" if shape.secured else "http",
                address=host.address if host else "127.0.0.1",
                namespace=host.namespace if host else None,
                **((placement or {}).get(host.name, {}) if host else {}),
            )
        )
    return cluster


def _check_free(cluster: Cluster) -> None:
    existing = Cluster.load(cluster.name)
    if existing and existing.running:
        raise IngestlabError(f"cluster {cluster.name!r} is already running at {existing.hosts}; run `ingestlab cluster down` first")
    ports = [p for n in cluster.nodes if not n.namespace for p in (n.http_port, n.transport_port)]
    busy = [p for p in ports if not port_is_free(p)]
    deadline = time.monotonic() + 15
    while busy and time.monotonic() < deadline:
        # a port a node has just let go of may stay taken a moment; only a port that stays taken is an error
        time.sleep(0.5)
        busy = [p for p in busy if not port_is_free(p)]
    if busy:
        raise IngestlabError(
            f"port(s) {', '.join(map(str, busy))} on 127.0.0.1 are in use (another Elasticsearch?); "
            f"stop it, or choose other ports with --http-port/--transport-port"
        )


def up(shape: Shape = Shape(), hosts: list | None = None, log=print, placement: dict | None = None) -> Cluster:
    """Provision and start a cluster (node directories emptied); returns once it is green, stops what it started on
    failure. ``hosts``: test hosts, one node on each, all on the same ports; ``placement``: per host name, the node's
    ``data_path`` and ``launcher`` (its emulated disk and cgroups)."""
    if shape.nodes < 1:
        raise IngestlabError("a cluster needs at least one node")
    validate_heap(shape.heap)
    spec = spec_for(shape.version, shape.engine)
    if shape.secured and shape.engine == "opensearch":
        raise IngestlabError(
            "--secured sets up Elasticsearch's x-pack security; the OpenSearch integration-test zip has no security plugin"
        )
    cluster = _layout(shape, hosts, placement)
    cluster.java_options = node_process.extra_java_options()
    _check_free(cluster)
    java_home = java_home_for(spec)
    es_home = distribution.ensure_distribution(shape.version, log=log, engine=shape.engine)
    user = ensure_service_user()
    check_reachable(user, es_home)
    _make_writable_dir(cluster.directory)
    check_reachable(user, cluster.directory)
    if shape.secured:
        security.create(cluster.directory)
    if any(n.namespace and not ipaddress.ip_address(n.address).is_loopback for n in cluster.nodes):
        node_process.meet_bootstrap_checks(log)
    extra = node_process.java_options_words(cluster)
    try:
        for node in cluster.nodes:
            log(
                f"[ingestlab] starting {node.name} ({spec.label}, heap {shape.heap}, JDK {java_home.name}{extra}) on {node.url} "
                f"as {user.name}"
            )
            node_process.start(es_home, spec, cluster, node, user, java_home)
            cluster.save()
        for node in cluster.nodes:
            health.wait_until_answers(cluster, node, timeout=180)
        health.wait_for_health(cluster, "green", timeout=120)
    except BaseException:
        stop(cluster)
        raise
    cluster.save()
    log(f"[ingestlab] cluster {shape.name} is green: {cluster.hosts}")
    if shape.secured:
        log(
            f"[ingestlab] secured: https with CA {cluster.credentials().ca_certs}; user {security.USER}, password in "
            f"{security.credentials_file(cluster.directory)} (`ingestlab race --cluster {shape.name}` uses them)"
        )
    return cluster


def stop(cluster: Cluster, timeout: float = 60, log=lambda *_: None) -> None:
    """Stop every node (SIGTERM, then SIGKILL after ``timeout``) and forget the cluster."""

    def escalate(sig, pids):
        log(f"[ingestlab] node pid(s) {', '.join(map(str, pids))} ignored SIGTERM for {timeout:.0f}s; killing")

    procs.stop(lambda: [n.pid for n in cluster.nodes if n.running], grace=timeout, on_escalate=escalate)
    for node in cluster.nodes:
        node.pid = node.started = None
    state_file(cluster.name).unlink(missing_ok=True)


@contextmanager
def running(shape: Shape, keep: bool = False, drop_data: bool = False, log=print):
    """A cluster for the length of a ``with`` block: up before it, stopped after it (unless ``keep``); ``drop_data``
    then empties its nodes' data directories too, so its indices do not hold the disk the next setup needs."""
    cluster = up(shape, log=log)
    try:
        yield cluster
    finally:
        if not keep:
            stop(cluster, log=log)
            freed = sum(node_process.drop_data(n) for n in cluster.nodes) if drop_data else 0
            log(f"[ingestlab] cluster {cluster.name} stopped" + (f"; its nodes' data removed ({freed / 1e9:,.2f} GB)" if drop_data else ""))


def down(name: str = DEFAULT_CLUSTER, log=print) -> bool:
    cluster = Cluster.load(name)
    if cluster is None:
        log(f"[ingestlab] no cluster {name!r} is recorded as running")
        return False
    stop(cluster, log=log)
    log(f"[ingestlab] cluster {name} stopped")
    return True


def status(name: str = DEFAULT_CLUSTER) -> dict:
    cluster = Cluster.load(name)
    if cluster is None:
        return {"cluster": name, "running": False}
    result = {
        "cluster": name,
        "engine": cluster.engine,
        "version": cluster.version,
        "hosts": cluster.hosts,
        "nodes": [{"name": n.name, "url": n.url, "pid": n.pid, "alive": n.running} for n in cluster.nodes],
    }
    result["running"] = any(n["alive"] for n in result["nodes"])
    try:
        result["health"] = cluster.get_json("/_cluster/health", timeout=3).get("status")
    except Exception as e:  # status must report, not fail
        result["health"] = f"unreachable ({e.__class__.__name__})"
    return result


def running_cluster(name: str) -> Cluster:
    """A recorded cluster with a live node, or an error saying how to start one."""
    cluster = Cluster.load(name)
    if cluster is None or not cluster.running:
        raise IngestlabError("no running ingestlab cluster: start one with `ingestlab cluster up`, or pass --target-hosts")
    return cluster
