"""Scale-out on test hosts: three network namespaces, each with one Elasticsearch node and one esrallyd,
the coordinator here; the reindex study's scale-out challenge raced with Rally's --load-driver-hosts.
A host cut off mid-race stops the race with an error naming it; tear-down leaves nothing behind."""

import os
import re
import subprocess
import sys
import time
import uuid

import pytest

from ingestlab import net
from ingestlab.hosts import lab as labs
from ingestlab.hosts import namespaces
from ingestlab.rally import results
from ingestlab.rally.home import runner_stats_file
from ingestlab.runners.utils.runner_stats import read
from tests.integration.conftest import get_json, ingestlab

pytestmark = [pytest.mark.integration, pytest.mark.lab]  # test hosts of its own: one such file at a time
PREFIX, SUBNET = "ingt", "127.213.7"
SMALL = [
    "--test-mode",
    "--track-param",
    "wiki_pages=3000",
    "--track-param",
    "source_shards=3",
    "--track-param",
    "source_index=so-source",
    "--track-param",
    "dest_index=so-dest",
    "--track-param",
    "repetitions=1",
]


@pytest.fixture(scope="module")
def lab():
    reason = namespaces.unavailable_reason()
    if reason:
        pytest.skip(f"test hosts need network namespaces: {reason}")
    up = ingestlab("hosts", "up", "--hosts", "3", "--prefix", PREFIX, "--subnet", SUBNET, timeout=900)
    try:
        assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
        yield labs.require(PREFIX)
    finally:
        recorded = labs.Lab.load(PREFIX)
        down = ingestlab("hosts", "down", "--prefix", PREFIX, timeout=300)
        assert down.returncode == 0, down.stdout[-2000:] + down.stderr[-2000:]
        assert labs.leftovers(PREFIX) == []
        if recorded:  # nothing listens any more on the coordinator's actor port or the nodes' ports
            assert not net.answers(recorded.coordinator, recorded.actor_port)
            assert not any(net.answers(h.address, 29200) for h in recorded.hosts)


def test_three_drivers_each_copy_their_own_nodes_primaries(lab):
    status = ingestlab("hosts", "status", "--prefix", PREFIX)
    assert '"esrallyd": false' not in status.stdout and '"elasticsearch": false' not in status.stdout, status.stdout
    tag = f"it-{uuid.uuid4().hex[:8]}"
    proc = ingestlab("race", "wikipedia", "--challenge", "scale-out", "--hosts", PREFIX, "--tag", f"run:{tag}", *SMALL, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    stored = results.latest_race({"study": "wikipedia", "run": tag})
    assert all(r.error_rate == 0 for r in results.task_results(stored).values())
    stats = [s for s in read(runner_stats_file(stored["race-id"])) if s.get("task", "").startswith("scale-out-")]
    local = [s for s in stats if s["task"] == "scale-out-local"]
    # one client on each host, talking to the node on its own host, reading that node's primaries only
    assert sorted((s["load_driver"], s["node"]) for s in local) == [("h1", "node-1"), ("h2", "node-2"), ("h3", "node-3")]
    assert sum(s["docs"] for s in local) == 1000 and sum(s["acknowledged"] for s in local) == 1000
    shards = [shard for s in local for shard in s["shards"]]
    assert sorted(shards, key=int) == ["0", "1", "2"]
    one_tool = [s for s in stats if s["task"] == "scale-out-sliced"]
    assert [(s["load_driver"], s["docs"]) for s in one_tool] == [("h1", 1000)]
    assert get_json(f"{lab.url}/so-dest/_count")["count"] == 1000
    assert "### Scale-out: one tool vs. one tool per node" in proc.stdout
    assert "| one tool per node: its local primaries, raw | 3 | 3 | 1 | 1,000 |" in proc.stdout
    # the workers ran under the hosts' daemons, not under this race's esrally: their peaks are found all the same
    workers = re.search(r"load-driver workers \((\d+)\) peaked at", proc.stdout)
    assert workers and int(workers.group(1)) >= 3, proc.stdout[-2000:]


def test_a_driver_host_cut_off_mid_race_stops_it_with_an_error_naming_the_host(lab, tmp_path):
    tag = f"it-{uuid.uuid4().hex[:8]}"
    out = tmp_path / "race.out"
    with open(out, "w") as f:
        racing = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ingestlab.cli",
                "race",
                "wikipedia",
                "--challenge",
                "scale-out",
                "--hosts",
                PREFIX,
                "--tag",
                f"run:{tag}",
                *SMALL,
                "--track-param",
                "repetitions=4",
            ],
            stdout=f,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    try:
        deadline = time.monotonic() + 300
        while "Race id is" not in out.read_text() and racing.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
        time.sleep(8)  # into the scale-out runs
        assert racing.poll() is None, "the race ended before the host could be cut: " + out.read_text()[-2000:]
        cut = ingestlab("hosts", "cut", "--host", "h2", "--prefix", PREFIX)
        assert cut.returncode == 0, cut.stderr
        racing.wait(timeout=300)
    finally:
        if racing.poll() is None:
            racing.kill()
        ingestlab("hosts", "restore", "--host", "h2", "--prefix", PREFIX)
    text = out.read_text()
    assert racing.returncode != 0
    assert f"load-driver host h2 ({SUBNET}.12) stopped answering on Rally's actor port" in text, text[-3000:]
    assert "nothing of it is kept as a result" in text
    assert results.latest_race({"study": "wikipedia", "run": tag}) is None  # no race stored as a result
    assert "Traceback" not in text
    print(text[text.find("[ingestlab] load-driver host") :][:1500])  # shown with -s: what the user sees
