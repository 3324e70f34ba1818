"""The Elasticsearch node on this load driver's own host (its HTTP publish address is one of this host's), and pinning a
client's requests to it (:func:`pinned_to`: the node must be one of Rally's ``--target-hosts``, whose connection is used).
"""

from __future__ import annotations

import socket
from contextlib import contextmanager
from dataclasses import dataclass

from ingestlab.runners.compat import request
from ingestlab.runners.utils.failures import RequestFailed
from ingestlab.runners.writing.indexing import JSON


class NoNodeOnThisHost(RequestFailed):
    """``node: driver-host`` needs exactly one node on the load driver's host."""


@dataclass(frozen=True)
class NodeOnHost:
    name: str
    address: str
    port: int


def split_publish_address(publish: str) -> tuple[str, int]:
    """``10.0.0.5:9200`` or ``host.example/10.0.0.5:9200`` -> ("10.0.0.5", 9200)."""
    address, port = publish.rsplit("/", 1)[-1].rsplit(":", 1)
    return address.strip("[]"), int(port)


def is_own_address(address: str) -> bool:
    """A route to an own address leaves from that same address (asked of the kernel with an unsent UDP socket)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect((address, 9))
        except OSError:
            return False
        return probe.getsockname()[0] == address


def pick_local(nodes: dict, own=is_own_address) -> NodeOnHost:
    """``nodes``: ``GET _nodes/http``'s ``nodes`` (id -> {name, http.publish_address})."""
    published = [(n["name"], *split_publish_address(n["http"]["publish_address"])) for n in nodes.values()]
    mine = [NodeOnHost(*p) for p in published if own(p[1])]
    if len(mine) == 1:
        return mine[0]
    listed = ", ".join(f"{name} at {address}:{port}" for name, address, port in sorted(published))
    host = socket.gethostname()
    if not mine:
        raise NoNodeOnThisHost(
            f"no Elasticsearch node runs on this load driver's host ({host}); the nodes are {listed}. "
            "'node: driver-host' needs --load-driver-hosts on the cluster's own hosts"
        )
    raise NoNodeOnThisHost(
        f"{len(mine)} nodes run on this load driver's host ({host}): {listed}. 'node: driver-host' needs one node per load-driver host"
    )


async def local_node(es) -> NodeOnHost:
    info = await request(es, "GET", "/_nodes/http", headers=dict(JSON), params={"filter_path": "nodes.*.name,nodes.*.http.publish_address"})
    return pick_local(info["nodes"])


class _OneNodePool:
    """Stands in for the transport's node pool: every request goes to ``node``; the rest is the real pool's."""

    def __init__(self, pool, node):
        self._pool, self._node = pool, node

    def get(self):
        return self._node

    def __getattr__(self, name):
        return getattr(self._pool, name)


@contextmanager
def pinned_to(es, node: NodeOnHost | None):
    """Send every request of ``es`` to ``node`` (None: leave the client as it is) until the block ends."""
    if node is None:
        yield es
        return
    transport = es.transport
    pool = transport.node_pool
    match = [n for n in pool.all() if n.config.host == node.address and n.config.port == node.port]
    if not match:
        targets = ", ".join(f"{n.config.host}:{n.config.port}" for n in pool.all())
        raise NoNodeOnThisHost(
            f"the node on this load driver's host, {node.name} at {node.address}:{node.port}, "
            f"is not among Rally's --target-hosts ({targets})"
        )
    transport.node_pool = _OneNodePool(pool, match[0])
    try:
        yield es
    finally:
        transport.node_pool = pool
