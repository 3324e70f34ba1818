"""What the whole suite shares: no test writes a ledger entry (devtools.ledger) into the checkout it runs from; and how
the tests share this machine when pytest-xdist runs them on several workers (``make check`` and ``make test`` run three,
``--dist loadfile``: a test file's tests stay on one worker, so its module-scoped nodes and installs are made once).
Tests marked ``default_ports`` provision a cluster on the pack's default ports and name, and test files marked ``lab``
make test hosts: each kind takes turns, one at a time across the workers."""

import contextlib
import fcntl
import os
import re
import tempfile
from pathlib import Path

import pytest


def pytest_configure(config):
    os.environ["INGESTLAB_LEDGER"] = "off"  # the commands the tests run inherit it
    # the tests' nodes compile with the JVM's first tier only: a node then takes less CPU to start and to race in test
    # mode, and the tests check what the pack does, not how fast Elasticsearch runs (docs/developing.md); a run that
    # selects the tests marked alone (`-m "integration and alone"`, make test's last), which measure, keeps the JVM's
    # defaults, as a user's nodes have them
    if not MEASURING.search(config.getoption("markexpr", "") or ""):
        os.environ.setdefault("INGESTLAB_NODE_JAVA_OPTS", "-XX:TieredStopAtLevel=1")


MEASURING = re.compile(r"(?<!not )\balone\b")  # a mark expression that selects the alone tests, not one that leaves them out


@contextlib.contextmanager
def _turn(name: str):
    """One holder at a time across the workers (a lock file in the temporary directory they share)."""
    with open(Path(tempfile.gettempdir()) / f"ingestlab-tests-{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(autouse=True)
def _default_ports_one_at_a_time(request):
    if request.node.get_closest_marker("default_ports") is None:
        yield
        return
    with _turn("default-ports"):
        yield


@pytest.fixture(scope="module", autouse=True)
def _labs_one_at_a_time(request):
    """A test file marked ``lab`` makes test hosts (namespaces, cgroups, links) in its module fixtures: one such file at a
    time, from its first fixture to its last tear-down (autouse fixtures of a scope come before the others)."""
    if request.node.get_closest_marker("lab") is None:
        yield
        return
    with _turn("labs"):
        yield
