"""Where ``python -m devtools.bench changepoints`` draws its simulated nights from: the calibration sessions of a track and task here, or
``ab`` sessions or nights of ``nightly --reference`` (pairs of a setup and a reference raced beside each other), each
session's log race figures.

A night's pairs are kept in the repository (``ledger/nights/<night>-<track>-<task>.json``: each pair's two figures, the
setup, the reference's version, the size, the machine) the first time a simulation draws from it, so that nights raced
on different days, on machines reset in between, accumulate: a night no longer in this machine's Rally home is read
from there."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

from devtools import ledger
from ingestlab import compare, machine, racing
from ingestlab.errors import IngestlabError
from ingestlab.rally import results
from ingestlab.verdicts import noise


def calibration_sessions(track: str, task: str) -> tuple[float, str, tuple]:
    """Every calibration session of ``track``/``task`` here that raced its own races (a re-judged one adds none): the σ
    of one race around the sessions' common mean, where they came from, and each session's log race medians."""
    found, _ = noise.sessions(track, None, None)
    found = [d for d in found if d["versions"].get("version") == found[0]["versions"].get("version")]  # the newest's version
    kept = [(d["stamp"], tuple(math.log(v) for v in noise.own_medians(d) if v and v > 0)) for d in found if d.get("task") == task]
    kept = [(stamp, logs) for stamp, logs in kept if len(logs) >= 3]
    if len(kept) < 2:
        raise IngestlabError(
            f"--sessions needs two or more calibration sessions of {track}/{task} on this machine that raced their own "
            f"races ({len(kept)} here): run `ingestlab calibrate` again"
        )
    sigma = sigma_around(tuple(logs for _, logs in kept))
    return sigma, "calibrations " + ", ".join(sorted(stamp for stamp, _ in kept)), tuple(logs for _, logs in sorted(kept))


def sigma_around(sessions: tuple) -> float:
    """σ of one race's log figure around the sessions' common mean (every session's shift in it)."""
    centre = statistics.fmean(statistics.fmean(logs) for logs in sessions)
    return math.sqrt(statistics.fmean((x - centre) ** 2 for logs in sessions for x in logs))


def ab_sessions(stamps: list[str], track: str, task: str) -> tuple[float, str, tuple]:
    """The pairs of each ``ab`` session named (its i-th baseline race beside its i-th contender race, as ``ab`` raced
    them): σ of one pair's log ratio around the sessions' common mean, where they came from, and each session's (log
    baseline, log contender) pairs."""
    if len(set(stamps)) < 2:
        raise IngestlabError("--ab: name two ab sessions or more (their stamps, as `ingestlab ab` printed them)")
    kept = [
        (
            stamp,
            _pairs(
                f"--ab {stamp}", [results.races_with_tags({"ab": f"{stamp}-{name}"}) for name in ("baseline", "contender")], track, task
            ),
        )
        for stamp in dict.fromkeys(stamps)
    ]
    return _paired_sessions(kept, "ab sessions ")


def nightly_sessions(nights: list[str], track: str, task: str) -> tuple[float, str, tuple]:
    """The pairs of each night named that ``nightly --reference --repeat N`` raced (in test mode, or at the articles'
    size with ``--full-size``): its i-th reference race beside its i-th race of the setup. As ``ab_sessions``, the
    reference in the baseline's place."""
    if len(set(nights)) < 2:
        raise IngestlabError("--nightly: name two nights or more (as the nightly report names them) raced with --reference")
    kept = []
    for night in dict.fromkeys(nights):
        stored = read_kept(night, track, task)
        if stored is not None:
            kept.append((night, tuple((math.log(b), math.log(c)) for b, c in stored["pairs"])))
            continue
        sides = [
            [r for r in results.races_with_tags({"nightly": night, "nightly-side": side}) if r.get("track") == track]
            for side in ("reference", "setup")
        ]
        setups = sorted({str((r.get("user-tags") or {}).get("nightly-setup")) for side in sides for r in side})
        if len(setups) > 1:
            raise IngestlabError(f"--nightly {night}: races of setups {', '.join(setups)} beside a reference; a night of one setup only")
        pairs = _pairs(f"--nightly {night}", sides, track, task, names=("reference", "setup"))
        keep(night, track, task, sides, pairs)
        kept.append((night, pairs))
    return _paired_sessions(kept, "nights ")


def kept_dir() -> Path:
    """Where kept nights are read from: beside the ledger entries (``INGESTLAB_LEDGER``'s directory, else the checkout's)."""
    return (ledger.target() or ledger.directory()) / "nights"


def _kept_path(night: str, track: str, task: str) -> Path:
    return kept_dir() / f"{night}-{track}-{task}.json"


def read_kept(night: str, track: str, task: str) -> dict | None:
    path = _kept_path(night, track, task)
    return json.loads(path.read_text()) if path.is_file() else None


def keep(night: str, track: str, task: str, sides: list, pairs: tuple) -> Path:
    """A night's pairs in the repository (see the module's doc), written once."""
    path = _kept_path(night, track, task)
    if path.is_file() or ledger.target() is None:  # kept already, or no ledger is written (INGESTLAB_LEDGER=off: tests)
        return path
    reference, setup = sides

    def versions(races: list) -> list[str]:
        return sorted({str((r.get("cluster") or {}).get("distribution-version")) for r in races})

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "night": night,
                "track": track,
                "task": task,
                "setup": str((setup[0].get("user-tags") or {}).get("nightly-setup")),
                "setup_version": versions(setup),
                "reference_version": versions(reference),
                "full_size": is_full_size(setup[0]),
                "raced": [str(setup[0].get("race-timestamp")), str(setup[-1].get("race-timestamp"))],
                "machine": machine.describe(),
                "pairs": [[math.exp(b), math.exp(c)] for b, c in pairs],  # (reference, setup) figures of each pair, in race order
            },
            indent=1,
        )
        + "\n"
    )
    return path


