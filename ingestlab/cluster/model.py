"""What a local cluster is: its nodes (ports, directories, PIDs) and settings, kept in ``cluster.json`` so
that any later process can find, query and stop it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ingestlab import paths
from ingestlab.cluster import security
from ingestlab.cluster.http import http_json
from ingestlab.errors import IngestlabError
from ingestlab.procs import alive

DEFAULT_CLUSTER = "ingestlab"
# below the kernel's ephemeral range (32768-60999 by default), so no client connection's local port can hold one
DEFAULT_HTTP_PORT = 29200
DEFAULT_TRANSPORT_PORT = 29300


@dataclass
class Node:
    name: str
    http_port: int
    transport_port: int
    directory: str
    pid: int | None = None
    started: int | None = None  # when the process of ``pid`` started (procs.started): a PID used again is not this node
    scheme: str = "http"
    address: str = "127.0.0.1"
    namespace: str | None = None  # the test host's network namespace, None: this machine's loopback
    data_path: str | None = None  # where the node keeps its data (an emulated disk); None: <directory>/data
    launcher: list = field(default_factory=list)  # a command prefix the node starts through (e.g. joining its cgroups)

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.address}:{self.http_port}"

    @property
    def log_file(self) -> Path:
        return Path(self.directory) / "logs" / "stdout.log"

    @property
    def running(self) -> bool:
        return alive(self.pid, self.started)


@dataclass
class Cluster:
    name: str
    version: str
    heap: str
    nodes: list[Node] = field(default_factory=list)
    settings: dict = field(default_factory=dict)
    security: bool = False  # basic auth and TLS; see ingestlab.cluster.security
    engine: str = "elasticsearch"  # or "opensearch"
    java_options: list[str] = field(default_factory=list)  # INGESTLAB_NODE_JAVA_OPTS when it was provisioned

    @property
    def directory(self) -> Path:
        return Path(self.nodes[0].directory).parent

    @property
    def running(self) -> bool:
        return any(n.running for n in self.nodes)

    def credentials(self) -> "security.Credentials | None":
        return security.load(self.directory) if self.security else None

    def client_options(self) -> str | None:
        """Rally's ``--client-options`` for this cluster (holds the password when secured: never print it)."""
        credentials = self.credentials()
        return credentials.client_options() if credentials else None

    def get_json(self, path: str, node: "Node | None" = None, timeout: float = 5.0, body: bytes | None = None) -> dict:
        """A request to one node (default: the first) with the cluster's credentials; a POST when ``body`` is given."""
        return http_json((node or self.nodes[0]).url + path, timeout=timeout, credentials=self.credentials(), body=body)

    @property
    def hosts(self) -> str:
        """The value for Rally's ``--target-hosts``."""
        return ",".join(f"{n.address}:{n.http_port}" for n in self.nodes)

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def node(self, name: str) -> Node:
        for node in self.nodes:
            if node.name == name:
                return node
        raise IngestlabError(f"cluster {self.name!r} has no node {name!r}; it has {', '.join(n.name for n in self.nodes)}")

    def save(self) -> None:
        f = state_file(self.name)
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(asdict(self), indent=2))

    @classmethod
    def load(cls, name: str = DEFAULT_CLUSTER) -> "Cluster | None":
        f = state_file(name)
        if not f.is_file():
            return None
        raw = json.loads(f.read_text())
        raw["nodes"] = [Node(**n) for n in raw["nodes"]]
        return cls(**raw)


def state_file(cluster_name: str) -> Path:
    return paths.clusters_dir() / cluster_name / "cluster.json"
