"""Real Elasticsearch nodes for the integration tests, provisioned by the pack itself."""
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request

import pytest

from ingestlab.cluster import lifecycle


def pytest_configure(config):
    """A CI job that is cancelled sends SIGTERM: end like Ctrl-C, so the fixtures stop their nodes."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def ingestlab(*args, timeout=600, env=None) -> subprocess.CompletedProcess:
    """Run the pack's CLI as a user would, capturing its output; ``env`` adds to the environment."""
    return subprocess.run([sys.executable, "-m", "ingestlab.cli", *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def port_1900_taken() -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", 1900)) == 0


def wait_for_no_other_rally(timeout: float = 60) -> None:
    """Plain esrally refuses to start while another Rally process lives (the actor processes of a race that
    just ended linger a moment): wait for them, with Rally's own test."""
    import time

    from esrally.utils import process

    deadline = time.monotonic() + timeout
    while process.find_all_other_rally_processes() and time.monotonic() < deadline:
        time.sleep(0.5)


def plain_esrally(*args, rally_home, timeout=600) -> subprocess.CompletedProcess:
    """Run esrally itself (not through the pack), offline, with its own RALLY_HOME."""
    from ingestlab.rally.home import ensure_rally_home

    home = ensure_rally_home(rally_home)
    wait_for_no_other_rally()
    esrally = os.path.join(os.path.dirname(sys.executable), "esrally")
    return subprocess.run([esrally, *args, "--offline"], env={**os.environ, "RALLY_HOME": str(home)},
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def es_node():
    cluster = lifecycle.up(lifecycle.Shape(nodes=1, heap="1g", http_port=29280, transport_port=29380, name="ingestlab-it"))
    yield cluster
    lifecycle.stop(cluster)


@pytest.fixture(scope="session")
def es_tiny_write_queue():
    """A node for fault tests. It rejects writes (HTTP 429) as soon as two wait: the runners must retry, and
    lose nothing. Its scroll reaper runs every 10 ms, so a scroll keep-alive is enforced to the millisecond."""
    cluster = lifecycle.up(lifecycle.Shape(nodes=1, heap="512m", http_port=29285, transport_port=29385, name="ingestlab-it-q",
                                           settings={"thread_pool.write.queue_size": "2", "search.keep_alive_interval": "10ms"}))
    yield cluster
    lifecycle.stop(cluster)


@pytest.fixture(scope="session")
def es_versions():
    """One node per current line (8.19 on JDK 17, 9.2 on JDK ≥ 21) and the 6.8 full distribution, shared by the suite;
    started lazily, at most once each."""
    started: dict = {}
    ports = {"6.8.23": 29430, "8.19.7": 29440, "9.2.0": 29450}

    def node(version: str):
        if version not in started:
            started[version] = lifecycle.up(lifecycle.Shape(nodes=1, version=version, heap="768m", http_port=ports[version],
                                                            transport_port=ports[version] + 100, name=f"ingestlab-it-{version}"))
        return started[version]

    yield node
    for cluster in started.values():
        lifecycle.stop(cluster)
