"""Change points in the nightly history, found by Apache Otava: E-Divisive means over each task's series of nights,
per setup. Otava runs in an environment of its own (its pins clash with esrally's), asked over a pipe in JSON. It runs
in its permutation mode, whose p-value holds after the choice of split (its default t-test does not know the split was
chosen); a change point also needs ``MIN_SEGMENT`` nights each side and a change of ``MIN_MAGNITUDE`` of the mean. A
regression is a change point that lowers a task's figure."""

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
WINDOW = 90  # the nights a series is judged over: the newest
MAX_PVALUE = 0.01
PERMUTATIONS = 999  # the smallest p-value is 1/1000: well below MAX_PVALUE
MIN_SEGMENT = 3  # nights each side of a change point
MIN_MAGNITUDE = 0.05  # the least change of the mean that counts
MIN_POINTS = 2 * MIN_SEGMENT  # the fewest nights a series is judged at

_SCRIPT = r"""
import json, sys
import numpy as np
from otava.change_point_divisive.calculator import PairDistanceCalculator
from otava.change_point_divisive.detector import ChangePointDetector
from otava.change_point_divisive.significance_test import PermutationsSignificanceTester
request = json.load(sys.stdin)
found = {}
for key, values in request["series"].items():
    values = values[-request["window"]:]
    offset = len(request["series"][key]) - len(values)
    if len(values) < request["min_points"]:
        found[key] = []
        continue
    tester = PermutationsSignificanceTester(max_pvalue=request["max_pvalue"], permutations=request["permutations"],
                                            calculator=PairDistanceCalculator, seed=request["seed"])
    points = ChangePointDetector(significance_tester=tester, calculator=PairDistanceCalculator).get_change_points(series=values)
    cuts = [0, *sorted(int(p.index) for p in points), len(values)]
    out = []
    for p in sorted(points, key=lambda p: p.index):
        i = cuts.index(int(p.index))
        before, after = values[cuts[i - 1]:cuts[i]], values[cuts[i]:cuts[i + 1]]
        m1, m2 = float(np.mean(before)), float(np.mean(after))
        out.append({"index": int(p.index) + offset, "pvalue": float(p.stats.pvalue), "change": m2 / m1 - 1 if m1 else 0.0,
                    "mean_before": m1, "mean_after": m2, "nights_before": len(before), "nights_after": len(after)})
    found[key] = out
json.dump(found, sys.stdout)
"""


@dataclass(frozen=True)
class ChangePoint:
    index: int  # the first night of the new level
    pvalue: float
    change: float  # mean after ÷ mean before − 1
    mean_before: float
    mean_after: float
    nights_before: int = 0  # of the segment before it, and after it
    nights_after: int = 0

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
        for cmd in (
            [sys.executable, "-m", "venv", "--clear", str(directory)],
            [str(interpreter), "-m", "pip", "install", "-q", "--disable-pip-version-check", REQUIREMENT],
        ):
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise IngestlabError(
                    f"could not install {REQUIREMENT} into {directory} (`{' '.join(cmd[-3:])}`): "
                    f"{(proc.stderr or proc.stdout).strip().splitlines()[-1] if (proc.stderr or proc.stdout).strip() else proc.returncode}"
                )
        marker.write_text(REQUIREMENT + "\n")
    return interpreter


def detect(
    series: dict[str, list[float]],
    window: int = WINDOW,
    max_pvalue: float = MAX_PVALUE,
    min_magnitude: float = MIN_MAGNITUDE,
    min_segment: int = MIN_SEGMENT,
    permutations: int = PERMUTATIONS,
    seed: int = 1,
    log=print,
) -> dict[str, list[ChangePoint]]:
    """Change points of each series (key → values in night order) that meet the significance level, the least change and
    the least nights on each side."""
    if not series:
        return {}
    request = {
        "series": series,
        "window": window,
        "max_pvalue": max_pvalue,
        "permutations": permutations,
        "seed": seed,
        "min_points": 2 * min_segment,
    }
    proc = subprocess.run([str(python(log)), "-c", _SCRIPT], input=json.dumps(request), capture_output=True, text=True)
    if proc.returncode != 0:
        raise IngestlabError(
            f"Apache Otava failed on the history: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}"
        )
    return {
        key: [cp for cp in (ChangePoint(**p) for p in points) if kept(cp, min_magnitude, min_segment)]
        for key, points in json.loads(proc.stdout).items()
    }


def kept(cp: ChangePoint, min_magnitude: float = MIN_MAGNITUDE, min_segment: int = MIN_SEGMENT) -> bool:
    return abs(cp.change) >= min_magnitude and cp.nights_before >= min_segment and cp.nights_after >= min_segment
