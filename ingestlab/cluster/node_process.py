"""One Elasticsearch node as a process: its settings, its private config dir, starting it as the service
user (inside a test host's network namespace when it has one), and the tail of its log when it fails."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import time
from pathlib import Path

from ingestlab import procs
from ingestlab.cluster import security
from ingestlab.cluster.model import Cluster, Node
from ingestlab.cluster.service_user import ServiceUser
from ingestlab.cluster.versions import DistributionSpec
from ingestlab.errors import IngestlabError

PRODUCTION_FILE_LIMIT = 65535  # what Elasticsearch's bootstrap checks ask of a node on a non-loopback address
PRODUCTION_MAP_COUNT = 262144
EXTRA_JAVA_OPTS = "INGESTLAB_NODE_JAVA_OPTS"  # more JVM options for every node the pack starts (the tests set one)
# the system property that carries them to the node's JVM arguments, where a race's preflight finds them
EXTRA_JAVA_OPTS_PROPERTY = "-Dingestlab.node_java_opts="
_HEAP = ("-Xms", "-Xmx", "-XX:InitialHeapSize", "-XX:MaxHeapSize", "-XX:MinHeapSize")


def extra_java_options() -> list[str]:
    """The JVM options ``INGESTLAB_NODE_JAVA_OPTS`` adds after the heap; each must be one (``-X…``, ``-D…``), and none
    a heap size (``--heap`` sets it, and the line that starts a node says it)."""
    options = os.environ.get(EXTRA_JAVA_OPTS, "").split()
    for option in options:
        if not option.startswith("-"):
            raise IngestlabError(f"{EXTRA_JAVA_OPTS}: {option!r} is not a JVM option (each starts with '-')")
        if option.startswith(_HEAP):
            raise IngestlabError(f"{EXTRA_JAVA_OPTS}: {option!r} sets the heap; give its size with --heap")
        if "|" in option:  # the property that names the options to the race (java_opts) separates them with it
            raise IngestlabError(f"{EXTRA_JAVA_OPTS}: {option!r} holds a '|', which the pack cannot record; leave it out")
    return options


def java_options_words(cluster: Cluster) -> str:
    """ ", with INGESTLAB_NODE_JAVA_OPTS=…" for the lines that start or restart a node, or "" without such options."""
    return f", with {EXTRA_JAVA_OPTS}={' '.join(cluster.java_options)}" if cluster.java_options else ""


def added_java_options(arguments) -> tuple:
    """The options :func:`java_opts`' property names among a node's JVM arguments (as ``_nodes/jvm`` lists them)."""
    found = [a[len(EXTRA_JAVA_OPTS_PROPERTY) :] for a in arguments if a.startswith(EXTRA_JAVA_OPTS_PROPERTY)]
    return tuple(dict.fromkeys(o for value in found for o in value.split("|") if o))


def java_opts(cluster: Cluster) -> str:
    """The node's ``ES_JAVA_OPTS`` (or ``OPENSEARCH_JAVA_OPTS``): its heap, then the options the cluster was provisioned
    with and the property that names them."""
    extra = cluster.java_options
    marker = [EXTRA_JAVA_OPTS_PROPERTY + "|".join(extra)] if extra else []
    return " ".join([f"-Xms{cluster.heap}", f"-Xmx{cluster.heap}", *extra, *marker])


def node_settings(spec: DistributionSpec, cluster: Cluster, node: Node) -> dict:
    settings = {
        "cluster.name": cluster.name,
        "node.name": node.name,
        "network.host": node.address,
        "http.port": str(node.http_port),
        "transport.port" if spec.major >= 7 or spec.engine == "opensearch" else "transport.tcp.port": str(node.transport_port),
        "path.data": str(data_dir(node)),
        "path.logs": str(Path(node.directory) / "logs"),
        # a benchmark must not stop because a shared disk is filling up
        "cluster.routing.allocation.disk.threshold_enabled": "false",
        **spec.node_settings,
    }
    if len(cluster.nodes) == 1:
        settings["discovery.type"] = "single-node"
    else:
        seeds = ",".join(f"{n.address}:{n.transport_port}" for n in cluster.nodes)
        if spec.engine == "opensearch":
            settings["discovery.seed_hosts"] = seeds
            settings["cluster.initial_cluster_manager_nodes"] = ",".join(n.name for n in cluster.nodes)
        elif spec.major >= 7:
            settings["discovery.seed_hosts"] = seeds
            settings["cluster.initial_master_nodes"] = ",".join(n.name for n in cluster.nodes)
        else:
            settings["discovery.zen.ping.unicast.hosts"] = seeds
            settings["discovery.zen.minimum_master_nodes"] = str(len(cluster.nodes) // 2 + 1)
    if cluster.security:
        settings.update(security.node_settings())
    settings.update(cluster.settings)
    if spec.engine == "elasticsearch" and spec.major < 7:  # no indexing pressure before 7.9: nothing to raise
        settings = {k: v for k, v in settings.items() if not k.startswith("indexing_pressure.")}
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


def log_tail(node: Node, lines: int = 30) -> str:
    candidates = [node.log_file, *sorted((Path(node.directory) / "logs").glob("*.log"))]
    chunks = []
    for f in candidates:
        if f.is_file() and f.stat().st_size and f.name != "gc.log":
            tail = f.read_text(errors="replace").splitlines()[-lines:]
            chunks.append(f"--- {f} (last {len(tail)} lines)\n" + "\n".join(tail))
    return "\n".join(chunks[:2]) or "(no log output)"


def data_dir(node: Node) -> Path:
    """Where the node keeps its indices (its ``path.data``)."""
    return Path(node.data_path or Path(node.directory) / "data")


def drop_data(node: Node) -> int:
    """Empty a stopped node's data directory, keeping its logs and config; the bytes it freed."""
    where = data_dir(node)
    if not where.is_dir():
        return 0
    freed = sum(f.stat().st_size for f in where.rglob("*") if f.is_file() and not f.is_symlink())
    for child in where.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    return freed


