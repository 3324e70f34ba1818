"""Start, watch and stop local Elasticsearch clusters of 1..N nodes on loopback, or one node per test host.

One unpacked distribution is shared read-only by all nodes; each node has its own
config copy, data, logs and ports under ``INGESTLAB_HOME/clusters/<cluster>/<node>``.
The cluster's layout and PIDs are kept in ``cluster.json`` so that ``down`` and
``status`` work from any later process. A node on a test host (:mod:`ingestlab.hosts.namespaces`) listens on
that host's own address inside its network namespace; the nodes' processes stay visible from here.
"""
from __future__ import annotations

import ipaddress
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ingestlab import paths
from ingestlab.cluster import distribution, security
from ingestlab.cluster.service_user import ServiceUser, check_reachable, ensure_service_user
from ingestlab.errors import IngestlabError

DEFAULT_CLUSTER = "ingestlab"
DEFAULT_HTTP_PORT = 39200
DEFAULT_TRANSPORT_PORT = 39300


@dataclass
class Node:
    name: str
    http_port: int
    transport_port: int
    directory: str
    pid: int | None = None
    scheme: str = "http"
    address: str = "127.0.0.1"
    namespace: str | None = None  # the test host's network namespace, None: this machine's loopback

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.address}:{self.http_port}"

    @property
    def log_file(self) -> Path:
        return Path(self.directory) / "logs" / "stdout.log"


@dataclass
class Cluster:
    name: str
    version: str
    heap: str
    nodes: list[Node] = field(default_factory=list)
    settings: dict = field(default_factory=dict)
    security: bool = False  # basic auth and TLS; see ingestlab.cluster.security

    @property
    def directory(self) -> Path:
        return Path(self.nodes[0].directory).parent

    def credentials(self) -> "security.Credentials | None":
        return security.load(self.directory) if self.security else None

    def get_json(self, path: str, node: "Node | None" = None, timeout: float = 5.0, body: bytes | None = None) -> dict:
        """A request to one node (default: the first) with the cluster's credentials, if it is secured."""
        return http_json((node or self.nodes[0]).url + path, timeout=timeout, credentials=self.credentials(), body=body)

    @property
    def hosts(self) -> str:
        """The value for Rally's ``--target-hosts``."""
        return ",".join(f"{n.address}:{n.http_port}" for n in self.nodes)

    @property
    def url(self) -> str:
        return self.nodes[0].url

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


def find_java_home() -> Path:
    for var in ("ES_JAVA_HOME", "JAVA_HOME"):
        if os.environ.get(var):
            return Path(os.environ[var])
    java = shutil.which("java")
    if not java:
        raise IngestlabError("no Java found: install a JDK 17 (e.g. `apt-get install openjdk-17-jdk-headless`) or set ES_JAVA_HOME")
    return Path(os.path.realpath(java)).parent.parent


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def http_json(url: str, timeout: float = 5.0, credentials: "security.Credentials | None" = None, body: bytes | None = None) -> dict:
    """GET ``url`` (POST ``body`` as JSON when given) and return the parsed answer."""
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"} if body is not None else {})
    context = None
    if credentials:
        request.add_header("Authorization", credentials.authorization())
        context = credentials.ssl_context()
    with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
        return json.loads(response.read())


