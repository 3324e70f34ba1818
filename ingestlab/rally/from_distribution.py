"""Race with Rally's own ``from-distribution`` pipeline: Rally installs, starts and stops the node.

Offline and as root this needs three things Rally cannot do by itself:

- the distribution in Rally's cache: the pack's assembled Elasticsearch is packed as
  ``elasticsearch-<version>-ingestlab.tar.gz``, the last segment of the URL the team's car names,
  so Rally (``release.cache = true``) never tries to download it;
- a non-root user for Rally (Elasticsearch refuses root, and so does this pipeline): the pack's service user;
- a Python ≥ 3.11.4 that user can read, with esrally and the pack installed: a copy of the running
  interpreter under ``INGESTLAB_HOME`` (root's own, e.g. under ``/root/.pyenv``, is not readable by
  other users) and a venv made from it.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import uuid
from pathlib import Path

from ingestlab import paths
from ingestlab.cluster import distribution, nodes, service_user
from ingestlab.errors import IngestlabError
from ingestlab.rally import race, results

TEAM_PATH = paths.REPO_ROOT / "car-configs"


def tarball_name(version: str) -> str:
    return f"elasticsearch-{version}-ingestlab.tar.gz"


def place_distribution(version: str, rally_home: Path, log=print) -> Path:
    """Pack the assembled distribution into ``<rally_home>/.rally/benchmarks/distributions/`` once."""
    target = rally_home / ".rally" / "benchmarks" / "distributions" / tarball_name(version)
    if not target.is_file():
        es_home = distribution.ensure_distribution(version, log=log)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        log(f"[ingestlab] packing {es_home} for Rally's distribution cache")
        with tarfile.open(tmp, "w:gz", compresslevel=1) as tar:
            tar.add(es_home, arcname=f"elasticsearch-{version}")
        tmp.replace(target)
    return target


def _lib_dir(venv: Path) -> str:
    """lib/ of the interpreter the venv was made from (where a shared-library Python keeps libpython)."""
    return str(Path(os.path.realpath(venv / "bin" / "python")).parent.parent / "lib")


def service_venv(user: service_user.ServiceUser, log=print) -> Path:
    """A venv with esrally and the pack that ``user`` can run; our own venv when we are that user."""
    if user.is_current:
        return Path(sys.prefix)
    venv = paths.home() / "service-venv"
    marker = venv / ".ingestlab-installed"  # holds the checkout the pack is installed from
    if marker.is_file():
        if marker.read_text().strip() != str(paths.REPO_ROOT):  # another checkout: point the venv at this one
            subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-deps", "-e", str(paths.REPO_ROOT)], check=True,
                           env={**os.environ, "LD_LIBRARY_PATH": _lib_dir(venv)})
            distribution.make_world_readable(venv)
            marker.write_text(f"{paths.REPO_ROOT}\n")
        return venv
    version = ".".join(map(str, sys.version_info[:3]))
    python_copy = paths.home() / "python" / version
    if not python_copy.is_dir():
        log(f"[ingestlab] copying Python {version} from {sys.base_prefix} to {python_copy} (readable by {user.name})")
        shutil.copytree(sys.base_prefix, python_copy, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "test", "tests"))
    log(f"[ingestlab] creating {venv} with esrally and the pack (once)")
    interpreter = python_copy / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    subprocess.run([str(interpreter), "-m", "venv", "--clear", str(venv)], check=True,
                   env={**os.environ, "LD_LIBRARY_PATH": str(python_copy / "lib")})
    from importlib.metadata import version as installed

    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"esrally=={installed('esrally')}", "-e", str(paths.REPO_ROOT)], check=True)
    distribution.make_world_readable(python_copy)
    distribution.make_world_readable(venv)
    marker.write_text(f"{paths.REPO_ROOT}\n")
    return venv


def service_rally(version: str, log=print) -> tuple[service_user.ServiceUser, Path, Path, dict]:
    """What running esrally as the service user takes: (user, its venv, its RALLY_HOME with the distribution
    placed, the environment for esrally). Shared by this pipeline and ``esrally install/start/stop`` on test hosts."""
    user = service_user.ensure_service_user()
    service_user.check_reachable(user, TEAM_PATH)
    venv = service_venv(user, log=log)
    rally_home = paths.home() / "rally-from-distribution"
    race.ensure_rally_home(rally_home)
    place_distribution(version, rally_home, log=log)
    user.chown(rally_home)
    java_home = nodes.find_java_home()
    env = {
        "PATH": f"{venv / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(rally_home),
        "RALLY_HOME": str(rally_home),
        "JAVA_HOME": str(java_home),
        "JAVA17_HOME": str(java_home),
        "LANG": "C.UTF-8",
        # a shared-library build of Python finds its libpython through an RPATH into root's home, which the
        # service user cannot read: point it at the copy's lib/ instead of the system's older libpython
        "LD_LIBRARY_PATH": _lib_dir(venv),
    }
    return user, venv, rally_home, env


def run(track_path: Path, version: str = distribution.DEFAULT_VERSION, car: str = "defaults", car_params: str | None = None,
        challenge: str | None = None, track_params: dict | None = None, user_tags: dict | None = None, test_mode: bool = False,
        report_file: Path | None = None, on_error: str = "abort", log=print) -> race.RaceOutcome:
    user, venv, rally_home, env = service_rally(version, log=log)
    service_user.check_reachable(user, track_path)
    race_id = str(uuid.uuid4())
    work = rally_home / "requests" / race_id
    work.mkdir(parents=True)
    params_file = None
    if track_params:
        params_file = work / "track-params.json"
        params_file.write_text(json.dumps(track_params))
    request = race.RaceRequest(
        track_path=track_path, target_hosts=None, pipeline="from-distribution", challenge=challenge, user_tags=user_tags or {},
        test_mode=test_mode, report_file=work / "report.md", on_error=on_error,
        extra_args=(f"--distribution-version={version}", f"--team-path={TEAM_PATH}", f"--car={car}")
        + ((f"--car-params={car_params}",) if car_params else ()),
    )
    cmd = race.build_command(request, race_id, params_file, python=str(venv / "bin" / "python"))
    user.chown(rally_home)
    env = {
        **env,
        race.PORT_VARIABLE: str(race.free_port()),
        race.RUNNER_STATS_VARIABLE: str(race.runner_stats_file(race_id, rally_home)),
    }
    log(f"[ingestlab] as {user.name}: {race.redacted(cmd)}")
    kwargs = {} if user.is_current else {"user": user.uid, "group": user.gid, "extra_groups": []}
    proc = subprocess.run(cmd, env=env, cwd=str(rally_home), stdin=subprocess.DEVNULL, **kwargs)
    if report_file and (work / "report.md").is_file():
        shutil.copyfile(work / "report.md", report_file)
    race_json = results.race_json(race_id, rally_home)
    if proc.returncode != 0:
        raise IngestlabError(f"the from-distribution race failed (exit {proc.returncode}); Rally's log: {race.rally_log(rally_home)}")
    return race.RaceOutcome(race_id, proc.returncode, race_json, report_file, "")
