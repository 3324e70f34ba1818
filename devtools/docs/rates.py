"""Measured error rates as tables in the docs, from their ledger entries: a calibration's (``ingestlab calibrate``:
false alarms and detections with 1 and 3 races a side, the races a side each change needs) and the nightly rule's
(``python -m devtools.bench changepoints``). Each count with its rate and exact 95 % interval, each table closed by its run.

    <!-- ingestlab:calibration run=2026-11-27T054349 -->
    <!-- /ingestlab:calibration -->
"""

from __future__ import annotations

import re

from devtools import ledger
from devtools.docs import figures

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
    sizes = sorted({m.group(1) for name in entry.figures if (m := re.fullmatch(r"(\d+)-false_alarms-of", name))}, key=int)
    lines = [
        "| races a side | disjoint comparisons | " + " | ".join(label for _, label in COLUMNS) + " |",
        "|---:|---:|" + "---:|" * len(COLUMNS),
    ]
    for size in sizes:
        of = entry.figure(f"{size}-false_alarms-of").value
        lines.append(f"| {size} | {of:.0f} | " + " | ".join(_rate(entry, f"{size}-{key}") for key, _ in COLUMNS) + " |")
    lines += ["", "| change | races a side, against this noise floor | races a side, Welch without a floor |", "|---:|---:|---:|"]
    for effect in ("5", "10"):
        cells = [entry.figures.get(f"races-for-{effect}{tail}") for tail in ("", "-welch")]
        lines.append(
            f"| {effect} % | " + " | ".join("more than 100" if c is None or c.value is None else f"{c.value:.0f}" for c in cells) + " |"
        )
    lines += _doses(entry)
    lines += [
        "",
        f"σ of log race medians {figures.number(entry.figure('sigma').value, '%', '1')}; `{entry.command}`: {entry.conditions}; "
        f"{figures.run(args)}.",
    ]
    return "\n".join(lines)


def _doses(entry: ledger.Entry) -> list[str]:
    """A dose calibration's tables (``python -m devtools.bench dose``): each CPU quota's races and change against the whole core,
    then how often the default rule called A/A comparisons within a quota, and found each quota's change."""
    keys = sorted({m.group(1) for name in entry.figures if (m := re.fullmatch(r"(dose\d+)-races", name))}, key=lambda k: -int(k[4:]))
    if not keys:
        return []
    lines = [
        "",
        "A real change: the node's CPU quota (its core's share), raced in random blocks:",
        "",
        "| node quota (core) | races | median race | periods throttled | change against the whole core (95 %) |",
        "|---:|---:|---:|---:|---:|",
    ]
    for key in keys:
        f = entry.figures
        change = "—"
        if f.get(f"{key}-change") and f[f"{key}-change"].value is not None:
            change = f"{f[f'{key}-change'].value:+.1f} % ({f[f'{key}-low'].value:+.1f} to {f[f'{key}-high'].value:+.1f} %)"
        lines.append(
            f"| {int(key[4:]) / 100:g} | {f[f'{key}-races'].value:.0f} | {figures.number(f[f'{key}-median'].value, 'docs/s')} | "
            f"{figures.number(f[f'{key}-throttled'].value, '%', '0')} | {change} |"
        )
    sizes = sorted({m.group(1) for name in entry.figures if (m := re.fullmatch(r"dose\d+-(\d+)-false_alarms-of", name))}, key=int)
    lines += [
        "",
        "| races a side | "
        + " | ".join(f"quota {int(k[4:]) / 100:g}: false alarms (A/A)" + ("" if k == "dose100" else " · its change found") for k in keys)
        + " | every quota: false alarms (A/A) |",
        "|---:|" + "---:|" * (len(keys) + 1),
    ]
    for size in sizes:
        cells = []
        for key in keys:
            found = _rate(entry, f"{key}-{size}-found")
            cells.append(_rate(entry, f"{key}-{size}-false_alarms") + ("" if key == "dose100" else f" · {found}"))
        lines.append(f"| {size} | " + " | ".join(cells) + f" | {_rate(entry, f'dose-all-{size}-false_alarms')} |")
    return lines


def changepoints(args: dict) -> str:
    entry = figures.entry_of(args)
    lines = ["| | count | rate | exact 95 % interval |", "|---|---:|---:|---:|"]
    for key, label in (
        ("false_alarms", "series with a false change point"),
        ("found", "steps found in time"),
        ("drop_false_alarms", "drop rule: nights with no change called a regression (one task)"),
        ("drop_found", "drop rule: the step's first night called a regression"),
    ):
        if key not in entry.figures:  # runs before the drop rule was simulated
            continue
        f = entry.figure(key)
        counted = f"{entry.figure(key + '-count').value:.0f}/{entry.figure(key + '-of').value:.0f}"
        low, high = (entry.figures.get(f"{key}-low"), entry.figures.get(f"{key}-high"))
        interval = f"{low.value:.1f}–{high.value:.1f} %" if low and high and low.value is not None and high.value is not None else "—"
        lines.append(f"| {label} | {counted} | {figures.number(f.value, '%', '1')} | {interval} |")
    lines += ["", f"`{entry.command}`: {entry.conditions}; {figures.run(args)}."]
    return "\n".join(lines)


RENDERERS = {"calibration": calibration, "changepoints": changepoints}
