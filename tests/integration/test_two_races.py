"""Two races at once on one machine (the pack's own tests run three; a user may run a nightly beside a sweep). Each race's
actor system hears only its own messages: an exit request from another actor system to one of its workers (what a race
that ends sends to an address its own actor gave up, once another race's worker holds that port) is dropped, and the
race runs on. A worker that does end before its task is done fails the race, named by Rally's own cause."""

import os
import signal
import subprocess
import sys
import time
import uuid

import psutil
import pytest

from ingestlab import net, procs

pytestmark = pytest.mark.integration

FOREIGN = """
import sys, time
from thespian.actors import ActorExitRequest, ActorSystem
from thespian.system.transport import TCPTransport

worker_port, admin_port = int(sys.argv[1]), int(sys.argv[2])
TCPTransport.DEFAULT_ADMIN_PORT = admin_port
system = ActorSystem("multiprocTCPBase", capabilities={"Convention Address.IPv4": "127.0.0.1", "ip": "127.0.0.1"})
try:
    system.tell(TCPTransport.TCPTransport.getAddressFromString(("127.0.0.1", worker_port)), ActorExitRequest())
    time.sleep(1)
finally:
    system.shutdown()
"""


def _race(cluster, mark: str, log, seconds: int = 20) -> subprocess.Popen:
    """A redline-shaped race of posts that keeps one worker busy for ``seconds``, its processes marked with ``mark``."""
    args = [
        sys.executable,
        "-m",
        "ingestlab.cli",
        "race",
        "posts",
        "--target-hosts",
        cluster.hosts,
        "--challenge",
        "redline",
        "--track-param",
        f"redline_time_period={seconds}",
        "--track-param",
        "redline_warmup_time_period=2",
        "--track-param",
        "redline_clients=1",
        "--track-param",
        "target_throughput=20",
        "--track-param",
        f"index_name=two-{mark[:6]}",
    ]
    env = {**os.environ, "IT_RACE_MARK": mark, "THESPLOG_FILE": str(log), "THESPLOG_THRESHOLD": "WARNING"}
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _worker(mark: str, proc: subprocess.Popen, timeout: float = 180) -> psutil.Process:
    """The race's load-driver worker once it races (the pack's tracks name it ``rally-worker``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        for pid in procs.carrying(f"IT_RACE_MARK={mark}".encode())[f"IT_RACE_MARK={mark}".encode()]:
            try:
                p = psutil.Process(pid)
                if p.name() == "rally-worker" and any(c.status == psutil.CONN_LISTEN for c in p.connections("tcp")):
                    return p
            except psutil.Error:
                continue
        time.sleep(0.5)
    out, err = proc.communicate(timeout=60) if proc.poll() is not None else ("", "")
    pytest.fail(f"no worker of the race appeared: {out[-2000:]} {err[-2000:]}")


def _listening(p: psutil.Process) -> set[int]:
    return {c.laddr.port for c in p.connections("tcp") if c.status == psutil.CONN_LISTEN}


def _port(worker: psutil.Process) -> int:
    """The worker actor's own port (a forked actor also holds the sockets its parent listened on)."""
    (own,) = _listening(worker) - _listening(worker.parent())
    return own


def test_another_actor_systems_exit_request_to_a_worker_is_dropped_and_the_race_runs_on(es_node, tmp_path):
    mark, log = uuid.uuid4().hex, tmp_path / "thespian.log"
    race = _race(es_node, mark, log)
    try:
        port = _port(_worker(mark, race))
        sent = subprocess.run([sys.executable, "-c", FOREIGN, str(port), str(net.free_port())], capture_output=True, text=True, timeout=60)
        assert sent.returncode == 0, sent.stderr[-2000:]
        out, err = race.communicate(timeout=300)
    finally:
        if race.poll() is None:
            race.send_signal(signal.SIGTERM)
            race.wait(60)
    assert race.returncode == 0, out[-3000:] + err[-3000:]
    assert "dropped ActorExitRequest" in log.read_text() and "a message of another actor system" in log.read_text()


def test_a_worker_that_ends_early_fails_the_race_named_by_rallys_cause(es_node, tmp_path):
    mark = uuid.uuid4().hex
    race = _race(es_node, mark, tmp_path / "thespian.log")
    try:
        _worker(mark, race).send_signal(signal.SIGTERM)
        out, err = race.communicate(timeout=300)
    finally:
        if race.poll() is None:
            race.send_signal(signal.SIGTERM)
            race.wait(60)
    assert race.returncode == 2, out[-3000:] + err[-3000:]
    first = next(line for line in err.splitlines() if "the race failed" in line)
    assert "the race failed: " in first and "Worker [0] has exited prematurely." in first, err[-3000:]
    assert "Check the log files" not in err
