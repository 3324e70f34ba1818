"""A PID kept for later names one process only with its start time: PIDs are used again (a long test run wraps
``pid_max``), and a node's PID that a later process was given must never be signalled as the node."""

import subprocess

from ingestlab import procs
from ingestlab.cluster.model import Node


def test_a_pid_with_its_start_time_is_that_process_and_no_later_one():
    proc = subprocess.Popen(["sleep", "30"])
    try:
        since = procs.started(proc.pid)
        assert since is not None and procs.alive(proc.pid, since)
        assert not procs.alive(proc.pid, since + 1)  # the same PID, started at another time: another process
        node = Node("node-1", 1, 2, "/tmp", pid=proc.pid, started=since + 1)
        assert not node.running
    finally:
        proc.kill()
        proc.wait()
    assert not procs.alive(proc.pid, since) and procs.started(proc.pid) is None


def test_a_node_kept_before_start_times_were_kept_is_judged_by_its_pid_alone():
    proc = subprocess.Popen(["sleep", "30"])
    try:
        assert Node("node-1", 1, 2, "/tmp", pid=proc.pid).running
    finally:
        proc.kill()
        proc.wait()
