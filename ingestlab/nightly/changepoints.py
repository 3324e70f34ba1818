"""Change points in the nightly history, found by Apache Otava (the former Hunter): E-Divisive means with a
significance test, over each task's series of nights, per setup.

Otava pins its own dependencies (a newer ``requests`` and ``tabulate`` than esrally allows), so it lives in a virtual
environment of its own under ``INGESTLAB_HOME/tools/otava``, made once (from the package index, as everything else),
and is asked over a pipe: the series go in as JSON, the change points come back as JSON. Nothing of it is imported
into the pack's own interpreter, so esrally's pins stand.

A change point at index *i* of a series says the nights from *i* on differ from those before, with the p-value of
that split and the relative change of the means. A *regression* is a change point that lowers a task's figure
(throughput: higher is better); a headline ratio is drawn, not judged.
"""
from __future__ import annotations

import fcntl
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ingestlab import paths
from ingestlab.errors import IngestlabError

REQUIREMENT = "apache-otava==0.8.0"
WINDOW = 30
MAX_PVALUE = 0.001
MIN_POINTS = 6  # fewer nights than this hold no change point worth a test

_SCRIPT = r"""
import json, sys
from otava.analysis import compute_change_points
request = json.load(sys.stdin)
found = {}
for key, values in request["series"].items():
    if len(values) < request["min_points"]:
        found[key] = []
        continue
    points, _ = compute_change_points(values, window_len=request["window"], max_pvalue=request["max_pvalue"],
                                      min_magnitude=request["min_magnitude"])
    found[key] = [{"index": int(p.index), "pvalue": float(p.stats.pvalue), "change": float(p.stats.forward_rel_change()),
                   "mean_before": float(p.stats.mean_1), "mean_after": float(p.stats.mean_2)} for p in points]
json.dump(found, sys.stdout)
"""


@dataclass(frozen=True)
class ChangePoint:
    index: int  # the first night of the new level
    pvalue: float
    change: float  # mean after ÷ mean before − 1
    mean_before: float
    mean_after: float

    @property
    def regression(self) -> bool:
        return self.change < 0


def tool_dir() -> Path:
    return paths.home() / "tools" / "otava"


def python(log=print) -> Path:
    """The interpreter of Otava's own environment, made on first use (under a lock: one maker at a time)."""
    directory = tool_dir()
    interpreter = directory / "bin" / "python"
    marker = directory / ".installed"
    if marker.is_file():
        return interpreter
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / ".otava.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file():
            return interpreter
        log(f"[ingestlab] making Apache Otava's own environment in {directory} (once; {REQUIREMENT}) ...")
        for cmd in ([sys.executable, "-m", "venv", "--clear", str(directory)],
                    [str(interpreter), "-m", "pip", "install", "-q", "--disable-pip-version-check", REQUIREMENT]):
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise IngestlabError(f"could not install {REQUIREMENT} into {directory} (`{' '.join(cmd[-3:])}`): "
                                     f"{(proc.stderr or proc.stdout).strip().splitlines()[-1] if (proc.stderr or proc.stdout).strip() else proc.returncode}")
        marker.write_text(REQUIREMENT + "\n")
    return interpreter


def detect(series: dict[str, list[float]], window: int = WINDOW, max_pvalue: float = MAX_PVALUE, min_magnitude: float = 0.0,
           log=print) -> dict[str, list[ChangePoint]]:
    """Change points of each series (key → values in night order)."""
    if not series:
        return {}
    request = {"series": series, "window": window, "max_pvalue": max_pvalue, "min_magnitude": min_magnitude, "min_points": MIN_POINTS}
    proc = subprocess.run([str(python(log)), "-c", _SCRIPT], input=json.dumps(request), capture_output=True, text=True)
    if proc.returncode != 0:
        raise IngestlabError(f"Apache Otava failed on the history: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}")
    return {key: [ChangePoint(**p) for p in points] for key, points in json.loads(proc.stdout).items()}