def nightly_kind(nights: list[str], track: str) -> tuple[str, bool, str]:
    """The setup the nights named raced (as its races were tagged), whether at full size, and the version of the
    reference raced beside it ("" for none): the configuration a simulation drawn from them speaks for; an error where
    the nights were raced at different sizes, or beside references of different versions."""
    sizes, setups, references = {}, {}, {}
    for night in dict.fromkeys(nights):
        stored = next((d for f in sorted(kept_dir().glob(f"{night}-{track}-*.json")) if (d := json.loads(f.read_text()))), None)
        if stored is not None:
            sizes.setdefault(stored["full_size"], set()).add(night)
            setups.setdefault(stored["setup"], set()).add(night)
            references.setdefault(", ".join(stored["reference_version"]), set()).add(night)
            continue
        for race in results.races_with_tags({"nightly": night}):
            if race.get("track") == track:
                tags = race.get("user-tags") or {}
                if tags.get("nightly-side") == "reference":
                    references.setdefault(str((race.get("cluster") or {}).get("distribution-version")), set()).add(night)
                    continue
                sizes.setdefault(is_full_size(race), set()).add(night)
                setups.setdefault(str(tags.get("nightly-setup")), set()).add(night)
    if len(references) > 1:
        raise IngestlabError(
            "--nightly: nights beside references of "
            + "; ".join(f"{v} ({', '.join(sorted(n))})" for v, n in sorted(references.items()))
            + ": a simulation draws from nights beside one reference"
        )
    if len(setups) > 1:
        raise IngestlabError(
            "--nightly: nights of setups "
            + "; ".join(f"{s} ({', '.join(sorted(n))})" for s, n in sorted(setups.items()))
            + ": a simulation draws from nights of one setup"
        )
    if len(sizes) != 1:
        raise IngestlabError(
            f"--nightly: nights {', '.join(sorted(sizes.get(True, ())))} raced at full size and "
            f"{', '.join(sorted(sizes.get(False, ())))} in test mode: a simulation draws from nights of one size"
            if sizes
            else f"--nightly: no race of {track} in the nights named"
        )
    return next(iter(setups)), next(iter(sizes)), next(iter(references), "")


def _pairs(name: str, sides: list, track: str, task: str, names: tuple[str, str] = ("baseline", "contender")) -> tuple:
    """A session's (log first side, log second side) pairs of ``task``, its i-th race of one side beside its i-th of the other."""
    first, second = names
    if not sides[0] or len(sides[0]) != len(sides[1]):
        raise IngestlabError(
            f"{name}: {len(sides[0])} {first} and {len(sides[1])} {second} races of {track} stored here; "
            f"a session's races a side, the same number each"
        )
    other = {r.get("track") for side in sides for r in side} - {track}
    if other:
        raise IngestlabError(f"{name}: races of {', '.join(sorted(map(str, other)))}, not --track {track}")
    figures = [[compare.task_figures(r).get(task) for r in side] for side in sides]
    lacking = [r["race-id"] for side, got in zip(sides, figures) for r, v in zip(side, got) if not v or v <= 0]
    if lacking:
        raise IngestlabError(f"{name}: race(s) {', '.join(lacking)} have no {task} figure; a pair without one cannot be judged")
    pairs = tuple((math.log(b), math.log(c)) for b, c in zip(*figures))
    if len(pairs) < 3:
        raise IngestlabError(f"{name}: {len(pairs)} pairs; 3 or more needed")
    return pairs


def _paired_sessions(kept: list, label: str) -> tuple[float, str, tuple]:
    sigma = sigma_around(tuple(tuple(c - b for b, c in pairs) for _, pairs in kept))
    return sigma, label + ", ".join(name for name, _ in kept), tuple(pairs for _, pairs in kept)


def is_full_size(race: dict) -> bool:
    """Whether a stored race (Rally's race.json) ran at its article's own size: it carries ``racing.FULL_SIZE_TAGS``."""
    tags = race.get("user-tags") or {}
    return all(tags.get(k) == v for k, v in racing.FULL_SIZE_TAGS.items())
