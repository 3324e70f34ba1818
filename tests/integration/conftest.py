"""Real Elasticsearch nodes for the integration tests, provisioned by the pack itself.

``make check`` and ``make test`` run the tests on three pytest-xdist workers (a file's tests on one). Each worker starts
its own session nodes: their ports move by 1000 and their names take the worker's number (:func:`port`, :func:`named`).
Plain esrally and stock opensearch-benchmark bind 127.0.0.1:1900 and refuse to start beside another Rally process: they
run one at a time across the workers (:func:`port_1900_to_ourselves`)."""

import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from ingestlab.cluster import lifecycle


def pytest_configure(config):
    """A CI job that is cancelled sends SIGTERM: end like Ctrl-C, so the fixtures stop their nodes."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)


WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")  # gw0, gw1, ... under pytest-xdist; empty without it
WORKER_INDEX = int(WORKER[2:]) if WORKER.startswith("gw") else 0


def port(number: int) -> int:
    """A session node's fixed port, 1000 higher per pytest-xdist worker (all stay below the ephemeral range)."""
    return number + 1000 * WORKER_INDEX


def named(name: str) -> str:
    """A session node's cluster name, with the pytest-xdist worker's number after the first worker's."""
    return f"{name}-w{WORKER_INDEX}" if WORKER_INDEX else name


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def ingestlab(*args, timeout=600, env=None) -> subprocess.CompletedProcess:
    """Run the pack's CLI as a user would, capturing its output; ``env`` adds to the environment."""
    return subprocess.run(
        [sys.executable, "-m", "ingestlab.cli", *args], capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})}
    )


def devtools_bench(*args, timeout=600, env=None) -> subprocess.CompletedProcess:
    """Run the developers' tools (``python -m devtools.bench``) from the checkout, as their docs say, capturing their output."""
    from devtools.bench import CHECKOUT, child_env

    return subprocess.run(
        [sys.executable, "-m", "devtools.bench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=CHECKOUT,
        env=child_env({**os.environ, **(env or {})}),
    )


def port_1900_taken() -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", 1900)) == 0


def wait_for_no_other_rally(timeout: float = 60) -> None:
    """Plain esrally refuses to start while another Rally process lives (the actor processes of a race that
    just ended linger a moment): wait for them, with Rally's own test, and for port 1900 to be free."""
    import psutil
    from esrally.utils import process

    def others() -> bool:  # Rally's own test, read here (the pack's launcher replaces find_all_other_rally_processes in-process)
        for p in psutil.process_iter():
            try:
                if p.pid != os.getpid() and process.is_rally_process(p):
                    return True
            except psutil.Error:
                continue
        return False

    deadline = time.monotonic() + timeout
    while (others() or port_1900_taken()) and time.monotonic() < deadline:
        time.sleep(0.5)


@contextlib.contextmanager
def port_1900_to_ourselves():
    """Run plain esrally, stock opensearch-benchmark (both on 127.0.0.1:1900) or anything Rally's process test counts as
    another Rally (a python whose command line names esrally) inside this: one such at a time across pytest-xdist's
    workers, each after the one before has gone, actor processes and all."""
    with open(Path(tempfile.gettempdir()) / "ingestlab-tests-port-1900.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            wait_for_no_other_rally()
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def plain_esrally(*args, rally_home, timeout=600) -> subprocess.CompletedProcess:
    """Run esrally itself (not through the pack), offline, with its own RALLY_HOME; ``seconds`` on the answer is how
    long esrally ran."""
    from ingestlab.rally.home import ensure_rally_home

    home = ensure_rally_home(rally_home)
    esrally = os.path.join(os.path.dirname(sys.executable), "esrally")
    for attempt in range(3):
        with port_1900_to_ourselves():
            started = time.monotonic()
            proc = subprocess.run(
                [esrally, *args, "--offline"], env={**os.environ, "RALLY_HOME": str(home)}, capture_output=True, text=True, timeout=timeout
            )
        proc.seconds = time.monotonic() - started  # esrally's own time, without the wait for port 1900
        # esrally refuses beside any python whose command line names esrally (a test on another worker may start one
        # between the wait and esrally's own look): that refusal is the machine's, not the code's; try again
        if "There are other Rally processes running on this machine" not in proc.stdout + proc.stderr:
            break
    return proc


@pytest.fixture(scope="session")
def es_node():
    cluster = lifecycle.up(
        lifecycle.Shape(nodes=1, heap="1g", http_port=port(29280), transport_port=port(29380), name=named("ingestlab-it"))
    )
    yield cluster
    lifecycle.stop(cluster)


@pytest.fixture(scope="session")
def es_tiny_write_queue():
    """A node for fault tests. It rejects writes (HTTP 429) as soon as two wait: the runners must retry, and
    lose nothing. Its scroll reaper runs every 10 ms, so a scroll keep-alive is enforced to the millisecond."""
    cluster = lifecycle.up(
        lifecycle.Shape(
            nodes=1,
            heap="512m",
            http_port=port(29285),
            transport_port=port(29385),
            name=named("ingestlab-it-q"),
            settings={"thread_pool.write.queue_size": "2", "search.keep_alive_interval": "10ms"},
        )
    )
    yield cluster
    lifecycle.stop(cluster)


@pytest.fixture(scope="session")
def es_versions():
    """One node per current line (8.19 on JDK 17, 9.2 on JDK ≥ 21) and the 6.8 full distribution, shared by the suite;
    started lazily, at most once each."""
    started: dict = {}
    ports = {"6.8.23": port(29430), "8.19.7": port(29440), "9.2.0": port(29450)}

    def node(version: str):
        if version not in started:
            started[version] = lifecycle.up(
                lifecycle.Shape(
                    nodes=1,
                    version=version,
                    heap="768m",
                    http_port=ports[version],
                    transport_port=ports[version] + 100,
                    name=named(f"ingestlab-it-{version}"),
                )
            )
        return started[version]

    yield node
    for cluster in started.values():
        lifecycle.stop(cluster)
