"""Why study 5's emulated ratios come out as they do: the bottleneck law (:mod:`ingestlab.models.bottleneck`) on the
fidelity monitor's readings of each race, as the report's opening and its tables.
"""

from __future__ import annotations

from ingestlab.models import bottleneck
from ingestlab.report.common import fmt, ratio
from ingestlab.studies.corpora import ONE_NODE, ONE_NODE_RAID, THREE_NODES, THREE_NODES_REPLICA

RATIOS = (  # (label, numerator, denominator): each made the article's way
    ("3 nodes ÷ 1 node (RAID0)", THREE_NODES, ONE_NODE_RAID),
    ("RAID0 of 4 ÷ one disk (1 node)", ONE_NODE_RAID, ONE_NODE),
    ("1 replica ÷ 0 (3 nodes)", THREE_NODES_REPLICA, THREE_NODES),
)


CONFIGURATIONS = (ONE_NODE, ONE_NODE_RAID, THREE_NODES, THREE_NODES_REPLICA)
COPIES = {THREE_NODES_REPLICA: 2}  # document copies the nodes index per document (1 elsewhere)
RACED_IN = {THREE_NODES_REPLICA: THREE_NODES}  # the race a configuration ran in (its own elsewhere)


SATURATED_AT = 0.75  # a race whose busiest resource used less than this of its capacity was bound by none of them


def model(rows: dict, setups: dict) -> dict:
    """Per track: each configuration's race's busiest resource (its utilisation) and demands; and each of the article's
    ratios predicted from the race it divides by — that race's demands at the other setup's capacities (a stripe adds
    IOPS, nodes add CPU, disks and links, a replica doubles the copies), the ratio of the two bounds.
    ``setups``: {track: {configuration raced: (:class:`bottleneck.Setup`, documents sent, document copies indexed)}}."""
    out = {}
    for track, raced in setups.items():
        per = {}
        for c in CONFIGURATIONS:
            own = raced.get(RACED_IN.get(c, c))
            if own is not None:
                per[c] = {"own": own[0].busiest(), "demands": own[0].demands(own[1], own[2]), "capacity": own[0].capacity}
        ratios = {}
        for label, a, b in RATIOS:  # b's demands at a's capacities and at its own
            both = a in per and b in per
            top = both and bottleneck.bound(per[b]["demands"], per[a]["capacity"], COPIES.get(a, 1))
            bottom = both and bottleneck.bound(per[b]["demands"], per[b]["capacity"], COPIES.get(b, 1))
            ratios[label] = (
                {"value": top.rate / bottom.rate, "from": b, "binds": (top.resource, bottom.resource)} if top and bottom else None
            )
        out[track] = {"per": per, "ratios": ratios}
    return out


def ratio_table(rows: dict, published: dict, fitted: dict | None = None) -> list[str]:
    """The article's ratios per track, measured beside published; with ``fitted`` (:func:`model`'s), its tracks and the
    predicted ratio between them."""
    words = "measured / predicted / published" if fitted is not None else "here / published"
    lines = ["| corpus | " + " | ".join(f"{label}: {words}" for label, _, _ in RATIOS) + " |", "|---|" + "---:|" * len(RATIOS)]
    for track in rows if fitted is None else fitted:
        pub = published["figures"].get(track, {})
        cells = [
            " / ".join(
                fmt(x, ",.2f", "×")
                for x in (
                    ratio(rows[track].get(a, {}).get("median"), rows[track].get(b, {}).get("median")),
                    *([] if fitted is None else [(fitted[track]["ratios"][label] or {}).get("value")]),
                    ratio(pub.get(a), pub.get(b)),
                )
            )
            for label, a, b in RATIOS
        ]
        lines.append(f"| {track} | " + " | ".join(cells) + " |")
    return lines


def model_lines(fitted: dict, rows: dict, published: dict) -> list[str]:
    """The bottleneck law's tables (``fitted``: :func:`model`'s): what bound each race, and the ratios it predicts beside the
    measured and the published."""
    if not fitted:
        return ["- No bottleneck model: no race here carries the fidelity monitor's readings and a document count."]
    lines = [
        "",
        "### Why: the bottleneck law on the monitor's readings",
        "",
        "A resource's demand per document copy is what the fidelity monitor saw it busy for over the documents the race "
        "indexed; the emulation sets its capacity; a setup indexes at most the least capacity ÷ demand, and the resource "
        "with the highest use ÷ capacity bound its race. Each ratio is *predicted* from the race it divides by: that race's "
        "demands at the other setup's capacities.",
        "",
        "| corpus | setup | measured docs/s | the race's busiest resource (use ÷ capacity) "
        "| demand per copy ÷ 1 node, 1 disk: node CPU / disk IOPS / disk MB/s |",
        "|---|---|---:|---|---|",
    ]
    for track, m in fitted.items():
        first = m["per"].get(ONE_NODE, {}).get("demands")
        for c, p in m["per"].items():
            own = p["own"]
            relative = " / ".join(
                fmt(p["demands"][r] / first[r] if first and first.get(r) and p["demands"].get(r) else None, ",.2f", "×")
                for r in (bottleneck.NODE_CPU, bottleneck.IOPS, bottleneck.DISK_MB)
            )
            lines.append(
                f"| {track} | {c} | {fmt(rows.get(track, {}).get(c, {}).get('median'), ',.0f')} "
                f"| {own[0] + ' (' + fmt(own[1], '.0%') + ')' if own else '—'}{' — the 3-node race, both tasks' if c in RACED_IN else ''} "
                f"| {relative} |"
            )
    lines += ["", *ratio_table(rows, published, fitted), ""]
    for track, m in fitted.items():
        for label, r in m["ratios"].items():
            if r:
                lines.append(
                    f"- {track}, {label}: predicted from the race of {r['from']} (binding there: {r['binds'][1]}; at the other "
                    f"setup's capacities: {r['binds'][0]})."
                )
        idle = [c for c, p in m["per"].items() if p["own"] and p["own"][1] < SATURATED_AT and c not in RACED_IN]
        if idle:
            lines.append(
                f"- {track}: no resource reached {SATURATED_AT:.0%} of its capacity in the race of "
                + ", ".join(idle)
                + ": what bound it is not a capacity the monitor sees (the clients' round trips, locks, the JVM), so the "
                "law's bound is above what it measured there."
            )
    lines.append(
        "- Use is over each whole race (its setup steps, and the merges and flushes after the last bulk, count); the link "
        "counts each host's busier direction."
    )
    return lines


def opening(fitted: dict) -> str | None:
    """The report's first sentence (``fitted``: :func:`model`'s): what the bottleneck law predicts for the article's
    ratios, and what bound one node."""
    said = []
    for track, m in fitted.items():
        one = (m["per"].get(ONE_NODE) or {}).get("own")
        if one is None or not any(m["ratios"].values()):
            continue
        said.append(
            f"{track}: one node on one disk was bound by its {one[0]} ({fmt(one[1], '.0%')} used); the law predicts "
            + ", ".join(f"{label} {fmt((x or {}).get('value'), ',.2f', '×')}" for label, x in m["ratios"].items())
        )
    return (
        "The bottleneck law on the fidelity monitor's readings — " + "; ".join(said) + " (measured and published beside them "
        "below, with what bound each race)."
        if said
        else None
    )
