"""A between-race noise floor: σ of the log medians of identical races of one setup on this machine, measured by
``ingestlab calibrate``. A comparison of fewer than 3 races a side is judged only against one; a floor of another
machine, Elasticsearch version or track parameters is refused in one line naming the difference."""

from __future__ import annotations

import json
import math
import shlex
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ingestlab import machine, paths
from ingestlab.errors import IngestlabError
from ingestlab.verdicts import stats


def calibration_dir() -> Path:
    return paths.results_dir() / "calibration"


@dataclass(frozen=True)
class Floor:
    sigma: float  # standard deviation of the log race medians
    df: int  # its degrees of freedom (races − 1)
    source: str  # where it was measured, in words: the calibration's stamp, its races, track and task
    rates: dict = field(default_factory=dict)  # races a side → measured rates (see ingestlab.calibrate)
    stamp: str = ""
    logs: tuple = ()  # the log race medians it was measured on, where kept: sides of 1 or 2 races are judged against their differences
    between: float | None = None  # σ of the sessions' mean log race medians, where two or more sessions measured it


def _same_machine(found: dict, here: dict) -> str | None:
    """Why a calibration from ``found`` does not hold here, or None."""
    if any(found.get(key) != here.get(key) for key in ("cpu", "cores")):
        return (
            f"it was measured on {found.get('cpu')} with {found.get('cores')} cores, "
            f"this machine is {here.get('cpu')} with {here.get('cores')}"
        )
    return None


NOT_WORK = ("index_name", "mapping_type")  # track parameters that name things but change no work (the mapping type: by version)


def as_text(params: dict | None) -> dict:
    """Track parameters as text: given on a command line they are text, Rally keeps them typed."""
    return {str(k): str(v) for k, v in (params or {}).items()}


def _work(params: dict | None) -> dict:
    """Track parameters as text, without those that change no work."""
    return {k: v for k, v in as_text(params).items() if k not in NOT_WORK}


def params_of(found: dict) -> dict | None:
    """The track parameters a calibration's races ran with: kept in the file, or read back from the command that ran
    it; None where neither says."""
    if "params" in found:
        return found["params"]
    command = found.get("command") or ""
    if not command.startswith("ingestlab calibrate"):
        return None
    words = shlex.split(command)
    return dict(words[i + 1].split("=", 1) for i, w in enumerate(words[:-1]) if w == "--track-param" and "=" in words[i + 1])


def other_work(found: dict, params: dict | None) -> tuple[str, str] | None:
    """How a calibration's races and races with track parameters ``params`` differ in their work, as (theirs, these),
    each ``key=value, …``; None where they did the same work or either is not known."""
    kept = params_of(found)
    if params is None or kept is None:
        return None
    theirs, ours = _work(kept), _work(params)
    differ = [k for k in sorted(set(theirs) | set(ours)) if theirs.get(k) != ours.get(k)]

    def said(got: dict, k: str) -> str:
        return f"{k}={got[k]}" if k in got else f"{k} not given (the track's default)"

    return (", ".join(said(theirs, k) for k in differ), ", ".join(said(ours, k) for k in differ)) if differ else None


def _same_work(found: dict, params: dict | None) -> str | None:
    """Why a calibration's races did other work than races with track parameters ``params`` (None: not checked), or None."""
    if params is None:
        return None
    if params_of(found) is None:
        return (
            "it did not record its track parameters: `ingestlab calibrate --races 0 --pool "
            f"{found.get('stamp')} --track … --track-param …` judges its races again and records them"
        )
    differ = other_work(found, params)
    return f"it was measured with {differ[0]}, these races with {differ[1]}" if differ else None


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
    return Floor(
        got["sigma"],
        got["races"] - 1,
        f"calibration {data['stamp']} ({where}: {got['races']} races of {data['track']}/{task}, "
        f"{data['versions'].get('engine', 'elasticsearch')} {data['versions'].get('version')})",
        data.get("rates", {}),
        data["stamp"],
        kept,
    )


def find(
    track: str | None,
    challenge: str | None,
    version: str | None,
    path: Path | None = None,
    here: dict | None = None,
    params: dict | None = None,
) -> tuple[dict | None, list[str]]:
    """The newest calibration of ``track`` (and ``challenge``, ``params``) on this machine and ``version`` (or the file
    ``path``, which must match: else an error naming why), and a note for each one left out."""
    here = here or machine.describe()
    if path is not None:
        data = read(path)
        why = (
            _same_machine(data["machine"], here)
            or _same_work(data, params)
            or (f"it is of {data['track']}, not {track}" if track and data["track"] != track else None)
            or (
                f"it was measured on Elasticsearch {data['versions'].get('version')}, these races on {version}"
                if version and data["versions"].get("version") != version
                else None
            )
        )
        if why:
            raise IngestlabError(f"calibration {path} does not hold for these races: {why}")
        return data, []
    found, notes = _matching(track, challenge, version, here, newest_only=True, params=params)
    return (found[0] if found else None), notes


