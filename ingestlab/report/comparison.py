"""A comparison written out: the markdown table a user reads (a verdict a task, its interval and what it rests on, the
footnote naming the rule and its measured error rates), and the csv, json and html forms of it. The judging is
:mod:`ingestlab.compare`'s."""

from __future__ import annotations

import csv
import io
import json

from ingestlab import compare
from ingestlab.report import html
from ingestlab.verdicts import rates


def _agg(a: compare.Aggregate) -> str:
    spread = f", CV {a.cv:.1%}" if a.cv is not None else (f", samples ±{a.spread:.1%}" if a.spread else ", one sample")
    return f"{a.median:,.1f} ({a.minimum:,.1f}–{a.maximum:,.1f}, n={a.n}{spread})"


def _judged(d: compare.Difference) -> str:
    if d.method == "t":
        return f"{d.low:+.1%} to {d.high:+.1%}" if d.low is not None else "—"
    return f"±{d.margin:.1%}" if d.margin is not None else "—"


def _service(a: compare.Aggregate) -> str:
    return " / ".join("—" if a.service.get(p) is None else f"{a.service[p]:,.1f}" for p in ("p50", "p90", "p99"))


def rows(
    baseline_name: str,
    baseline: dict[str, compare.Aggregate],
    contenders: list[tuple[str, dict[str, compare.Aggregate]]],
    margin: float | None = None,
    method: str = "t",
    floors: dict | None = None,
) -> list[dict]:
    """One plain row per contender and task: what the csv and json formats write."""
    out = []
    for name, contender in contenders:
        for d in compare.compare(baseline, contender, margin, method, floors):
            row = {
                "baseline": baseline_name,
                "contender": name,
                "task": d.task,
                "unit": d.baseline.unit,
                "baseline_median": d.baseline.median,
                "baseline_n": d.baseline.n,
                "contender_median": d.contender.median,
                "contender_n": d.contender.n,
                "change": d.change,
                "method": d.method,
                "interval_low": d.low,
                "interval_high": d.high,
                "margin": d.margin,
                "verdict": d.verdict,
                "basis": d.basis,
                "smallest_change_found": d.smallest,
                "races_needed": d.needs,
                "trend": d.trend,
                "design": d.design,
                "primary_task": d.baseline.primary and d.contender.primary,
                "baseline_error_rate": d.baseline.error_rate,
                "contender_error_rate": d.contender.error_rate,
                "baseline_load_side": d.baseline.load_side,
                "contender_load_side": d.contender.load_side,
            }
            for side, a in (("baseline", d.baseline), ("contender", d.contender)):
                row.update({f"{side}_service_{p}_ms": a.service.get(p) for p in ("p50", "p90", "p99")})
            out.append(row)
    return out


def footnote(
    method: str,
    margin: float | None,
    calibration: dict | None = None,
    per_side: int = 1,
    in_blocks: bool = False,
    primary: bool = False,
    in_pairs: bool = False,
) -> str:
    if margin is not None:
        return f"The margin is fixed at {margin:.1%}."
    if method == "margin":
        return (
            f"The margin rule: {compare.MARGIN_FACTOR:g}× the larger coefficient of variation of the two sides with several races "
            f"per side; with a side of one race there is no spread to judge by, and the verdict says {compare.NOT_ENOUGH}."
        )
    return (
        "Verdicts take the race as the unit: with 3 races or more a side, Welch's test on log race medians (the change "
        "and its interval as the ratio of geometric means), Holm's correction across the tasks, each interval at the level "
        "Holm judged its task at (95 % with one task: it excludes no change exactly where the call is a change); with fewer, only "
        "against a noise floor measured here for the task, else not called. Sides raced one after the other are fitted "
        "as a step plus a linear drift in time: where the drift within the sides is significant and explains half of their "
        "difference or more, the step beyond it is judged (p doubled; its estimate and interval in the verdict's brackets). "
        'Rally\'s throughput samples of a race never decide. "Could find" is the smallest change the comparison finds 80 % of '
        "the time. Sides raced in pairs (`ab`) are judged pair by pair: a paired t test on each pair's log ratio. "
        + (
            "A task named before the races (`ab --task`) is judged at 5 % alone and the other tasks Holm among themselves at "
            "5 %: over both, up to 10 % family-wise. "
            if primary
            else ""
        )
        + rates.sentence(calibration, per_side, in_blocks, in_pairs)
    )


