"""What a pool of identical races says of ``compare``'s default rule on this machine (no racing here: see
:mod:`ingestlab.calibrate`): each task's noise floor, and false-alarm and detection rates (an exact 5 % and 10 % change
applied to the contender) over **disjoint** comparisons of shuffled splits, of blocks raced one after the other, and of
pairs of consecutive races (``ab``'s design), judged as ``compare`` judges them; and races a side each change needs."""

from __future__ import annotations

import math
import random
import statistics

from ingestlab.verdicts import judge, stats
from ingestlab.verdicts.noise import Floor

EFFECTS = (0.05, 0.10)
DETECTION_POWER = 0.90


def sigma(values: list[float]) -> float | None:
    logs = stats.logs(values)
    return statistics.stdev(logs) if len(logs) > 1 else None


def splits(count: int, size: int, seed: int = 1) -> list[tuple[list[int], list[int]]]:
    """Disjoint comparisons of ``size`` against ``size`` of ``count`` races (indices), from one seeded shuffle."""
    order = list(range(count))
    random.Random(seed).shuffle(order)
    return [(order[i : i + size], order[i + size : i + 2 * size]) for i in range(0, count - 2 * size + 1, 2 * size)]


def _call(base: list[float], cont: list[float], floor: Floor | None, times: tuple = ((), ()), pairs: tuple = ()) -> str:
    sides = (judge.Side(tuple(base), tuple(times[0]), pairs), judge.Side(tuple(cont), tuple(times[1]), pairs))
    return judge.judge({"task": sides}, {"task": floor})[0].call


def blocks(count: int, size: int) -> list[tuple[list[int], list[int]]]:
    """Disjoint comparisons of ``size`` consecutive races against the ``size`` raced next, in race order."""
    return [(list(range(i, i + size)), list(range(i + size, i + 2 * size))) for i in range(0, count - 2 * size + 1, 2 * size)]


def rates(values: list[float], sizes=(1, 3), seed: int = 1, floor: Floor | None = None, times: list | None = None) -> dict:
    """For each size: [k, n] of ``false_alarms``, ``detect_5`` and ``detect_10`` over disjoint comparisons of the
    pool's race medians ``values`` (in race order): shuffled splits, ``blocks`` (with ``times``) and ``pairs``. With
    fewer than 3 a side against ``floor`` where given, else the pool's other races."""
    out = {}
    for size in sizes:
        out[str(size)] = _counts(values, splits(len(values), size, seed), size, floor)
        if times and len(times) == len(values):
            out[str(size)]["blocks"] = _counts(values, blocks(len(values), size), size, floor, times)
        if size >= judge.MIN_RACES:
            out[str(size)]["pairs"] = _counts(values, paired(len(values), size, seed), size, floor, in_pairs=True)
    return out


def paired(count: int, size: int, seed: int = 1) -> list[tuple[list[int], list[int]]]:
    """Disjoint comparisons of ``size`` pairs of consecutive races (``ab``'s design): each pair's races go to the two
    sides in a random order (seeded); the i-th race of a side is of the i-th pair."""
    rng, out = random.Random(seed), []
    for start in range(0, count - 2 * size + 1, 2 * size):
        a, b = [], []
        for i in range(start, start + 2 * size, 2):
            first, second = (i, i + 1) if rng.random() < 0.5 else (i + 1, i)
            a.append(first)
            b.append(second)
        out.append((a, b))
    return out


def _counts(values: list[float], comparisons, size: int, floor: Floor | None, times: list | None = None, in_pairs: bool = False) -> dict:
    counts = {"false_alarms": [0, 0], **{f"detect_{round(e * 100)}": [0, 0] for e in EFFECTS}}
    given = floor if size < judge.MIN_RACES else None
    for a, b in comparisons:
        floor_ = given if floor is not None else _floor([values[i] for i in range(len(values)) if i not in a and i not in b], size)
        base, cont = [values[i] for i in a], [values[i] for i in b]
        when = ([times[i] for i in a], [times[i] for i in b]) if times else ((), ())
        labels = tuple(str(k) for k in range(len(a))) if in_pairs else ()
        counts["false_alarms"][0] += _call(base, cont, floor_, when, labels) in ("faster", "slower")
        counts["false_alarms"][1] += 1
        for effect in EFFECTS:
            key = f"detect_{round(effect * 100)}"
            counts[key][0] += _call(base, [v * (1 - effect) for v in cont], floor_, when, labels) == "slower"
            counts[key][1] += 1
    return counts


def _floor(rest: list[float], size: int) -> Floor | None:
    spread = sigma(rest)
    return (
        Floor(spread, len(rest) - 1, "the pool's other races", logs=tuple(stats.logs(rest))) if spread and size < judge.MIN_RACES else None
    )


def sizes(need: dict, races: int) -> tuple[int, ...]:
    """Races a side to measure the rates at: 1 and 3, and the number ``ingestlab ab`` chooses for a 10 % change (from
    ``need``, :func:`races_a_side`) where the pool holds one such comparison."""
    chosen = max((need.get("10") or {}).get("welch") or 0, 3)
    return (1, 3) + ((chosen,) if chosen > 3 and 2 * chosen <= races else ())


def races_a_side(spread: float, races: int) -> dict:
    """Races a side that find each effect with ≥ 90 % power at a 5 % level: against a floor of ``races`` races (1 or 2 a
    side), and without one (Welch, 3 or more); None where more than 100 would be needed."""
    out = {}
    for effect in EFFECTS:
        with_floor = next(
            (n for n in range(1, 101) if stats.smallest_change(spread, n, n, df=races - 1, power=DETECTION_POWER) <= effect), None
        )
        out[str(round(effect * 100))] = {
            "with_floor": with_floor,
            "welch": stats.races_needed(effect, spread, power=DETECTION_POWER, most=100),
        }
    return out


def warm(values: list[float], agree: int, tolerance: float) -> int | None:
    """The number of races after which ``agree`` consecutive races agree within ``tolerance`` (max ÷ min − 1): the
    node is warm from there; None while it is not."""
    for end in range(agree, len(values) + 1):
        window = values[end - agree : end]
        if min(window) > 0 and max(window) / min(window) - 1 <= tolerance:
            return end
    return None


def drift_ratio(values: list[float]) -> float:
    """The last race's median ÷ the first's, for the warm-up line."""
    return values[-1] / values[0] if values and values[0] else math.nan