def _pid_in(pid_file: Path) -> int | None:
    """The PID a node wrote, or None while there is none (the file may exist empty before the number is written)."""
    try:
        text = pid_file.read_text().strip()
    except FileNotFoundError:
        return None
    return int(text) if text.isdigit() else None


def _prepare_fresh(es_home: Path, cluster: Cluster, node_dir: Path, user: ServiceUser, env: dict) -> None:
    if node_dir.exists():
        shutil.rmtree(node_dir)
    for sub in ("data", "logs", "tmp"):
        (node_dir / sub).mkdir(parents=True)
    config = _node_config_dir(es_home, node_dir)
    if cluster.security:
        security.install_on_node(es_home, config, cluster.directory, cluster.credentials(), env)
    user.chown(node_dir)


def start(
    es_home: Path, spec: DistributionSpec, cluster: Cluster, node: Node, user: ServiceUser, java_home: Path, fresh: bool = True
) -> None:
    """Start one node and record its PID; ``fresh`` empties its directory first, else it restarts on its data."""
    node_dir = Path(node.directory)
    prefix = spec.env_prefix
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        f"{prefix}_JAVA_HOME": str(java_home),
        "JAVA_HOME": str(java_home),
        f"{prefix}_JAVA_OPTS": java_opts(cluster),
        f"{prefix}_PATH_CONF": str(node_dir / "config"),
        f"{prefix}_TMPDIR": str(node_dir / "tmp"),
        "HOME": str(node_dir),
        "LANG": "C.UTF-8",
    }
    if fresh:
        _prepare_fresh(es_home, cluster, node_dir, user, env)
    elif not (node_dir / "config").is_dir():
        raise IngestlabError(
            f"node {node.name} has no directory at {node_dir} to restart from; start the cluster with `ingestlab cluster up`"
        )
    pid_file = node_dir / "es.pid"
    pid_file.unlink(missing_ok=True)  # a node that was killed leaves its PID file behind
    cmd = [str(es_home / "bin" / spec.artifact), "-d", "-p", str(pid_file)]
    cmd += [f"-E{k}={v}" for k, v in node_settings(spec, cluster, node).items()]
    kwargs = {} if user.is_current else {"user": user.uid, "group": user.gid, "extra_groups": []}
    if node.namespace:  # join its cgroups (`ip netns exec` hides /sys/fs/cgroup), enter the namespace, drop to the user
        cmd = [*node.launcher, "ip", "netns", "exec", node.namespace, *user.drop_privileges(), *cmd]
        kwargs = {}
    with open(node.log_file, "ab") as out:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=node_dir, env=env, **kwargs)
    if proc.returncode != 0:
        raise IngestlabError(f"node {node.name} did not start (exit {proc.returncode})\n{log_tail(node)}")
    deadline = time.monotonic() + 30
    while (pid := _pid_in(pid_file)) is None and time.monotonic() < deadline:
        time.sleep(0.2)
    if pid is None:
        raise IngestlabError(f"node {node.name} wrote no PID file\n{log_tail(node)}")
    node.pid, node.started = pid, procs.started(pid)


def meet_bootstrap_checks(log=print) -> None:
    """For nodes on non-loopback addresses (bootstrap checks): check the file limit, raise the map count machine-wide."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < PRODUCTION_FILE_LIMIT:
        raise IngestlabError(
            f"nodes on non-loopback addresses need a file limit of {PRODUCTION_FILE_LIMIT} (this process may "
            f"open {hard}); raise it (`ulimit -n {PRODUCTION_FILE_LIMIT}` where permitted) or use a "
            f"loopback-class subnet such as 127.213.0"
        )
    setting = Path("/proc/sys/vm/max_map_count")
    current = int(setting.read_text())
    if current >= PRODUCTION_MAP_COUNT:
        return
    try:
        setting.write_text(str(PRODUCTION_MAP_COUNT))
    except OSError as e:
        raise IngestlabError(
            f"vm.max_map_count is {current}; nodes on test hosts need {PRODUCTION_MAP_COUNT} "
            f"(`sysctl -w vm.max_map_count={PRODUCTION_MAP_COUNT}` as root): {e.strerror}"
        ) from None
    log(f"[ingestlab] raised vm.max_map_count from {current} to {PRODUCTION_MAP_COUNT} (Elasticsearch's bootstrap check)")
