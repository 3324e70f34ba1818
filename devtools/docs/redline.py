"""Redline searches in the docs, from their ledger entries (``python -m devtools.ledger record redline STAMP`` makes
one a search): one row per run, with its command and provenance under the table.

    <!-- ingestlab:redline runs=2026-11-27T091500-redline,2026-11-27T093000-redline -->
    <!-- /ingestlab:redline -->
"""

from __future__ import annotations

from devtools.docs import figures


def table(args: dict) -> str:
    runs = [r for r in args.get("runs", "").split(",") if r]
    if not runs:
        return "(no redline search recorded yet)"
    lines = [
        (
            "| track and setup | target | sustainable docs/s | failed at docs/s | full speed docs/s "
            "| sustainable ÷ full speed | probes | took | run |"
        ),
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    notes = []
    for i, run in enumerate(runs, 1):
        entry = figures.entry_of({"run": run})
        f = entry.figures
        rate, full = f["sustainable"].value, f["full-speed"].value
        share = "—" if rate is None or not full else f"{rate / full:.0%}"
        setup = entry.conditions.split("; stopped:")[0]
        took = figures.number(f["duration"].value, "s") if "duration" in f else "—"
        lines.append(
            f"| {setup}; {entry.versions.get('engine', '')} {entry.versions.get('version') or ''} "
            f"| {f['target-ms'].label.split('(')[-1].rstrip(')')} "
            f"<= {figures.number(f['target-ms'].value, '', '0')} ms | {figures.number(rate, '', '0')} | "
            f"{figures.number(f['failed-above'].value, '', '0')} | {figures.number(full, '', '0')} | {share} | "
            f"{figures.number(f['probes'].value, '', '0')} | {took} | [{i}] |"
        )
        notes.append(f"[{i}] `{entry.command}`; {figures.run({'run': run})}; stopped: {entry.conditions.split('; stopped: ', 1)[-1]}")
    return "\n".join(lines + [""] + notes)


def over_table(args: dict) -> str:
    """Searches over clients or bulk size at full speed (``ingestlab redline --over``): the highest that kept the target,
    the step above it that failed, the throughput there and the USL's N* beside it (clients)."""
    runs = [r for r in args.get("runs", "").split(",") if r]
    if not runs:
        return "(no search over clients or bulk size recorded yet)"
    lines = [
        "| track and setup | target | highest that kept it | failed at | docs/s there | USL's N* | probes | took | run |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    notes = []
    for i, run in enumerate(runs, 1):
        entry = figures.entry_of({"run": run})
        f = entry.figures
        unit = f["highest"].unit
        setup = entry.conditions.split("; stopped:")[0]
        took = figures.number(f["duration"].value, "s") if "duration" in f else "—"
        through = figures.number(f["throughput-at-highest"].value, "", "0") if "throughput-at-highest" in f else "—"
        peak = figures.number(f["usl-peak"].value, "", "1") if "usl-peak" in f else "—"
        lines.append(
            f"| {setup}; {entry.versions.get('engine', '')} {entry.versions.get('version') or ''} | "
            f"{f['target-ms'].label.split('(')[-1].rstrip(')')} <= {figures.number(f['target-ms'].value, '', '0')} ms | "
            f"{figures.number(f['highest'].value, '', '0')} {unit} | {figures.number(f['failed-above'].value, '', '0')} | {through} | "
            f"{peak} | {figures.number(f['probes'].value, '', '0')} | {took} | [{i}] |"
        )
        notes.append(f"[{i}] `{entry.command}`; {figures.run({'run': run})}; stopped: {entry.conditions.split('; stopped: ', 1)[-1]}")
    return "\n".join(lines + [""] + notes)


RENDERERS = {"redline": table, "redline-over": over_table}
