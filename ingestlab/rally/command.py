"""The ``esrally race`` command line for a race request: stock esrally, offline, started through the
pack's launcher (:mod:`ingestlab.rally.launcher`) so that its actor system never collides with another
Rally. Credentials in ``--client-options`` never appear in what is printed."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from ingestlab.errors import IngestlabError

SECRET_OPTIONS = ("--client-options",)


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
    exclude_tasks: str | None = None  # Rally's --exclude-tasks, e.g. "tag:reindex-api"
    include_tasks: str | None = None  # Rally's --include-tasks
    # load-driver hosts (ingestlab.hosts.lab.Lab or alike) for --load-driver-hosts; one that drops out stops the race
    drivers: object | None = None
    launcher: tuple = ()  # a command prefix esrally starts through (e.g. joining the load driver's cgroup)


def redacted(cmd: list[str]) -> str:
    """The command as it may be printed: client options can hold credentials."""
    secret = tuple(option + "=" for option in SECRET_OPTIONS)
    return " ".join(arg.split("=", 1)[0] + "=<redacted>" if arg.startswith(secret) else arg for arg in cmd)


def tag_value(value) -> str:
    """``value`` as a user tag may hold it: Rally splits its tags on ',' and ':', so those become '+' and '-'."""
    return str(value).replace(",", "+").replace(":", "-")


def format_tags(tags: dict) -> str:
    for k, v in tags.items():
        if any(c in f"{k}{v}" for c in ",:"):
            raise IngestlabError(f"user tag {k}:{v} may not contain ',' or ':'")
    return ",".join(f"{k}:{v}" for k, v in tags.items())


def build_command(request: RaceRequest, race_id: str, params_file: Path | None, python: str = sys.executable) -> list[str]:
    cmd = [
        *request.launcher,
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
    optional = {
        "--target-hosts": request.target_hosts,
        "--challenge": request.challenge,
        "--track-params": params_file,
        "--user-tags": format_tags(request.user_tags) if request.user_tags else None,
        "--client-options": request.client_options,
        "--report-file": request.report_file,
        "--exclude-tasks": request.exclude_tasks,
        "--include-tasks": request.include_tasks,
        "--load-driver-hosts": request.drivers.load_driver_hosts if request.drivers is not None else None,
    }
    cmd += [f"{option}={value}" for option, value in optional.items() if value]
    if request.test_mode:
        cmd.append("--test-mode")
    cmd.extend(request.extra_args)
    return cmd
