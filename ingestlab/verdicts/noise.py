"""A between-race noise floor: how far the medians of identical races of one setup spread on this machine (σ of their
logarithms, and the medians themselves for the task it calibrated), measured by ``ingestlab calibrate`` and kept with the
rates it measured. A comparison with fewer than 3
races a side gives a verdict only against such a floor, and names where it came from; a floor measured on another
machine or Elasticsearch version is refused in one line."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from ingestlab import machine, paths
from ingestlab.errors import IngestlabError


def calibration_dir() -> Path:
    return paths.results_dir() / "calibration"


@dataclass(frozen=True)
class Floor:
    sigma: float  # standard deviation of the log race medians
    df: int  # its degrees of freedom (races − 1)
    source: str  # where it was measured, in words: the calibration's stamp, its races, track and task
    rates: dict = field(default_factory=dict)  # races a side → measured rates (see ingestlab.bench.calibrate)
    stamp: str = ""
    logs: tuple = ()  # the log race medians it was measured on, where kept: sides of 1 or 2 races are judged against their differences


def _same_machine(found: dict, here: dict) -> str | None:
    """Why a calibration from ``found`` does not hold here, or None."""
    for key in ("cpu", "cores"):
        if found.get(key) != here.get(key):
            return f"it was measured on {found.get('cpu')} with {found.get('cores')} cores, this machine is {here.get('cpu')} with {here.get('cores')}"
    return None


def read(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise IngestlabError(f"{path}: not a calibration file ({e})") from None
    data = data.get("results", data)
    if data.get("format") != 2 or "tasks" not in data:
        raise IngestlabError(f"{path}: a calibration of an earlier format (no noise floor per task); run `ingestlab calibrate` again")
    return data


def floor_of(data: dict, task: str, where: str) -> Floor | None:
    got = data["tasks"].get(task)
    if not got:
        return None
    kept = tuple(math.log(v) for v in data.get("medians") or () if v and v > 0) if task == data.get("task") else ()
    return Floor(got["sigma"], got["races"] - 1,
                 f"calibration {data['stamp']} ({where}: {got['races']} races of {data['track']}/{task}, "
                 f"{data['versions'].get('engine', 'elasticsearch')} {data['versions'].get('version')})", data.get("rates", {}), data["stamp"],
                 kept)


def find(track: str | None, challenge: str | None, version: str | None, path: Path | None = None,
         here: dict | None = None) -> tuple[dict | None, list[str]]:
    """The newest calibration of ``track`` (and ``challenge``) on this machine and ``version`` (or the file ``path``, which
    must match: else an error naming why), and a note for each one left out."""
    here = here or machine.describe()
    if path is not None:
        data = read(path)
        why = _same_machine(data["machine"], here) or (
            f"it is of {data['track']}, not {track}" if track and data["track"] != track else None) or (
            f"it was measured on Elasticsearch {data['versions'].get('version')}, these races on {version}"
            if version and data["versions"].get("version") != version else None)
        if why:
            raise IngestlabError(f"calibration {path} does not hold for these races: {why}")
        return data, []
    notes, found = [], None
    for f in sorted(calibration_dir().glob("*/results.json"), reverse=True) if calibration_dir().is_dir() else []:
        try:
            data = read(f)
        except IngestlabError:
            continue
        if data["track"] != track or (challenge and data.get("challenge") not in (None, challenge)):
            continue
        why = _same_machine(data["machine"], here) or (
            f"measured on Elasticsearch {data['versions'].get('version')}" if version and data["versions"].get("version") != version else None)
        if why:
            notes.append(f"calibration {data['stamp']} of {track} left out: {why}")
            continue
        found = data
        break
    return found, notes
