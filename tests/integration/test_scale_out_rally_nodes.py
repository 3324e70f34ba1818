"""Test hosts whose nodes Rally provisions itself, as the README shows for real machines: esrally
install/start/stop with the pack's car configs inside each host's namespace; then a distributed race."""

import pytest

from ingestlab.hosts import lab as labs
from ingestlab.hosts import namespaces
from tests.integration.conftest import get_json, ingestlab

pytestmark = [pytest.mark.integration, pytest.mark.lab]  # test hosts of its own: one such file at a time
PREFIX, SUBNET = "ingq", "127.213.6"


@pytest.fixture(scope="module")
def rally_lab():
    reason = namespaces.unavailable_reason()
    if reason:
        pytest.skip(f"test hosts need network namespaces: {reason}")
    up = ingestlab("hosts", "up", "--hosts", "3", "--prefix", PREFIX, "--subnet", SUBNET, "--provision", "rally", timeout=900)
    try:
        assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
        yield labs.require(PREFIX)
    finally:
        down = ingestlab("hosts", "down", "--prefix", PREFIX, timeout=300)
        assert down.returncode == 0, down.stdout[-2000:] + down.stderr[-2000:]
        assert "esrally stop" in down.stdout
        assert labs.leftovers(PREFIX) == []


def test_rally_started_one_node_per_host_from_the_packs_car(rally_lab):
    assert rally_lab.provision == "rally" and sorted(rally_lab.installations) == ["h1", "h2", "h3"]
    nodes = get_json(f"{rally_lab.url}/_nodes/http,settings")["nodes"].values()
    assert sorted(n["http"]["publish_address"] for n in nodes) == [f"{SUBNET}.{10 + i}:29200" for i in (1, 2, 3)]
    assert {n["settings"]["cluster"]["name"] for n in nodes} == {"rally-benchmark"}  # Rally's own cluster name
    proc = ingestlab("race", "posts", "--hosts", PREFIX, "--test-mode", timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert get_json(f"{rally_lab.url}/posts/_count")["count"] == 1000
