"""The overhead bench's report: per task, pack ÷ minimal as the median of its rounds with how sure that median is, and
each side's docs/s and client and node CPU per document; it ends with one line per task that a script reads."""

from __future__ import annotations

import statistics

from devtools.bench.interval import CONFIDENCE, median_interval
from ingestlab import machine


def _settled(waits: list | None) -> str:
    if not waits:
        return ""
    late = sum(not w.quiet for w in waits)
    return (
        f" Before each side both sides' indices were deleted and the bench waited for a quiet second on the nodes "
        f"(median wait {statistics.median(w.waited_s for w in waits):.1f} s; {late} of {len(waits)} waits ran out first)."
    )


def _stats(values: list) -> tuple:
    values = [v for v in values if v is not None]
    return (min(values), statistics.median(values), max(values)) if values else (None, None, None)


def ratios(task_name: str, history: list) -> list:
    """pack ÷ minimal docs/s of each round that measured the task (a task stops getting rounds once it is sure)."""
    return [h.pack[task_name].docs_per_s / h.minimal[task_name].docs_per_s for h in history if task_name in h.pack]


def report(
    chosen: list,
    history: list,
    rounds: int,
    runs: int,
    warmup_rounds: int = 0,
    data_note: str | None = None,
    waits: list | None = None,
    width: float | None = None,
    max_rounds: int | None = None,
) -> tuple[str, dict]:
    """``rounds``: the rounds every task got; a task whose interval was wider than ``width`` got more, up to
    ``max_rounds`` (None: none got more)."""
    from ingestlab.report.common import fmt

    more = (
        f" A task got more rounds, up to {max_rounds}, while the {CONFIDENCE:.0%} interval of its median ratio was wider than {width:.2f}."
        if width is not None and max_rounds and max_rounds > rounds
        else ""
    )
    lines = [
        (
            "## The pack's cost: its Rally race against a minimal client, side by side "
            f"(at least {rounds} interleaved rounds, {runs} runs each)"
        ),
        "",
        f"This machine: {machine.one_line()}. Figures are the median of the rounds (min–max), after {warmup_rounds} "
        "warm-up round(s) that are not counted." + more + (f" {data_note}" if data_note else "") + _settled(waits),
        "",
        f"The {CONFIDENCE:.0%} interval holds the true median ratio with at least that chance, assuming no distribution "
        "(order statistics of the rounds); fewer than 6 rounds give none (—).",
        "",
        f"| task | pack docs/s | minimal docs/s | pack ÷ minimal | {CONFIDENCE:.0%} interval | rounds | client CPU µs/doc: pack | minimal "
        "| node CPU µs/doc: pack | minimal |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    data, verdicts = {}, []
    for t in chosen:
        measured = [h for h in history if t.name in h.pack]
        ratio_values = ratios(t.name, history)
        found = median_interval(ratio_values, CONFIDENCE)
        cells = {
            k: _stats([getattr(getattr(h, side)[t.name], attr) for h in measured])
            for k, (side, attr) in {
                "pack_docs_s": ("pack", "docs_per_s"),
                "minimal_docs_s": ("minimal", "docs_per_s"),
                "pack_client_us": ("pack", "client_us"),
                "minimal_client_us": ("minimal", "client_us"),
                "pack_node_us": ("pack", "node_us"),
                "minimal_node_us": ("minimal", "node_us"),
            }.items()
        }
        ratio = _stats(ratio_values)
        data[t.name] = {
            "ratio": ratio,
            "rounds": len(measured),
            "ratios": ratio_values,
            "interval": None if found is None else {"low": found.low, "high": found.high, "coverage": found.coverage},
            **cells,
        }

        def show(stat, pattern=",.0f"):
            low, mid, high = stat
            if mid is None:
                return fmt(None, pattern)
            return f"{fmt(mid, pattern)} ({fmt(low, pattern)}–{fmt(high, pattern)})"

        sure = fmt(None, ".2f") if found is None else f"{found.low:.2f}–{found.high:.2f}"
        lines.append(
            f"| {t.name} | {show(cells['pack_docs_s'])} | {show(cells['minimal_docs_s'])} | {show(ratio, '.2f')}× "
            f"| {sure} | {len(measured)} | {show(cells['pack_client_us'], ',.1f')} | {show(cells['minimal_client_us'], ',.1f')} "
            f"| {show(cells['pack_node_us'], ',.1f')} | {show(cells['minimal_node_us'], ',.1f')} |"
        )
        verdicts.append(f"{t.name}: pack/minimal = {ratio[1]:.2f}x")
    lines += [
        "",
        "Pack: `ingestlab race` of the task (esrally, the pack's runner). Minimal: `python -m devtools.bench.minimal` "
        "(elasticsearch-py, sync, bodies built before timing; the copy over urllib3 with the same raw splice). Client CPU is the "
        "sending process's CPU in the timed part; node CPU is the nodes' CPU over each side's runs ÷ documents.",
        "",
        *verdicts,
    ]
    return "\n".join(lines) + "\n", data


def to_ledger(data: dict, stamp: str, command: str, note: str | None = None) -> None:
    """The run's ledger entry: each task's pack ÷ minimal (the median of its rounds, its 95 % interval where it has one)
    and both sides' client and node CPU per document."""
    from devtools import ledger

    figures = {}
    for task, got in data.items():
        key = task.replace(" ", "-").replace("=", "-")
        low, median, high = got["ratio"]
        figures[f"{key}-ratio"] = ledger.Figure(round(median, 3), "×", f"{task}: pack ÷ minimal, the median of {got['rounds']} rounds")
        interval = got.get("interval")
        figures[f"{key}-low"] = ledger.Figure(None if not interval else round(interval[0], 3), "×", f"{task}: its 95 % interval, low")
        figures[f"{key}-high"] = ledger.Figure(None if not interval else round(interval[1], 3), "×", f"{task}: its 95 % interval, high")
        figures[f"{key}-rounds"] = ledger.Figure(got["rounds"], "rounds", f"{task}: rounds")
        for side in ("pack", "minimal"):
            figures[f"{key}-{side}-client-us"] = ledger.Figure(
                round(got[f"{side}_client_us"][1], 1), "µs", f"{task}: {side} client CPU per document"
            )
            figures[f"{key}-{side}-node-us"] = ledger.Figure(
                None if got[f"{side}_node_us"][1] is None else round(got[f"{side}_node_us"][1], 1),
                "µs",
                f"{task}: node CPU per document, {side} side",
            )
    ledger.record(
        f"{stamp}-overhead",
        "bench overhead",
        command,
        figures,
        conditions=note or "",
        source=f"results/bench/overhead/{stamp}/results.json",
    )
