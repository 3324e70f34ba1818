"""Run ``esrally race`` offline against a running cluster, in the pack's own RALLY_HOME.

The command is stock esrally (``--offline --pipeline=benchmark-only --track-path``),
started through :mod:`ingestlab.rally.launcher` on a free actor port so that it never
collides with another Rally on the machine. Results are read back from race.json.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from ingestlab import paths
from ingestlab.errors import IngestlabError
from ingestlab.rally import results
from ingestlab.rally.launcher import PORT_VARIABLE
from ingestlab.runners.runner_stats import VARIABLE as RUNNER_STATS_VARIABLE

RALLY_INI = """[meta]
config.version = 17

[system]
env.name = local

[node]
root.dir = ${CONFIG_DIR}/benchmarks
src.root.dir = ${CONFIG_DIR}/benchmarks/src

[benchmarks]
local.dataset.cache = ${CONFIG_DIR}/benchmarks/data

[reporting]
datastore.type = in-memory

[distributions]
release.cache = true
"""

SECRET_OPTIONS = ("--client-options",)


def ensure_rally_home(home: Path | None = None) -> Path:
    home = home or paths.rally_home()
    ini = home / ".rally" / "rally.ini"
    if not ini.is_file():
        ini.parent.mkdir(parents=True, exist_ok=True)
        ini.write_text(RALLY_INI)
    return home


def free_port(address: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


def redacted(cmd: list[str]) -> str:
    """The command as it may be printed: client options can hold credentials."""
    shown = []
    for arg in cmd:
        for option in SECRET_OPTIONS:
            if arg.startswith(option + "="):
                arg = option + "=<redacted>"
        shown.append(arg)
    return " ".join(shown)


def format_tags(tags: dict) -> str:
    for k, v in tags.items():
        if any(c in f"{k}{v}" for c in ",:"):
            raise IngestlabError(f"user tag {k}:{v} may not contain ',' or ':'")
    return ",".join(f"{k}:{v}" for k, v in tags.items())


@dataclass
class RaceRequest:
    track_path: Path
    target_hosts: str | None  # None: Rally provisions the node itself (pipeline from-distribution)
    challenge: str | None = None
    track_params: dict = field(default_factory=dict)
    user_tags: dict = field(default_factory=dict)
    test_mode: bool = False
    client_options: str | None = None
    report_file: Path | None = None
    on_error: str = "abort"
    pipeline: str = "benchmark-only"
    extra_args: tuple = ()
    # a lab of test hosts (ingestlab.hosts.lab.Lab): its coordinator daemon runs the race, with
    # --load-driver-hosts on its hosts; a host that drops out stops the race with an error naming it
    lab: object | None = None


@dataclass
class RaceOutcome:
    race_id: str
    returncode: int
    race_json: Path
    report_file: Path | None
    output: str
    stopped_because: str | None = None  # why the pack stopped the race itself (a load-driver host gone)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.race_json.is_file()

    def load(self) -> dict:
        return json.loads(self.race_json.read_text())


def build_command(request: RaceRequest, race_id: str, params_file: Path | None, python: str = sys.executable) -> list[str]:
    cmd = [
        python,
        "-m",
        "ingestlab.rally.launcher",
        "race",
        "--offline",
        f"--pipeline={request.pipeline}",
        f"--track-path={request.track_path}",
        f"--race-id={race_id}",
        f"--on-error={request.on_error}",
        "--report-format=markdown",
    ]
    if request.target_hosts:
        cmd.append(f"--target-hosts={request.target_hosts}")
    if request.challenge:
        cmd.append(f"--challenge={request.challenge}")
    if params_file:
        cmd.append(f"--track-params={params_file}")
    if request.user_tags:
        cmd.append(f"--user-tags={format_tags(request.user_tags)}")
    if request.test_mode:
        cmd.append("--test-mode")
    if request.client_options:
        cmd.append(f"--client-options={request.client_options}")
    if request.report_file:
        cmd.append(f"--report-file={request.report_file}")
    if request.lab is not None:
        cmd.append(f"--load-driver-hosts={request.lab.load_driver_hosts}")
    cmd.extend(request.extra_args)
    return cmd


def run(request: RaceRequest, stream: bool = True, log=print) -> RaceOutcome:
    rally_home = ensure_rally_home()
    race_id = str(uuid.uuid4())
    env = dict(os.environ)
    env["RALLY_HOME"] = str(rally_home)
    env[PORT_VARIABLE] = str(request.lab.actor_port if request.lab is not None else free_port())
    # glibc otherwise returns freed memory to the OS after every batch: ~1 page fault per document
    env.setdefault("MALLOC_TRIM_THRESHOLD_", "268435456")
    # the pack's runners append per-call figures Rally's race.json does not keep (client CPU, bytes) here
    env[RUNNER_STATS_VARIABLE] = str(runner_stats_file(race_id, rally_home))
    with tempfile.TemporaryDirectory(prefix="ingestlab-race-") as tmp:
        params_file = None
        if request.track_params:
            params_file = Path(tmp) / "track-params.json"
            params_file.write_text(json.dumps(request.track_params))
        cmd = build_command(request, race_id, params_file)
        log(f"[ingestlab] {redacted(cmd)}")
        driver_stats = watch = None
        if request.lab is not None:
            from ingestlab.hosts.lab import DriverStats, DriverWatch

            driver_stats, watch = DriverStats(request.lab), DriverWatch(request.lab)
        captured = None if stream else open(Path(tmp) / "output.txt", "w+")
        try:
            proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=captured, stderr=subprocess.STDOUT if captured else None)
            returncode, stopped_because = _wait(proc, watch, log)
            output = ""
            if captured:
                captured.seek(0)
                output = captured.read()
        finally:
            if captured:
                captured.close()
        if driver_stats:
            driver_stats.collect(runner_stats_file(race_id, rally_home))
    race_json = results.race_json(race_id, rally_home)
    if stopped_because and race_json.is_file():
        race_json.unlink()  # a race the pack stopped is not a result, whatever Rally managed to store
    return RaceOutcome(race_id, returncode, race_json, request.report_file, output, stopped_because)


def _wait(proc: subprocess.Popen, watch, log, grace: float = 20.0) -> tuple[int, str | None]:
    """Wait for Rally; with a ``watch``, stop it (SIGINT, then SIGTERM, then SIGKILL) once the watch reports a problem."""
    if watch is None:
        return proc.wait(), None
    while proc.poll() is None:
        problem = watch.check()
        if problem:
            log(f"[ingestlab] stopping the race: {problem.split(':')[0]}")
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
                proc.send_signal(sig)
                try:
                    proc.wait(timeout=grace)
                    break
                except subprocess.TimeoutExpired:
                    continue
            return proc.wait(), problem
        time.sleep(1.0)
    return proc.returncode, None


def runner_stats_file(race_id: str, rally_home: Path | None = None) -> Path:
    return results.race_json(race_id, rally_home).with_name("ingestlab-runner-stats.jsonl")


def rally_log(rally_home: Path | None = None) -> Path:
    return (rally_home or paths.rally_home()) / ".rally" / "logs" / "rally.log"
