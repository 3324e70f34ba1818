"""A night's report in words: the verdict over every setup, each setup's table against the previous nights, its change
points and its cost series (:mod:`ingestlab.nightly.run` races and judges them)."""

from __future__ import annotations

from ingestlab.nightly import changepoints, history, trends


def verdict(found: list[dict], missing: list[dict], regressing: list[dict]) -> str:
    rule = (
        f"below the previous nights' {1 - history.DROP_LEVEL:.0%} prediction bound, Holm over a study's tasks, and a drop of "
        f"{found[0]['margin']:.0%} or more"
        if found
        else ""
    )
    verdict = (
        f"**{len(found)} regression(s)** ({rule}): "
        + ", ".join(f"{r['setup']}/{r['study']}/{r['task']} {r['change']:+.0%}" for r in found)
        + "."
        if found
        else "No regression against the previous nights."
    )
    if missing:
        verdict += (
            f" **{len(missing)} task(s) missing tonight** that earlier nights had: "
            + ", ".join(f"{r['setup']}/{r['study']}/{r['task']}" for r in missing)
            + "."
        )
    rule = (
        f"Apache Otava's permutation test, p < {changepoints.MAX_PVALUE}, a change of {changepoints.MIN_MAGNITUDE:.0%} or more, "
        f"{changepoints.MIN_SEGMENT} nights or more each side"
    )
    return verdict + (
        f" Change points ({rule}): **{len(regressing)} new regression(s)**: "
        + ", ".join(f"{s['setup']}/{s['study']}/{s['task']} from {s['night']} {s['change']:+.1%}" for s in regressing)
        + "."
        if regressing
        else f" No new regression among the change points ({rule})."
    )


def change_point_lines(where: str, points: dict, new: list[dict]) -> str:
    if not points:
        return ""
    fresh = {(s["task"], s["night"]) for s in new}
    return (
        "Change points over the nights (Apache Otava): "
        + "; ".join(
            f"{task} from {n} {c:+.1%} (p {p:.1e}){' **new**' if (task, n) in fresh else ''}"
            for task, rows in points.items()
            for n, c, p in rows
        )
        + "\n\n"
    )


def _figure(value: float) -> str:
    """A night's figure: docs/s to a tenth, a ratio (below 10) to three places."""
    return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"


def cost_table(where: str, series: dict, night: str) -> str:
    """``where``'s cost series: tonight's figure beside the previous nights' median, shown and never judged."""
    lines = [
        f"Costs per document on {where}, each a series of its own, shown and not judged:",
        "",
        "| series | tonight | previous nights: median (n) | change |",
        "|---|---:|---:|---:|",
    ]
    for name, points in sorted(series.items()):
        now, past = dict(points).get(night), [v for n, v in points if n < night][-history.NIGHTS_COMPARED :]
        centre = trends.median_or_none(past)
        before = "—" if centre is None else f"{_figure(centre)} ({len(past)})"
        change = f"{now / centre - 1:+.1%}" if now is not None and centre else ""
        lines.append(f"| {name} | {'—' if now is None else _figure(now)} | {before} | {change} |")
    return "\n".join(lines) + "\n\n" if series else ""


def history_table(where: str, rows: list[dict], what: str = "") -> str:
    if not rows:
        return f"## {where}: against previous nights{what}\n\nNo previous night in the history yet.\n"
    lines = [
        f"## {where}: against previous nights{what}",
        "",
        f"A regression: below the previous nights' one-sided {1 - history.DROP_LEVEL:.0%} prediction bound (each night one "
        f"figure; t on log figures), after Holm's correction over the study's tasks, and a drop of {rows[0]['margin']:.0%} or "
        f"more; judged from {history.NIGHTS_NEEDED} previous nights.",
        "",
        "| task | tonight | previous nights: geometric mean (n) | change | lower bound (p) | |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        if r["missing"]:
            lines.append(f"| {r['task']} | — | {_figure(r['centre'])} ({r['history'].n}) | | | **missing tonight** |")
            continue
        judged = f"{r['bound']:+.1%} (p {r['p']:.2g})" if r["p"] is not None else f"— ({r['why']})"
        lines.append(
            f"| {r['task']} | {_figure(r['tonight'])} | {_figure(r['centre'])} ({r['history'].n}) | {r['change']:+.1%} "
            f"| {judged} | {'**regression**' if r['regression'] else ''} |"
        )
    return "\n".join(lines) + "\n"


def options_moved(options: str, other: list[str], nights: int, known: int) -> str:
    """Tonight's extra JVM options (as the races' tag keeps them; "none": the JVM's defaults) against the nights it is
    judged against: ``nights`` of the ``known`` ones whose options were kept ran with the ``other`` options."""
    return (
        f"The nodes' extra JVM options (INGESTLAB_NODE_JAVA_OPTS, as tagged) tonight: {options}. {nights} of the {known} "
        f"nights tonight is judged against ran with {' or '.join(other)}: a change against them may be the options'.\n\n"
    )