def node_settings(spec: distribution.DistributionSpec, cluster: Cluster, node: Node) -> dict:
    settings = {
        "cluster.name": cluster.name,
        "node.name": node.name,
        "network.host": node.address,
        "http.port": str(node.http_port),
        "transport.port" if spec.major >= 7 else "transport.tcp.port": str(node.transport_port),
        "path.data": str(Path(node.directory) / "data"),
        "path.logs": str(Path(node.directory) / "logs"),
        # a benchmark must not stop because a shared disk is filling up
        "cluster.routing.allocation.disk.threshold_enabled": "false",
        **spec.node_settings,
    }
    if len(cluster.nodes) == 1:
        settings["discovery.type"] = "single-node"
    else:
        seeds = ",".join(f"{n.address}:{n.transport_port}" for n in cluster.nodes)
        if spec.major >= 7:
            settings["discovery.seed_hosts"] = seeds
            settings["cluster.initial_master_nodes"] = ",".join(n.name for n in cluster.nodes)
        else:
            settings["discovery.zen.ping.unicast.hosts"] = seeds
            settings["discovery.zen.minimum_master_nodes"] = str(len(cluster.nodes) // 2 + 1)
    if cluster.security:
        settings.update(security.node_settings())
    settings.update(cluster.settings)
    return settings


def _node_config_dir(es_home: Path, node_dir: Path) -> Path:
    """A private copy of config/ whose jvm.options writes GC logs and dumps into the node's own dirs."""
    config = node_dir / "config"
    shutil.copytree(es_home / "config", config)
    jvm_options = config / "jvm.options"
    text = jvm_options.read_text()
    text = text.replace("logs/gc.log", str(node_dir / "logs" / "gc.log"))
    text = text.replace("-XX:HeapDumpPath=data", f"-XX:HeapDumpPath={node_dir / 'data'}")
    text = text.replace("-XX:ErrorFile=logs/", f"-XX:ErrorFile={node_dir / 'logs'}/")
    jvm_options.write_text(text)
    return config


def _log_tail(node: Node, lines: int = 30) -> str:
    candidates = [node.log_file, *sorted((Path(node.directory) / "logs").glob("*.log"))]
    chunks = []
    for f in candidates:
        if f.is_file() and f.stat().st_size and f.name != "gc.log":
            tail = f.read_text(errors="replace").splitlines()[-lines:]
            chunks.append(f"--- {f} (last {len(tail)} lines)\n" + "\n".join(tail))
    return "\n".join(chunks[:2]) or "(no log output)"


def _start_node(es_home: Path, spec, cluster: Cluster, node: Node, user: ServiceUser, java_home: Path, fresh: bool = True) -> None:
    """Start one node; ``fresh`` empties its directory first, else it restarts on the data it has."""
    node_dir = Path(node.directory)
    config = node_dir / "config"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "ES_JAVA_HOME": str(java_home),
        "JAVA_HOME": str(java_home),
        "ES_JAVA_OPTS": f"-Xms{cluster.heap} -Xmx{cluster.heap}",
        "ES_PATH_CONF": str(config),
        "ES_TMPDIR": str(node_dir / "tmp"),
        "HOME": str(node_dir),
        "LANG": "C.UTF-8",
    }
    if fresh:
        if node_dir.exists():
            shutil.rmtree(node_dir)
        for sub in ("data", "logs", "tmp"):
            (node_dir / sub).mkdir(parents=True)
        _node_config_dir(es_home, node_dir)
        if cluster.security:
            security.install_on_node(es_home, config, cluster.directory, cluster.credentials(), env)
        user.chown(node_dir)
    elif not config.is_dir():
        raise IngestlabError(f"node {node.name} has no directory at {node_dir} to restart from; start the cluster with `ingestlab cluster up`")
    pid_file = node_dir / "es.pid"
    pid_file.unlink(missing_ok=True)  # a node that was killed leaves its PID file behind
    cmd = [str(es_home / "bin" / "elasticsearch"), "-d", "-p", str(pid_file)]
    cmd += [f"-E{k}={v}" for k, v in node_settings(spec, cluster, node).items()]
    kwargs = {} if user.is_current else {"user": user.uid, "group": user.gid, "extra_groups": []}
    if node.namespace:  # enter the namespace as root, then drop to the service user inside it
        cmd = ["ip", "netns", "exec", node.namespace, *user.drop_privileges(), *cmd]
        kwargs = {}
    with open(node.log_file, "ab") as out:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=node_dir, env=env, **kwargs)
    if proc.returncode != 0:
        raise IngestlabError(f"node {node.name} did not start (exit {proc.returncode})\n{_log_tail(node)}")
    deadline = time.monotonic() + 30
    while not pid_file.is_file() and time.monotonic() < deadline:
        time.sleep(0.2)
    if not pid_file.is_file():
        raise IngestlabError(f"node {node.name} wrote no PID file\n{_log_tail(node)}")
    node.pid = int(pid_file.read_text().strip())


PRODUCTION_FILE_LIMIT = 65535  # what Elasticsearch's bootstrap checks ask of a node on a non-loopback address
PRODUCTION_MAP_COUNT = 262144


