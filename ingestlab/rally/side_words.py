"""The load side's stored verdicts over a comparison's races, in words (:mod:`ingestlab.rally.load_side` judges each
race as it runs; :mod:`ingestlab.rally.limits` names what limited each task)."""

from __future__ import annotations

import statistics
from collections.abc import Callable

from ingestlab.rally.costs import ms
from ingestlab.rally.load_side import DRIVER_BOUND


def judged(race: dict, rated: Callable[[dict], list[str]] | None = None) -> dict[str, dict]:
    """Task → the load side's judgement of it in ``race``; a race judged whole (its tasks' spans not seen: its driver on
    a load-driver host) gives that judgement to its one task where ``rated`` (the tasks a race rated) names one."""
    side = (race.get("ingestlab-footprint") or {}).get("load_side") or {}
    if not side.get("tasks") and (side.get("verdict") or side.get("limit")) and rated is not None:
        tasks = rated(race)
        return {tasks[0]: side} if len(tasks) == 1 else {}
    return side.get("tasks") or {}


def in_words(races: list[dict], rated: Callable[[dict], list[str]] | None = None) -> dict[str, str]:
    """Task → the load side's verdicts over ``races``: the one verdict when every race that says agrees, else each with
    its count; with how many races said it when some did not (a race without a stored load side says nothing); then
    what limited the rate (:mod:`ingestlab.rally.limits`; "judged whole" where a race's was) and the median node CPU a
    document, where the races said. ``rated``: as :func:`judged`."""
    per_race = [judged(race, rated) for race in races]
    per_task: dict[str, list[str]] = {}
    for tasks in per_race:
        for task, got in tasks.items():
            if got.get("verdict"):
                per_task.setdefault(task, []).append(got["verdict"])
    out = {}
    for task, said in per_task.items():
        kinds = sorted(set(said), key=said.index)
        words = kinds[0] if len(kinds) == 1 else ", ".join(f"{k} {said.count(k)}" for k in kinds)
        out[task] = words if len(said) == len(races) else f"{words} ({len(said)} of {len(races)} races)"
        found = [tasks.get(task, {}).get("limit") or {} for tasks in per_race]
        held = sorted({f["resource"] for f in found if f.get("resource")})
        cost = [f["costs"]["node_cpu_ms_per_doc"] for f in found if "node_cpu_ms_per_doc" in (f.get("costs") or {})]
        whole = sum(
            task in tasks and not (race.get("ingestlab-footprint") or {}).get("load_side", {}).get("tasks")
            for race, tasks in zip(races, per_race)
        )
        if held:
            out[task] += f"; limit: {', '.join(held)}"
        if cost:
            out[task] += f"; {ms(statistics.median(cost))} ms node CPU a document"
        if whole:
            out[task] += "; judged over the whole race (its tasks' spans not seen)" + (
                f" in {whole} of {len(said)}" if whole < len(said) else ""
            )
    return out


def driver_bound(races: list[dict], rated: Callable[[dict], list[str]] | None = None) -> dict[str, tuple[int, int]]:
    """Task → (races in which the load driver was bound, races that say), from their stored footprints; ``rated``: as
    :func:`judged`."""
    out: dict[str, tuple[int, int]] = {}
    for race in races:
        for task, got in judged(race, rated).items():
            if got.get("verdict"):
                bound, seen = out.get(task, (0, 0))
                out[task] = (bound + (got["verdict"] == DRIVER_BOUND), seen + 1)
    return {task: counts for task, counts in out.items() if counts[0]}
