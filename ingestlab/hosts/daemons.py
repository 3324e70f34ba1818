"""A lab's Rally daemons: one per test host, in its namespace, and the coordinator's in the root namespace, all on the
lab's actor port. They and every process they fork carry ``INGESTLAB_LAB=<prefix>`` in their environment, so the lab's
processes are found by its prefix alone, also after a crash."""

from __future__ import annotations

import os
import subprocess
import sys

from ingestlab import allocator, net, paths, procs
from ingestlab.errors import IngestlabError
from ingestlab.hosts import namespaces
from ingestlab.hosts.namespaces import Host
from ingestlab.rally.home import ensure_rally_home
from ingestlab.rally.launcher import PORT_VARIABLE, TOKEN_VARIABLE
from ingestlab.runners.utils.runner_stats import VARIABLE as RUNNER_STATS

LAB_VARIABLE = "INGESTLAB_LAB"


def marker(prefix: str) -> str:
    """``INGESTLAB_LAB=<prefix>``: what every process started for the lab carries in its environment."""
    return f"{LAB_VARIABLE}={prefix}"


def start(lab, host: Host | None, log) -> None:
    """The Rally daemon of ``lab`` (a :class:`ingestlab.hosts.lab.Lab`, which calls this) on ``host`` (None: the
    coordinator's), in its load driver's group, answering on the lab's actor port; its output goes to
    ``esrallyd-<name>.log`` in the lab's directory."""
    address, name = (host.address, host.name) if host else (lab.coordinator, "coordinator")
    env = allocator.with_settings(
        {
            **os.environ,
            # one Rally home for all: the race's own config and results paths are the same on every "host"
            "RALLY_HOME": str(ensure_rally_home()),
            PORT_VARIABLE: str(lab.actor_port),
            TOKEN_VARIABLE: lab.actor_token,
            RUNNER_STATS: str(lab.runner_stats_file(host)),
            LAB_VARIABLE: lab.prefix,
        }
    )
    cmd = [
        sys.executable,
        "-m",
        "ingestlab.rally.launcher",
        "daemon",
        "start",
        f"--node-ip={address}",
        f"--coordinator-ip={lab.coordinator}",
    ]
    if host:
        cmd = namespaces.in_namespace(host, cmd)
    cmd = lab.driver_launcher(name) + cmd  # joined outside: `ip netns exec` hides /sys/fs/cgroup
    log(f"[ingestlab] starting esrallyd on {host.name if host else 'the coordinator'} ({address}:{lab.actor_port})")
    daemon_log = lab.directory / f"esrallyd-{name}.log"
    with open(daemon_log, "ab") as out:  # the daemon outlives this call: no pipe of ours may stay open in it
        proc = subprocess.run(
            cmd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=paths.REPO_ROOT, timeout=120
        )
    if proc.returncode != 0 or not net.wait_answering(address, lab.actor_port, 30):
        raise IngestlabError(f"esrallyd on {address} did not start (exit {proc.returncode}); see {daemon_log}")


def tagged(prefix: str) -> list[int]:
    """PIDs of processes started for the lab (they and their children carry ``INGESTLAB_LAB=<prefix>``)."""
    mark = marker(prefix).encode()
    return procs.carrying(mark)[mark]