def meet_bootstrap_checks(log=print) -> None:
    """A node bound to a non-loopback address enforces the production bootstrap checks. The file limit
    must already be high enough; the kernel's map count is raised here, machine-wide, as Elasticsearch's
    docs ask. (Test hosts on a loopback-class subnet, the default, need neither.)"""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < PRODUCTION_FILE_LIMIT:
        raise IngestlabError(f"nodes on non-loopback addresses need a file limit of {PRODUCTION_FILE_LIMIT} (this process may "
                             f"open {hard}); raise it (`ulimit -n {PRODUCTION_FILE_LIMIT}` where permitted) or use a "
                             f"loopback-class subnet such as 127.213.0")
    setting = Path("/proc/sys/vm/max_map_count")
    current = int(setting.read_text())
    if current >= PRODUCTION_MAP_COUNT:
        return
    try:
        setting.write_text(str(PRODUCTION_MAP_COUNT))
    except OSError as e:
        raise IngestlabError(f"vm.max_map_count is {current}; nodes on test hosts need {PRODUCTION_MAP_COUNT} "
                             f"(`sysctl -w vm.max_map_count={PRODUCTION_MAP_COUNT}` as root): {e.strerror}") from None
    log(f"[ingestlab] raised vm.max_map_count from {current} to {PRODUCTION_MAP_COUNT} (Elasticsearch's bootstrap check)")


