"""Real Elasticsearch nodes for the integration tests, provisioned by the pack itself."""
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request

import pytest

from ingestlab.cluster import nodes


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


def plain_esrally(*args, rally_home, timeout=600) -> subprocess.CompletedProcess:
    """Run esrally itself (not through the pack), offline, with its own RALLY_HOME."""
    from ingestlab.rally import race

    home = race.ensure_rally_home(rally_home)
    esrally = os.path.join(os.path.dirname(sys.executable), "esrally")
    return subprocess.run([esrally, *args, "--offline"], env={**os.environ, "RALLY_HOME": str(home)},
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def es_node():
    cluster = nodes.up(nodes=1, heap="1g", http_port=39280, transport_port=39380, name="ingestlab-it")
    yield cluster
    nodes.stop(cluster)


@pytest.fixture(scope="module")
def es_three_nodes():
    cluster = nodes.up(nodes=3, heap="512m", http_port=39290, transport_port=39390, name="ingestlab-it3")
    yield cluster
    nodes.stop(cluster)


@pytest.fixture(scope="session")
def es_tiny_write_queue():
    """A node for fault tests. It rejects writes (HTTP 429) as soon as two wait: the runners must retry, and
    lose nothing. Its scroll reaper runs every 10 ms, so a scroll keep-alive is enforced to the millisecond."""
    cluster = nodes.up(nodes=1, heap="512m", http_port=39285, transport_port=39385, name="ingestlab-it-q",
                       settings={"thread_pool.write.queue_size": "2", "search.keep_alive_interval": "10ms"})
    yield cluster
    nodes.stop(cluster)
