"""Test hosts on one machine: network namespaces ``<prefix>-hN`` (address ``<subnet>.(10+N)`` on ``eth0``) joined by
veths ``<prefix>-vN`` to the bridge ``<prefix>-br``, which holds the coordinator's ``<subnet>.1``. The default subnet
is loopback-class, so Elasticsearch skips its production bootstrap checks; 127/8 is routed between them with
``route_localnet``. Everything is named by the prefix, so :func:`delete` finds it again. Needs root and ``ip``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from dataclasses import dataclass
from functools import partial

from ingestlab import procs
from ingestlab.errors import IngestlabError

DEFAULT_PREFIX = "ingl"
DEFAULT_SUBNET = "127.213.0"
_PREFIX = re.compile(r"^[a-z][a-z0-9]{0,7}$")  # interface names: <prefix>-br, <prefix>-v12 must stay under 16 bytes
_SUBNET = re.compile(r"^(\d{1,3})\.(\d{1,3})\.(\d{1,3})$")


@dataclass(frozen=True)
class Host:
    name: str  # h1, h2, ...
    namespace: str
    address: str
    veth: str  # the root-namespace end, on the bridge: down = the host is cut off


def check_names(prefix: str, subnet: str) -> None:
    if not _PREFIX.match(prefix):
        raise IngestlabError(f"host prefix {prefix!r} must be 1-8 lower-case letters or digits, starting with a letter")
    m = _SUBNET.match(subnet)
    if not m or not all(0 <= int(x) <= 255 for x in m.groups()):
        raise IngestlabError(f"subnet {subnet!r} must be the first three numbers of an IPv4 /24, like 10.213.0")


def bridge_name(prefix: str) -> str:
    return f"{prefix}-br"


def _route_localnet(interface: str, namespace: str | None = None) -> None:
    cmd = ["sysctl", "-qw", f"net.ipv4.conf.{interface}.route_localnet=1"]
    proc = subprocess.run(["ip", "netns", "exec", namespace, *cmd] if namespace else cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise IngestlabError(f"`{' '.join(cmd)}` failed{' in ' + namespace if namespace else ''}: {proc.stderr.strip()}")


def coordinator_address(subnet: str) -> str:
    return f"{subnet}.1"


def hosts_for(prefix: str, subnet: str, count: int) -> list[Host]:
    if not 1 <= count <= 32:
        raise IngestlabError(f"between 1 and 32 hosts, not {count}")
    return [Host(f"h{i}", f"{prefix}-h{i}", f"{subnet}.{10 + i}", f"{prefix}-v{i}") for i in range(1, count + 1)]


def unavailable_reason() -> str | None:
    """Why namespaces cannot be made here, or None when they can (tries one and removes it)."""
    if os.geteuid() != 0:
        return "network namespaces need root (CAP_NET_ADMIN and CAP_SYS_ADMIN); run as root"
    if not shutil.which("ip"):
        return "iproute2's `ip` is missing; install it (apt-get install iproute2)"
    probe = f"inglprobe{uuid.uuid4().hex[:6]}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"`ip netns add` is not permitted here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "delete", probe], capture_output=True)
    return None


def run(tool: str, *args: str, namespace: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    """iproute2's ``tool`` (``ip``, ``tc``) in ``namespace`` (None: the root's); an error naming it if it fails and ``check``."""
    cmd = [tool, *(["-n", namespace] if namespace else []), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise IngestlabError(f"`{' '.join(cmd)}` failed: {proc.stderr.strip()}")
    return proc


_ip = partial(run, "ip")


def existing_namespaces(prefix: str) -> list[str]:
    out = _ip("netns", "list", check=False).stdout
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    return sorted((n for n in names if re.fullmatch(rf"{re.escape(prefix)}-h\d+", n)), key=lambda n: int(n.rsplit("h", 1)[1]))


def existing_links(prefix: str) -> list[str]:
    out = _ip("-o", "link", "show", check=False).stdout
    names = [line.split(":")[1].strip().split("@")[0] for line in out.splitlines() if line.count(":") >= 2]
    return [n for n in names if n == bridge_name(prefix) or re.fullmatch(rf"{re.escape(prefix)}-v\d+", n)]


def create(prefix: str, subnet: str, count: int) -> list[Host]:
    """Make the bridge and ``count`` hosts; on any failure removes whatever was made and raises."""
    check_names(prefix, subnet)
    if existing_namespaces(prefix) or existing_links(prefix):
        raise IngestlabError(f"test hosts with prefix {prefix!r} exist already; remove them with `ingestlab hosts down --prefix {prefix}`")
    hosts = hosts_for(prefix, subnet, count)
    bridge = bridge_name(prefix)
    loopback = subnet.startswith("127.")
    try:
        _ip("link", "add", bridge, "type", "bridge")
        if loopback:
            _route_localnet(bridge)
        _ip("addr", "add", f"{coordinator_address(subnet)}/24", "dev", bridge)
        _ip("link", "set", bridge, "up")
        for host in hosts:
            _ip("netns", "add", host.namespace)
            _ip("link", "set", "lo", "up", namespace=host.namespace)
            _ip("link", "add", host.veth, "type", "veth", "peer", "name", "eth0", "netns", host.namespace)
            _ip("link", "set", host.veth, "master", bridge)
            if loopback:
                _route_localnet(host.veth)
                for interface in ("all", "eth0"):
                    _route_localnet(interface, host.namespace)
                # lo keeps its own "local 127.0.0.1"; without the /8 the other hosts' 127.x addresses leave by eth0
                _ip("route", "del", "local", "127.0.0.0/8", "dev", "lo", "table", "local", namespace=host.namespace)
            _ip("link", "set", host.veth, "up")
            _ip("addr", "add", f"{host.address}/24", "dev", "eth0", namespace=host.namespace)
            _ip("link", "set", "eth0", "up", namespace=host.namespace)
    except BaseException:
        delete(prefix)
        raise
    return hosts


def pids_in(namespace: str) -> list[int]:
    out = _ip("netns", "pids", namespace, check=False).stdout
    return [int(p) for p in out.split() if p.isdigit()]


def delete(prefix: str, timeout: float = 30.0) -> list[str]:
    """Stop the processes left in the prefix's namespaces, remove namespaces, veths and bridge; what it removed (safe if none)."""
    removed = []
    namespaces = existing_namespaces(prefix)
    procs.stop(lambda: [p for ns in namespaces for p in pids_in(ns)], grace=timeout)
    for ns in namespaces:
        _ip("netns", "delete", ns, check=False)
        removed.append(f"namespace {ns}")
    for link in existing_links(prefix):  # veths go with their namespace; the bridge is left
        if _ip("link", "delete", link, check=False).returncode == 0:
            removed.append(f"link {link}")
    return removed


def set_link(host: Host, up: bool) -> None:
    """Cut a host off (or reconnect it), as if its cable were pulled: its processes keep running."""
    _ip("link", "set", host.veth, "up" if up else "down")


def in_namespace(host: Host, cmd: list[str]) -> list[str]:
    """``cmd`` run inside the host's namespace (as root; drop privileges inside, after the switch)."""
    return ["ip", "netns", "exec", host.namespace, *cmd]
