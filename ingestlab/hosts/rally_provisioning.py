"""Nodes on the test hosts provisioned by Rally itself, as on real machines: ``esrally install`` with the
pack's car configs (``--team-path``), then ``esrally start`` and, at tear-down, ``esrally stop``, each run
inside the host's namespace as the service user (Elasticsearch and Rally's provisioning refuse root).
Offline: the pack's distribution is placed in Rally's cache first, as for ``from-distribution``."""
from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import uuid

from ingestlab.cluster import nodes
from ingestlab.errors import IngestlabError
from ingestlab.hosts import namespaces

HTTP_PORT = nodes.DEFAULT_HTTP_PORT
TRANSPORT_PORT = HTTP_PORT + 100  # Rally's choice: the HTTP port + 100


def _esrally(host, args: list[str], version: str, log) -> subprocess.CompletedProcess:
    from ingestlab.rally.from_distribution import service_rally

    user, venv, rally_home, env = service_rally(version, log=lambda *_: None)
    drop = [] if user.is_current else ["setpriv", f"--reuid={user.uid}", f"--regid={user.gid}", "--clear-groups", "--"]
    cmd = namespaces.in_namespace(host, [*drop, str(venv / "bin" / "esrally"), *args, "--quiet"])
    log(f"[ingestlab] {host.name}: esrally {' '.join(args)}")
    return subprocess.run(cmd, env=env, cwd=str(rally_home), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)


def install_and_start(hosts: list, version: str, car: str, installations: dict, log=print) -> None:
    """One node per host; fills ``installations`` ({host name: installation id}) as it goes, so that a
    failure half-way still leaves what to stop."""
    from ingestlab.rally.from_distribution import TEAM_PATH, service_rally

    service_rally(version, log=log)  # the service venv and the distribution in Rally's cache, once
    seeds = ",".join(f"{h.address}:{TRANSPORT_PORT}" for h in hosts)
    masters = ",".join(f"node-{i}" for i in range(1, len(hosts) + 1))
    for i, host in enumerate(hosts, 1):
        installation = str(uuid.uuid4())
        done = _esrally(host, ["install", "--offline", f"--distribution-version={version}", f"--team-path={TEAM_PATH}",
                               f"--car={car}", f"--node-name=node-{i}", f"--network-host={host.address}",
                               f"--http-port={HTTP_PORT}", f"--master-nodes={masters}", f"--seed-hosts={seeds}",
                               f"--installation-id={installation}"], version, log)
        if done.returncode != 0:
            raise IngestlabError(f"esrally install on {host.name} failed (exit {done.returncode}): {(done.stdout + done.stderr)[-1500:]}")
        installations[host.name] = installation
    race_id = str(uuid.uuid4())  # esrally start wants one: the same on every host
    for host in hosts:
        done = _esrally(host, ["start", f"--installation-id={installations[host.name]}", f"--race-id={race_id}"], version, log)
        if done.returncode != 0:
            raise IngestlabError(f"esrally start on {host.name} failed (exit {done.returncode}): {(done.stdout + done.stderr)[-1500:]}")
    _wait_green(hosts, timeout=180)


def _wait_green(hosts: list, timeout: float) -> None:
    url = f"http://{hosts[0].address}:{HTTP_PORT}/_cluster/health?wait_for_nodes={len(hosts)}&wait_for_status=green&timeout=5s"
    deadline = time.monotonic() + timeout
    health: dict = {}
    while time.monotonic() < deadline:
        try:
            health = nodes.http_json(url, timeout=15)
            if not health.get("timed_out"):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
            pass
        time.sleep(1)
    raise IngestlabError(f"the nodes Rally started are not green with {len(hosts)} nodes within {timeout:.0f}s: {health}")


def stop(hosts: list, installations: dict, version: str, log=print) -> list[str]:
    """``esrally stop`` on every host that has an installation; what it stopped. Failures are left to the
    namespace tear-down, which stops every process still in the namespaces."""
    stopped = []
    for host in hosts:
        if host.name in installations:
            done = _esrally(host, ["stop", f"--installation-id={installations[host.name]}"], version, log)
            if done.returncode == 0:
                stopped.append(f"node on {host.name} (esrally stop)")
    return stopped
