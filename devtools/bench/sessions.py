"""Several calibration sessions' rates summed (``python -m devtools.bench sessions --sum-of STAMP …``).

No race is in two sessions, so their disjoint comparisons are disjoint from one another's too and their counts add: the
sum has an interval that one session's few comparisons cannot give (240 races hold 40 comparisons of 3 a side, and
only about 7 of the number ``ab`` races for a 10 % change).

Comparisons of 3 races a side or more are judged by one rule in every session: Welch on their own races. The row of
the races ``ab`` would race sums each session's own choice, from its own σ, as ``ab`` chooses. Comparisons of 1 and 2 a
side are judged against a floor, which depends on what each session was judged against, so their row is summed only
over sessions judged against floors of one kind (each against the floor spanning two or more earlier sessions, each
against one earlier session, or each against its own races); otherwise it is left out and the summary says why."""

from __future__ import annotations

import shlex
import time

from devtools import ledger
from devtools.ledger import runs
from ingestlab import calibrate
from ingestlab.errors import IngestlabError
from ingestlab.verdicts import noise, rates

ROWS = ("1", "3", "ab")


def floor_kind(data: dict) -> str:
    earlier = rates.floors_of(data)
    return (
        "the floor spanning earlier sessions"
        if len(earlier) > 1
        else "one earlier session's races"
        if earlier
        else "the session's own races"
    )


def _read(stamp: str) -> dict:
    path = noise.calibration_dir() / stamp / "results.json"
    if not path.is_file():
        raise IngestlabError(f"--sum-of {stamp}: no calibration file {path}")
    return noise.read(path)


def _ab_size(data: dict) -> str | None:
    """The races a side ``ab`` would race that a calibration measured (its size above 3), if any."""
    return next((s for s in data.get("rates", {}) if int(s) > 3), None)


def _row(data: dict, row: str) -> dict | None:
    size = _ab_size(data) if row == "ab" else row
    return data.get("rates", {}).get(size) if size else None


def total(stamps: list[str]) -> dict:
    """The summed rows of the calibrations ``stamps`` (see the module's text); an error naming what does not match."""
    stamps = list(dict.fromkeys(stamps))
    if len(stamps) < 2:
        raise IngestlabError("--sum-of: name two calibrations or more")
    datas = [_read(s) for s in stamps]
    first = datas[0]
    seen: dict[str, str] = {}
    for data in datas:
        why = (
            noise._same_machine(data["machine"], first["machine"])
            or next(
                (
                    f"it calibrated {key} {data.get(key)}, {first['stamp']} {first.get(key)}"
                    for key in ("track", "challenge", "task")
                    if data.get(key) != first.get(key)
                ),
                None,
            )
            or (
                f"it raced Elasticsearch {data['versions'].get('version')}, {first['stamp']} {first['versions'].get('version')}"
                if data["versions"].get("version") != first["versions"].get("version")
                else None
            )
        )
        if why:
            raise IngestlabError(f"--sum-of {data['stamp']}: not the same setup as {first['stamp']}: {why}")
        for race in data.get("race_ids") or ():
            if race in seen:
                raise IngestlabError(f"--sum-of {data['stamp']}: race {race} is also one of {seen[race]}'s: a session's races count once")
            seen[race] = data["stamp"]
    kinds = {floor_kind(d) for d in datas}
    rows, left_out = {}, []
    for row in ROWS:
        if row == "1" and len(kinds) > 1:
            each = "; ".join(d["stamp"] + ": " + floor_kind(d) for d in datas)
            left_out.append(f"1 race a side: judged against different floors ({each}), not summed")
            continue
        got = [r for d in datas if (r := _row(d, row))]
        if got:
            rows[row] = {key: [sum(r[key][0] for r in got if key in r), sum(r[key][1] for r in got if key in r)] for key in got[0]}
    sizes = {d["stamp"]: _ab_size(d) for d in datas}
    stamp = time.strftime("%Y-%m-%dT%H%M%S")
    conditions = (
        f"the rates of calibrations {', '.join(stamps)} summed ({first['track']}/{first['task']}, "
        f"{first['versions'].get('engine', 'elasticsearch')} {first['versions'].get('version')}; no race in two of them); "
        f"1 race a side judged against {'; '.join(sorted(kinds))}; the races ab would race: "
        + ", ".join(f"{s or 'none'} a side in {k}" for k, s in sizes.items())
        + ("; " + "; ".join(left_out) if left_out else "")
    )
    return {
        "stamp": stamp,
        "runs": stamps,
        "rows": rows,
        "conditions": conditions,
        "machine": first["machine"],
        "versions": first["versions"],
        "track": first["track"],
        "task": first["task"],
        "command": shlex.join(["python", "-m", "devtools.bench", "sessions", *[w for s in stamps for w in ("--sum-of", s)]]),
    }


def markdown(data: dict) -> str:
    names = {"1": "1", "3": "3", "ab": "what `ab` races for a 10 % change"}
    lines = [
        f"## calibrations summed ({data['stamp']})",
        "",
        f"`{data['command']}`: {data['conditions']}.",
        "",
        "| races a side | comparisons (disjoint) | false alarms (A/A) | a 5 % change found | a 10 % change found |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row, got in data["rows"].items():
        n = got["false_alarms"][1]
        lines.append(
            f"| {names[row]} | {n} | "
            + " | ".join(calibrate.rate_cell(*got[k]) if k in got else "—" for k in ("false_alarms", "detect_5", "detect_10"))
            + " |"
        )
    return "\n".join(lines) + "\n"


def to_ledger(data: dict) -> None:
    figures = {}
    for row, got in data["rows"].items():
        for key, (k, n) in got.items():
            figures.update(runs.rate_figures(f"{row}-{key}", f"{row} race(s) a side, summed: {key.replace('_', ' ')}", k, n))
    ledger.record(
        f"{data['stamp']}-sessions",
        "calibrate-sessions",
        data["command"],
        figures,
        data["versions"],
        data["conditions"],
        source=", ".join(f"results/calibration/{s}/results.json" for s in data["runs"]),
        info=data["machine"],
    )


def run(stamps: list[str], log=print) -> dict:
    data = total(stamps)
    log(markdown(data))
    to_ledger(data)
    return data
