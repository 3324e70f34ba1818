"""Nodes on the test hosts provisioned by Rally itself, as on real machines: ``esrally install``/``start``/``stop``
with the pack's car configs, inside each host's namespace as the service user, offline (:mod:`ingestlab.rally.service`)."""

from __future__ import annotations

import subprocess
import uuid

from ingestlab.cluster.model import DEFAULT_HTTP_PORT
from ingestlab.errors import IngestlabError
from ingestlab.hosts import namespaces
from ingestlab.rally.service import TEAM_PATH, service_rally

HTTP_PORT = DEFAULT_HTTP_PORT
TRANSPORT_PORT = HTTP_PORT + 100  # Rally's choice: the HTTP port + 100


class _Esrally:
    """esrally as the service user, set up once (venv, Rally home, the distribution in its cache)."""

    def __init__(self, version: str, log):
        self.user, venv, self.rally_home, self.env = service_rally(version, log=log)
        self.esrally = str(venv / "bin" / "esrally")
        self.log = log

    def __call__(self, host, args: list[str]) -> subprocess.CompletedProcess:
        cmd = namespaces.in_namespace(host, [*self.user.drop_privileges(), self.esrally, *args, "--quiet"])
        self.log(f"[ingestlab] {host.name}: esrally {' '.join(args)}")
        return subprocess.run(
            cmd, env=self.env, cwd=str(self.rally_home), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600
        )


def install_and_start(hosts: list, version: str, car: str, installations: dict, log=print) -> None:
    """One node per host, started, not yet joined; fills ``installations`` ({host: id}) as it goes, for a later stop."""
    esrally = _Esrally(version, log)
    seeds = ",".join(f"{h.address}:{TRANSPORT_PORT}" for h in hosts)
    masters = ",".join(f"node-{i}" for i in range(1, len(hosts) + 1))
    for i, host in enumerate(hosts, 1):
        installation = str(uuid.uuid4())
        done = esrally(
            host,
            [
                "install",
                "--offline",
                f"--distribution-version={version}",
                f"--team-path={TEAM_PATH}",
                f"--car={car}",
                f"--node-name=node-{i}",
                f"--network-host={host.address}",
                f"--http-port={HTTP_PORT}",
                f"--master-nodes={masters}",
                f"--seed-hosts={seeds}",
                f"--installation-id={installation}",
            ],
        )
        if done.returncode != 0:
            raise IngestlabError(f"esrally install on {host.name} failed (exit {done.returncode}): {(done.stdout + done.stderr)[-1500:]}")
        installations[host.name] = installation
    race_id = str(uuid.uuid4())  # esrally start wants one: the same on every host
    for host in hosts:
        done = esrally(host, ["start", f"--installation-id={installations[host.name]}", f"--race-id={race_id}"])
        if done.returncode != 0:
            raise IngestlabError(f"esrally start on {host.name} failed (exit {done.returncode}): {(done.stdout + done.stderr)[-1500:]}")


def stop(hosts: list, installations: dict, version: str, log=print) -> list[str]:
    """``esrally stop`` on every host that has an installation; what it stopped (the namespaces' tear-down does the rest)."""
    esrally = _Esrally(version, log)
    stopped = []
    for host in hosts:
        if host.name in installations and esrally(host, ["stop", f"--installation-id={installations[host.name]}"]).returncode == 0:
            stopped.append(f"node on {host.name} (esrally stop)")
    return stopped
