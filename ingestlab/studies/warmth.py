"""Whether a study's cells ran warm, from the runs each cell repeated (the ``fresh-index-load`` runner's records, one
per run, in run order): each cell with enough runs (5 at 5 %) is tested for a trend in run order
(Mann–Kendall, exact, two-sided, 5 %, Holm across the race's cells). A cell whose runs grew faster is *warming*; a cell
with too few runs, or a track without per-run times, is said so, never guessed.
"""

from __future__ import annotations

from ingestlab.rally.results import RaceResult
from ingestlab.verdicts import ordering, stats

LEVEL = 0.05
TOO_FEW = "too few runs"
METHOD = "fresh-index-load"


def runs(result: RaceResult) -> dict[str, list[float]]:
    """Each task's run times (s), in the order they ran (the order of their records: one client per such task)."""
    out: dict[str, list[float]] = {}
    for s in result.runner_stats:
        if s.get("method") == METHOD and s.get("elapsed_s") is not None and s.get("task"):
            out.setdefault(s["task"], []).append(float(s["elapsed_s"]))
    return out


def trends(result: RaceResult) -> dict[str, tuple[list[float], ordering.Trend | None, str]]:
    """task → (its run times, their Mann–Kendall trend or None, and ``warm``, ``warming``, ``slowing`` or ``too few runs``),
    the trends found with Holm's correction across the race's cells. A cell too short for the test to reach its corrected
    level (``fewest_for_trend`` at level ÷ cells) is ``too few runs``, never ``warm``."""
    out = {}
    found = {task: (times, ordering.mann_kendall(times)) for task, times in runs(result).items()}
    tasks = list(found)
    tested = sum(1 for t in tasks if found[t][1] is not None)
    least = ordering.fewest_for_trend(LEVEL / max(tested, 1))  # Holm's first step: below this no cell can be named
    rejected = stats.holm([found[t][1].p if found[t][1] else None for t in tasks], LEVEL)
    for task, hit in zip(tasks, rejected):
        times, trend = found[task]
        if trend is None or len(times) < least:
            out[task] = (times, trend, TOO_FEW)
        else:  # run times: shorter runs are faster
            out[task] = (times, trend, ("slowing" if trend.rising else "warming") if hit else "warm")
    return out


def verdicts(result: RaceResult) -> dict[str, str]:
    """task → ``warm``, ``warming``, ``slowing`` or ``too few runs`` (to see a trend)."""
    return {task: verdict for task, (_, _, verdict) in trends(result).items()}


def line(result: RaceResult) -> str:
    """The report's line on it."""
    found = trends(result)
    if not found:
        return (
            "- Warm or not: no per-run times in this race (Rally's own bulk, or plain esrally without the pack's runner "
            "records), so whether its cells ran on a warm node is not told here."
        )
    warm = [t for t, (_, _, v) in found.items() if v == "warm"]
    few = [t for t, (_, _, v) in found.items() if v == TOO_FEW]
    tested = len(found) - len(few)
    parts = (
        [f"{len(warm)} of {tested} cells showed no trend over their runs (Mann–Kendall, {LEVEL:.0%}, Holm across them)"] if tested else []
    )
    for task, (times, trend, verdict) in found.items():
        if verdict == "slowing":
            parts.append(
                f"{task} grew slower as it went (first {times[0] * 1000:,.0f} ms, last {times[-1] * 1000:,.0f} ms, "
                f"p = {trend.p:.3f}): something else took the machine, or the index grew costlier"
            )
        elif verdict == "warming":
            parts.append(
                f"{task} was still warming up: its runs grew faster as it went (first {times[0] * 1000:,.0f} ms, "
                f"last {times[-1] * 1000:,.0f} ms, p = {trend.p:.3f}), so its fastest run is from its warm end and a "
                f"single run of it would have read slow"
            )
    if few:
        parts.append(
            f"{', '.join(few)}: too few runs to see a trend (with {tested or 1} cell(s) corrected together, a cell needs "
            f"{ordering.fewest_for_trend(LEVEL / max(tested, 1))})"
        )
    return "- Warm or not: " + "; ".join(parts) + "."