def sessions(
    track: str | None, challenge: str | None, version: str | None, here: dict | None = None, params: dict | None = None
) -> tuple[list[dict], list[str]]:
    """Every calibration of ``track`` (and ``challenge``, ``params``) on this machine and ``version``, newest first, and
    a note for each one left out."""
    return _matching(track, challenge, version, here or machine.describe(), newest_only=False, params=params)


def judged_against(
    track: str | None, challenge: str | None, version: str | None, path: Path | None = None, params: dict | None = None
) -> tuple[list[dict], list[str]]:
    """The calibrations a comparison judges by, newest first: the file ``path`` alone when given (:func:`find`), else
    every session of the setup here (:func:`sessions`); and a note for each one left out."""
    if path is not None:
        data, notes = find(track, challenge, version, path, params=params)
        return [data], notes
    return sessions(track, challenge, version, params=params)


def _matching(track, challenge, version, here: dict, newest_only: bool, params: dict | None = None) -> tuple[list[dict], list[str]]:
    notes, found = [], []
    for f in sorted(calibration_dir().glob("*/results.json"), reverse=True) if calibration_dir().is_dir() else []:
        try:
            data = read(f)
        except IngestlabError:
            continue
        if data["track"] != track or (challenge and data.get("challenge") not in (None, challenge)):
            continue
        why = (
            _same_machine(data["machine"], here)
            or (
                f"measured on Elasticsearch {data['versions'].get('version')}"
                if version and data["versions"].get("version") != version
                else None
            )
            or _same_work(data, params)
        )
        if why:
            notes.append(f"calibration {data['stamp']} of {track} left out: {why}")
            continue
        found.append(data)
        if newest_only:
            break
    return found, notes


def own_medians(data: dict) -> list[float]:
    """The race medians of the calibrated task that a calibration raced itself, without those it pooled (they come first)."""
    return list(data.get("medians") or ())[(data.get("pooled") or {}).get("races", 0) :]


SESSION_LEVEL = 0.95  # a later session's σ stays within the spanning floor's with this probability


def floor_across(datas: list[dict], task: str, where: str) -> Floor | None:
    """The noise floor of ``task`` over calibration sessions here (``datas``, newest first), for sides of one or two
    races raced later. σ changes from session to session, so with two or more sessions the floor is each session's log
    race medians centred on their own mean and scaled to the σ a new session stays within (:func:`stats.session_bound`);
    with one, that session's floor (:func:`floor_of`)."""
    counted = []
    for data in datas:
        if task == data.get("task"):
            own = [math.log(v) for v in own_medians(data) if v and v > 0]
            if len(own) >= 3:
                counted.append((data, statistics.stdev(own), len(own), own))
        elif task in data["tasks"] and not data.get("pooled"):
            got = data["tasks"][task]
            counted.append((data, got["sigma"], got["races"], None))
    counted = [c for c in counted if c[1] > 0]
    if len(counted) < 2:
        return floor_of(counted[0][0], task, where) if counted else (floor_of(datas[0], task, where) if datas else None)
    bound = stats.session_bound([c[1] for c in counted], SESSION_LEVEL)
    logs = (
        tuple(x * bound / sigma for _, sigma, _, own in counted for x in np.asarray(own) - np.mean(own))
        if all(c[3] is not None for c in counted)
        else ()
    )
    races, newest = sum(c[2] for c in counted), counted[0][0]
    spread = sorted(c[1] for c in counted)
    means = [statistics.fmean(own) for *_, own in counted if own is not None]
    between = statistics.stdev(means) if len(means) >= 2 else None
    source = (
        f"calibrations {', '.join(c[0]['stamp'] for c in counted)} ({where}: {len(counted)} sessions, {races} races of "
        f"{newest['track']}/{task}, {newest['versions'].get('engine', 'elasticsearch')} {newest['versions'].get('version')}; "
        f"σ {spread[0]:.1%} to {spread[-1]:.1%} from session to session, so widened to the σ a new session stays within "
        f"at {SESSION_LEVEL:.0%})"
    )
    return Floor(bound, races - len(counted), source, newest.get("rates", {}), newest["stamp"], logs, between)
