"""Measured error rates as tables in the docs, from their ledger entries: a calibration's (``ingestlab calibrate``:
false alarms and detections with 1 and 3 races a side, the races a side each change needs) and the nightly rule's
(``ingestlab bench changepoints``). Each count with its rate and exact 95 % interval, each table closed by its run.

    <!-- ingestlab:calibration run=2026-11-27T054349 -->
    <!-- /ingestlab:calibration -->
"""
from __future__ import annotations

from ingestlab import ledger
from ingestlab.docs import figures

COLUMNS = (("false_alarms", "false alarms (A/A)"), ("detect_5", "an exact 5 % change found"), ("detect_10", "an exact 10 % change found"))


def _rate(entry: ledger.Entry, key: str) -> str:
    if f"{key}-of" not in entry.figures:
        return "—"
    k, n = entry.figure(f"{key}-count").value, entry.figure(f"{key}-of").value
    low, high = entry.figure(f"{key}-low").value, entry.figure(f"{key}-high").value
    if not n or low is None or high is None:
        return "—"
    return f"{k:.0f}/{n:.0f} ({entry.figure(key).value:.1f} %; {low:.1f}–{high:.1f} %)"


def calibration(args: dict) -> str:
    entry = figures.entry_of(args)
    sizes = sorted({name.split("-")[0] for name in entry.figures if name.endswith("-false_alarms-of")}, key=int)
    lines = ["| races a side | disjoint comparisons | " + " | ".join(label for _, label in COLUMNS) + " |",
             "|---:|---:|" + "---:|" * len(COLUMNS)]
    for size in sizes:
        of = entry.figure(f"{size}-false_alarms-of").value
        lines.append(f"| {size} | {of:.0f} | " + " | ".join(_rate(entry, f"{size}-{key}") for key, _ in COLUMNS) + " |")
    lines += ["", "| change | races a side, against this noise floor | races a side, Welch without a floor |", "|---:|---:|---:|"]
    for effect in ("5", "10"):
        cells = [entry.figures.get(f"races-for-{effect}{tail}") for tail in ("", "-welch")]
        lines.append(f"| {effect} % | " + " | ".join("more than 100" if c is None or c.value is None else f"{c.value:.0f}" for c in cells) + " |")
    lines += ["", f"σ of log race medians {figures.number(entry.figure('sigma').value, '%', '1')}; `{entry.command}`: {entry.conditions}; "
                  f"{figures.run(args)}."]
    return "\n".join(lines)


def changepoints(args: dict) -> str:
    entry = figures.entry_of(args)
    lines = ["| | count | rate | exact 95 % interval |", "|---|---:|---:|---:|"]
    for key, label in (("false_alarms", "series with a false change point"), ("found", "steps found in time")):
        f = entry.figure(key)
        counted = f"{entry.figure(key + '-count').value:.0f}/{entry.figure(key + '-of').value:.0f}"
        low, high = (entry.figures.get(f"{key}-low"), entry.figures.get(f"{key}-high"))
        interval = f"{low.value:.1f}–{high.value:.1f} %" if low and high and low.value is not None and high.value is not None else "—"
        lines.append(f"| {label} | {counted} | {figures.number(f.value, '%', '1')} | {interval} |")
    lines += ["", f"`{entry.command}`: {entry.conditions}; {figures.run(args)}."]
    return "\n".join(lines)


RENDERERS = {"calibration": calibration, "changepoints": changepoints}
