"""What a calibration measured, said under a comparison: the false-alarm and detection rates of the default rule for
the comparison's own number of races a side and its own design (sides raced in blocks one after the other, or sides
mixed in time), each with its exact 95 % interval, the design it was measured on and the command that measured it."""

from __future__ import annotations

from ingestlab.verdicts.stats import clopper_pearson


def rate(k: int, n: int) -> str:
    low, high = clopper_pearson(k, n)
    return f"{k}/{n} ({k / n:.0%}, 95 % interval {low:.0%}–{high:.0%})" if n else "none measured"


def sentence(calibration: dict | None, per_side: int, in_blocks: bool = False, in_pairs: bool = False) -> str:
    """The calibration's row for ``per_side`` races a side, in words, measured on the comparison's design: blocks raced
    one after the other where ``in_blocks``, else shuffled splits; what it lacks, said so."""
    if not calibration:
        return (
            "No calibration of this track on this machine: its error rates are not measured here "
            "(`ingestlab calibrate --track …` measures them)."
        )
    rows = calibration.get("rates", {})
    where = (
        f"calibration {calibration['stamp']} ({calibration['track']}/{calibration.get('task', '')}, "
        f"{calibration['versions'].get('version')}; `{calibration.get('command', 'ingestlab calibrate')}`)"
    )
    got = rows.get(str(per_side))
    if not got:
        have = ", ".join(sorted(rows, key=int)) or "none"
        return (
            f"The {where} measured no comparison of {per_side} race(s) a side (it has {have}): "
            "this comparison's error rates are not measured."
        )
    design, missing = "on shuffled splits of its identical races", ""
    if in_pairs and got.get("pairs"):
        got, design = got["pairs"], "on pairs of its consecutive identical races, as `ab` races them"
    elif in_pairs:
        missing = " These sides ran in pairs, a design that calibration did not measure (calibrate again to measure it)."
    elif in_blocks and got.get("blocks"):
        got, design = got["blocks"], "on blocks of its identical races raced one after the other, as these sides were"
    elif in_blocks:
        missing = (
            " These sides ran in blocks one after the other, a design that calibration did not measure (calibrate again to measure it)."
        )
    parts = [f"called {rate(*got['false_alarms'])} A/A comparisons different"]
    for key, size in (("detect_10", "10 %"), ("detect_5", "5 %")):
        if key in got:
            parts.append(f"found a {size} change in {rate(*got[key])}")
    return (
        f"Measured by the {where}, with {per_side} race(s) a side {design}: the default rule "
        + "; ".join(parts)
        + judged_against(calibration, per_side)
        + "."
        + missing
    )


def judged_against(calibration: dict, per_side: int) -> str:
    """What a calibration judged its comparisons of fewer than 3 races a side against: earlier sessions' races, as
    ``compare`` judges races raced after them, or the same session's other races."""
    if per_side >= 3:
        return ""
    earlier = floors_of(calibration)
    if not earlier:
        return ", each judged against the same session's other races (not as compare judges races of a later session)"
    return (
        f", each judged against the races of calibration{'s' if len(earlier) > 1 else ''} {', '.join(earlier)}"
        + (" (the floor spanning their sessions)" if len(earlier) > 1 else "")
        + ", as compare judges races raced after them"
    )


def floors_of(calibration: dict) -> list[str]:
    """The earlier calibrations a calibration judged its 1-2-a-side comparisons against (one stamp in files written
    before ``--floor-of`` was repeatable)."""
    earlier = calibration.get("floor_of") or []
    return [earlier] if isinstance(earlier, str) else list(earlier)
