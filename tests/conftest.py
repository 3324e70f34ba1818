"""What the whole suite shares: no test writes a ledger entry (devtools.ledger) into the checkout it runs from; and how
the tests share this machine when pytest-xdist runs them on several workers (``make check`` and ``make test`` run three,
``--dist loadfile``: a test file's tests stay on one worker, so its module-scoped nodes and installs are made once).
Tests marked ``default_ports`` provision a cluster on the pack's default ports and name, and test files marked ``lab``
make test hosts: each kind takes turns, one at a time across the workers."""

import contextlib
import fcntl
import os
import tempfile
from pathlib import Path

import pytest


def pytest_configure(config):
    os.environ["INGESTLAB_LEDGER"] = "off"  # the commands the tests run inherit it


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


def _long(item) -> bool:
    """A long test that runs beside others: it races (integration) or computes at size (slow), and does not run alone."""
    marked = {m.name for m in item.iter_markers()}
    return bool(marked & {"integration", "slow"}) and "alone" not in marked


@pytest.hookimpl(trylast=True)  # after -m has left out the tests this run does not run
def pytest_collection_modifyitems(session, config, items):
    """The files with the most long tests first (pytest-xdist hands whole files out in this order; ``make`` passes
    ``--no-loadscope-reorder``, which needs pytest-xdist 3.8): the suite's long files start at once and its many short
    unit files fill the workers at the end, instead of a long file starting last while the other workers wait."""
    weight: dict = {}
    for item in items:
        long_count, count = weight.get(item.path, (0, 0))
        weight[item.path] = (long_count + _long(item), count + 1)
    items.sort(key=lambda item: (-weight[item.path][0], -weight[item.path][1], str(item.path)))
