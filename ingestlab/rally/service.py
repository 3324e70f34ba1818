"""esrally run as the pack's service user, offline, for Rally's own provisioning (``from-distribution``, and
``esrally install/start/stop`` on test hosts): the pack's distribution placed in Rally's cache (so it is never
downloaded), the service user (Elasticsearch refuses root), and a venv with esrally and the pack made from a copy of
this interpreter under ``INGESTLAB_HOME`` (root's own is not readable by other users)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from importlib.metadata import version as installed
from pathlib import Path

from ingestlab import locks, paths
from ingestlab.cluster import distribution, service_user
from ingestlab.cluster.jdk import java_home_for
from ingestlab.cluster.versions import spec_for
from ingestlab.rally.home import ensure_rally_home

TEAM_PATH = paths.REPO_ROOT / "car-configs"


def tarball_name(version: str) -> str:
    return f"elasticsearch-{version}-ingestlab.tar.gz"


def place_distribution(version: str, rally_home: Path, log=print) -> Path:
    """Pack the assembled distribution into ``<rally_home>/.rally/benchmarks/distributions/`` once."""
    target = rally_home / ".rally" / "benchmarks" / "distributions" / tarball_name(version)
    if target.is_file():
        return target
    with locks.held(target.with_name(f".{target.name}.lock")):  # another command may be packing it at this moment
        if not target.is_file():
            es_home = distribution.ensure_distribution(version, log=log)
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
    with locks.held(paths.home() / ".service-venv.lock"):  # another command may be making it at this moment
        return _service_venv(user, venv, log)


def _service_venv(user: service_user.ServiceUser, venv: Path, log) -> Path:
    marker = venv / ".ingestlab-installed"  # holds the checkout the pack is installed from
    if marker.is_file():
        if marker.read_text().strip() != str(paths.REPO_ROOT):  # another checkout: point the venv at this one
            with locks.editable_install():
                subprocess.run(
                    [str(venv / "bin" / "pip"), "install", "-q", "--no-deps", "-e", str(paths.REPO_ROOT)],
                    check=True,
                    env={**os.environ, "LD_LIBRARY_PATH": _lib_dir(venv)},
                )
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
    subprocess.run(
        [str(interpreter), "-m", "venv", "--clear", str(venv)], check=True, env={**os.environ, "LD_LIBRARY_PATH": str(python_copy / "lib")}
    )

    with locks.editable_install():
        subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", f"esrally=={installed('esrally')}", "-e", str(paths.REPO_ROOT)], check=True
        )
    distribution.make_world_readable(python_copy)
    distribution.make_world_readable(venv)
    marker.write_text(f"{paths.REPO_ROOT}\n")
    return venv


def service_rally(version: str, log=print) -> tuple[service_user.ServiceUser, Path, Path, dict]:
    """What running esrally as the service user takes: (user, its venv, its RALLY_HOME, the environment for esrally)."""
    user = service_user.ensure_service_user()
    service_user.check_reachable(user, TEAM_PATH)
    venv = service_venv(user, log=log)
    rally_home = paths.home() / "rally-from-distribution"
    ensure_rally_home(rally_home)
    place_distribution(version, rally_home, log=log)
    user.chown(rally_home)
    java_home = java_home_for(spec_for(version))
    env = {
        "PATH": f"{venv / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(rally_home),
        "RALLY_HOME": str(rally_home),
        "JAVA_HOME": str(java_home),
        "JAVA17_HOME": str(java_home),
        "LANG": "C.UTF-8",
        # a shared-library Python's RPATH points into root's home, which the service user cannot read: use the copy's lib/
        "LD_LIBRARY_PATH": _lib_dir(venv),
    }
    return user, venv, rally_home, env