def _wait_until_answers(cluster: Cluster, node: Node, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(node.pid):
            raise IngestlabError(f"node {node.name} (pid {node.pid}) exited during start-up\n{_log_tail(node)}")
        try:
            cluster.get_json("/", node=node, timeout=2)
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
            time.sleep(0.5)
    raise IngestlabError(f"node {node.name} did not answer on {node.url} within {timeout:.0f}s\n{_log_tail(node)}")


def wait_for_health(cluster: Cluster, status: str = "green", timeout: float = 120) -> dict:
    return wait_for_health_at(cluster.url, len(cluster.nodes), status, timeout, cluster.credentials(), cluster.name)


def wait_for_health_at(url: str, count: int, status: str = "green", timeout: float = 120,
                       credentials: "security.Credentials | None" = None, name: str = "the cluster") -> dict:
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


def _make_writable_dir(path: Path) -> None:
    """The directory for the nodes' data and logs, or an error naming it (not a traceback)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise IngestlabError(f"cannot create {path} for the nodes' data ({e.strerror}); pass a writable --data-dir or set INGESTLAB_HOME") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise IngestlabError(f"{path} is not writable; pass a writable --data-dir or set INGESTLAB_HOME")


def up(
    nodes: int = 1,
    version: str = distribution.DEFAULT_VERSION,
    heap: str = "1g",
    http_port: int = DEFAULT_HTTP_PORT,
    transport_port: int = DEFAULT_TRANSPORT_PORT,
    name: str = DEFAULT_CLUSTER,
    settings: dict | None = None,
    data_dir: str | None = None,
    secured: bool = False,
    hosts: list | None = None,
    log=print,
) -> Cluster:
    """Provision and start a cluster; returns once it is green. Stops what it started on failure.

    Each node's config, data and logs go to ``<data_dir>/<name>/node-N`` (default: under INGESTLAB_HOME),
    so a cluster can be placed on a chosen disk. Those node directories are emptied at every start.
    ``secured``: x-pack security with basic auth and TLS (``Cluster.credentials()`` has what clients need).
    ``hosts``: test hosts (:class:`ingestlab.hosts.namespaces.Host`), one node on each, all on the same ports."""
    if nodes < 1:
        raise IngestlabError("a cluster needs at least one node")
    existing = Cluster.load(name)
    if existing and any(pid_alive(n.pid) for n in existing.nodes):
        raise IngestlabError(f"cluster {name!r} is already running at {existing.hosts}; run `ingestlab cluster down` first")
    spec = distribution.spec_for(version)
    java_home = find_java_home()
    cluster_dir = (Path(data_dir).resolve() if data_dir else paths.clusters_dir()) / name
    cluster = Cluster(name=name, version=version, heap=heap, settings=dict(settings or {}), security=secured)
    if hosts:
        nodes = len(hosts)
    for i in range(nodes):
        host = hosts[i] if hosts else None
        cluster.nodes.append(
            Node(name=f"node-{i + 1}", http_port=http_port + (0 if host else i), transport_port=transport_port + (0 if host else i),
                 directory=str(cluster_dir / f"node-{i + 1}"), scheme="https" if secured else "http",
                 address=host.address if host else "127.0.0.1", namespace=host.namespace if host else None)
        )
    busy = [p for n in cluster.nodes if not n.namespace for p in (n.http_port, n.transport_port) if not port_is_free(p)]
    if busy:
        raise IngestlabError(
            f"port(s) {', '.join(map(str, busy))} on 127.0.0.1 are in use (another Elasticsearch?); "
            f"stop it, or choose other ports with --http-port/--transport-port"
        )
    es_home = distribution.ensure_distribution(version, log=log)
    user = ensure_service_user()
    check_reachable(user, es_home)
    _make_writable_dir(cluster_dir)
    check_reachable(user, cluster_dir)
    if secured:
        security.create(cluster_dir)
    if any(n.namespace and not ipaddress.ip_address(n.address).is_loopback for n in cluster.nodes):
        meet_bootstrap_checks(log)
    try:
        for node in cluster.nodes:
            log(f"[ingestlab] starting {node.name} (Elasticsearch {version}, heap {heap}) on {node.url} as {user.name}")
            _start_node(es_home, spec, cluster, node, user, java_home)
            cluster.save()
        for node in cluster.nodes:
            _wait_until_answers(cluster, node, timeout=180)
        wait_for_health(cluster, "green", timeout=120)
    except BaseException:
        stop(cluster)
        raise
    cluster.save()
    log(f"[ingestlab] cluster {name} is green: {cluster.hosts}")
    if secured:
        log(f"[ingestlab] secured: https with CA {cluster.credentials().ca_certs}; user {security.USER}, password in "
            f"{security.credentials_file(cluster.directory)} (`ingestlab race --cluster {name}` uses them)")
    return cluster


def stop(cluster: Cluster, timeout: float = 60, log=lambda *_: None) -> None:
    for node in cluster.nodes:
        if pid_alive(node.pid):
            os.kill(node.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for node in cluster.nodes:
        while pid_alive(node.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if pid_alive(node.pid):
            log(f"[ingestlab] {node.name} (pid {node.pid}) ignored SIGTERM for {timeout:.0f}s; killing it")
            os.kill(node.pid, signal.SIGKILL)
        node.pid = None
    f = state_file(cluster.name)
    if f.is_file():
        f.unlink()


def _node(cluster: Cluster, node_name: str) -> Node:
    for node in cluster.nodes:
        if node.name == node_name:
            return node
    raise IngestlabError(f"cluster {cluster.name!r} has no node {node_name!r}; it has {', '.join(n.name for n in cluster.nodes)}")


def kill_node(cluster: Cluster, node_name: str, timeout: float = 30) -> Node:
    """SIGKILL one node, as a crash would end it (no clean shutdown); its data stays for a restart."""
    node = _node(cluster, node_name)
    if pid_alive(node.pid):
        os.kill(node.pid, signal.SIGKILL)
        deadline = time.monotonic() + timeout
        while pid_alive(node.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
    node.pid = None
    cluster.save()
    return node


def start_node(cluster: Cluster, node_name: str, log=print) -> Node:
    """Restart one stopped node of a running cluster on its own data, and wait until it answers."""
    node = _node(cluster, node_name)
    if pid_alive(node.pid):
        raise IngestlabError(f"{node_name} of cluster {cluster.name!r} is running (pid {node.pid})")
    es_home = distribution.ensure_distribution(cluster.version, log=log)
    log(f"[ingestlab] restarting {node.name} of {cluster.name} on {node.url}")
    _start_node(es_home, distribution.spec_for(cluster.version), cluster, node, ensure_service_user(), find_java_home(), fresh=False)
    cluster.save()
    _wait_until_answers(cluster, node, timeout=180)
    return node


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
    result = {"cluster": name, "version": cluster.version, "hosts": cluster.hosts, "nodes": []}
    for n in cluster.nodes:
        result["nodes"].append({"name": n.name, "url": n.url, "pid": n.pid, "alive": pid_alive(n.pid)})
    result["running"] = any(n["alive"] for n in result["nodes"])
    try:
        result["health"] = cluster.get_json("/_cluster/health", timeout=3).get("status")
    except Exception as e:  # status must report, not fail
        result["health"] = f"unreachable ({e.__class__.__name__})"
    return result


_SIZE = re.compile(r"^\d+[kmgKMG]$")


def validate_heap(heap: str) -> str:
    if not _SIZE.match(heap):
        raise IngestlabError(f"heap {heap!r} is not a JVM size like 512m or 2g")
    return heap
