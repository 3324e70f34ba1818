"""Where ``bench changepoints`` draws its simulated nights from: the calibration sessions of a track and task here, or
``ab`` sessions (pairs of a setup and a reference raced beside each other), each session's log race figures."""
from __future__ import annotations

import math
import statistics

from ingestlab import compare
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
        raise IngestlabError(f"--sessions needs two or more calibration sessions of {track}/{task} on this machine that raced their own "
                             f"races ({len(kept)} here): run `ingestlab calibrate` again")
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
    kept = []
    for stamp in dict.fromkeys(stamps):
        sides = [results.races_with_tags({"ab": f"{stamp}-{name}"}) for name in ("baseline", "contender")]
        if not sides[0] or len(sides[0]) != len(sides[1]):
            raise IngestlabError(f"--ab {stamp}: {len(sides[0])} baseline and {len(sides[1])} contender races stored here; an ab "
                                 f"session's races a side, the same number each")
        other = {r.get("track") for side in sides for r in side} - {track}
        if other:
            raise IngestlabError(f"--ab {stamp}: races of {', '.join(sorted(map(str, other)))}, not --track {track}")
        figures = [[compare.task_figures(r).get(task) for r in side] for side in sides]
        lacking = [r["race-id"] for side, got in zip(sides, figures) for r, v in zip(side, got) if not v or v <= 0]
        if lacking:
            raise IngestlabError(f"--ab {stamp}: race(s) {', '.join(lacking)} have no {task} figure; a pair without one cannot be judged")
        pairs = tuple((math.log(b), math.log(c)) for b, c in zip(*figures))
        if len(pairs) < 3:
            raise IngestlabError(f"--ab {stamp}: {len(pairs)} pairs; 3 or more needed")
        kept.append((stamp, pairs))
    sigma = sigma_around(tuple(tuple(c - b for b, c in pairs) for _, pairs in kept))
    return sigma, "ab sessions " + ", ".join(stamp for stamp, _ in kept), tuple(pairs for _, pairs in kept)