def markdown(
    baseline_name: str,
    baseline: dict[str, compare.Aggregate],
    contenders: list[tuple[str, dict[str, compare.Aggregate]]],
    margin: float | None = None,
    notes: list[str] | None = None,
    method: str = "t",
    calibration: dict | None = None,
    floors: dict | None = None,
) -> str:
    t_rule = method == "t" and margin is None
    judged = "interval of the change" if t_rule else "margin"
    lines = [f"## Compare: baseline {baseline_name}", ""]
    for name, contender in contenders:
        found = compare.compare(baseline, contender, margin, method, floors)
        lines += [
            f"### {name} against the baseline",
            "",
            f"| task | baseline: median (min–max, n, spread) | contender | change | {judged} | could find | verdict "
            "| service p50 / p90 / p99 ms: baseline → contender | error rate | load side |",
            "|---|---:|---:|---:|---:|---:|---|---|---:|---|",
        ]
        for d in found:
            errors = f"{d.baseline.error_rate:.1%} → {d.contender.error_rate:.1%}"
            could = "—" if d.smallest is None else f"±{d.smallest:.1%}"
            lines.append(
                f"| {d.task} | {_agg(d.baseline)} | {_agg(d.contender)} | {d.change:+.1%} | {_judged(d)} | {could} "
                f"| {d.verdict}{f' ({d.basis})' if t_rule and d.basis else ''} | {_service(d.baseline)} → {_service(d.contender)} "
                f"| {errors} | {d.baseline.load_side or '—'} → {d.contender.load_side or '—'} |"
            )
        lines.append("")
        lines += [f"- {d.task}: {d.trend}" for d in found if d.trend]
        per_side = min([min(d.baseline.n, d.contender.n) for d in found] or [1])
        designs = {d.design for d in found}
        primary = any(d.baseline.primary and d.contender.primary for d in found) and len(found) > 1
        said = footnote(method, margin, calibration, per_side, "blocks" in designs, primary, "pairs" in designs)
        lines += ["", f"Figures are Rally's median throughput per task (higher is better). {said}", ""]
    lines += [f"- {note}" for note in notes or []]
    return "\n".join(lines) + "\n"


def render(
    fmt: str,
    baseline_name: str,
    baseline: dict[str, compare.Aggregate],
    contenders: list[tuple[str, dict[str, compare.Aggregate]]],
    **options,
) -> str:
    """The comparison as markdown, csv, json or a self-contained html page; ``options``: :func:`markdown`'s."""
    if fmt in ("markdown", "html"):
        text = markdown(baseline_name, baseline, contenders, **options)
        return text if fmt == "markdown" else html.page(f"ingestlab compare: {baseline_name}", text, [])
    margin, method = options.get("margin"), options.get("method", "t")
    table = rows(baseline_name, baseline, contenders, margin, method, options.get("floors"))
    if fmt == "json":
        per_side = min([min(r["baseline_n"], r["contender_n"]) for r in table] or [1])
        designs = {r["design"] for r in table}
        primary = any(r["primary_task"] for r in table) and len({r["task"] for r in table}) > 1
        said = footnote(method, margin, options.get("calibration"), per_side, "blocks" in designs, primary, "pairs" in designs)
        return json.dumps({"rows": table, "notes": options.get("notes") or [], "method": method, "footnote": said}, indent=2)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(table[0]) if table else ["baseline", "contender", "task"])
    writer.writeheader()
    writer.writerows(table)
    return out.getvalue()
