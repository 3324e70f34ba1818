"""The README's two tables of figures, each one generated block: the studies (measured here beside the article, one
run a row, one line of why) and what a verdict promises on this machine (the calibration's measured rates, and the
usual workflow tried on real races).

    <!-- ingestlab:studies -->…<!-- /ingestlab:studies -->
    <!-- ingestlab:promise -->…<!-- /ingestlab:promise -->
"""

from __future__ import annotations

from dataclasses import dataclass

from devtools.docs import figures, record


@dataclass(frozen=True)
class Row:
    study: str
    track: str  # its track folder(s), comma-separated
    command: str
    run: str
    figure: str
    what: str
    why: str  # one line, in words (a figure belongs to the ledger)


STUDIES = (
    Row(
        "1. Bulk vs. single index API",
        "posts",
        "make demo",
        "cf0ea004",
        "bulk1000-over-single",
        "bulk 1000 ÷ index API",
        "a request costs more here and a document less than on the article's machine: batching gains more",
    ),
    Row(
        "2. Refresh",
        "refresh",
        "ingestlab demo refresh",
        "be6da3ba",
        "bulk-refresh-over-single-refresh",
        "bulk + refresh ÷ single + refresh, 10,000 docs",
        "each `refresh=true` costs more here than on the article's Docker node",
    ),
    Row(
        "3. DVF CSV, bulk × threads",
        "dvf",
        "ingestlab demo dvf --full-size",
        "10207c4e",
        "bulk1000-over-bulk1",
        "bulk 1000 ÷ bulk 1, one client",
        "a request weighs less against a document here: batching gains a little less",
    ),
    Row(
        "4. Reindexing Wikipedia",
        "wikipedia",
        "ingestlab demo wikipedia --full-size",
        "027896fe",
        "sliced-tool-over-reindex",
        "sliced tool ÷ best `_reindex`, one node",
        "one node: the article's tool gained by reading eight nodes' local shards at once",
    ),
    Row(
        "5. Rally corpora: nodes, replicas, disks",
        "eventdata,geonames,pmc",
        "ingestlab corpora --emulated",
        "2026-11-25T071118",
        "eventdata-3-over-1-nodes",
        "eventdata, 3 nodes ÷ 1 node",
        "each emulated host brings cores of its own: three nodes add more than the article's did",
    ),
)


def studies(args: dict) -> str:
    lines = ["| study | track | one command | measured here | the article | why they differ | run |", "|---|---|---|---|---:|---|---|"]
    for r in STUDIES:
        entry = figures.entry_of({"run": r.run})
        f = entry.figure(r.figure)
        tracks = ", ".join(f"[`{t}`](tracks/{t}/README.md)" for t in r.track.split(","))
        run = f"[{entry.short}]({record.link(entry, args['_page'])})"
        lines.append(
            f"| {r.study} | {tracks} | `{r.command}` | {r.what}: {figures.number(f.value, f.unit)} | "
            f"{figures.number(f.published, f.unit)} | {r.why} | {run} |"
        )
    return "\n".join(lines)


PROMISE_CALIBRATION = "2026-11-27T222532"  # posts bulk-1000, 570 races over three node processes
PROMISE_BLOCKS = "2026-12-02T0326-compare-blocks"


def promise(args: dict) -> str:
    cal = figures.entry_of({"run": PROMISE_CALIBRATION})
    blocks = figures.entry_of({"run": PROMISE_BLOCKS})

    def rate(sides: int, what: str) -> str:
        f = cal.figure(f"{sides}-{what}")
        low, high = cal.figure(f"{sides}-{what}-low"), cal.figure(f"{sides}-{what}-high")
        count, of = cal.figure(f"{sides}-{what}-count"), cal.figure(f"{sides}-{what}-of")
        return f"{count.value:.0f}/{of.value:.0f} ({figures.number(f.value, '%')}; {low.value:.1f}–{high.value:.1f} %)"

    lines = [
        "| races a side | identical races called different | an exact 10 % change found | measured on |",
        "|---:|---:|---:|---|",
    ]
    for sides in (1, 3):
        lines.append(
            f"| {sides} | {rate(sides, 'false_alarms')} | {rate(sides, 'detect_10')} | "
            f"[{cal.short}]({record.link(cal, args['_page'])}): posts bulk 1000, σ {figures.number(cal.figure('sigma').value, '%')} |"
        )
    change, low, high = (blocks.figure(n).value for n in ("change", "low", "high"))
    lines.append(
        f"| 5, one block after the other | {blocks.figure('groups-called').value:.0f} of 3 groups of 3 | "
        f"a real {change:+.1f} % called ({low:+.1f} to {high:+.1f} %) | [{blocks.short}]({record.link(blocks, args['_page'])}) |"
    )
    return "\n".join(lines)


RENDERERS = {"studies": studies, "promise": promise}


def figures_table(args: dict) -> str:
    """One run's figures as a table (``match``: a regular expression their names match, default all; ``what``: the first
    column's heading): what each is, measured here, and the article's where it has one.

        <!-- ingestlab:figures run=10207c4e match=^b\\d+-c\\d+$ -->"""
    import re

    entry = figures.entry_of(args)
    pattern = re.compile(args.get("match", ".*"))
    chosen = [(n, f) for n, f in entry.figures.items() if pattern.search(n)]
    if not chosen:
        raise figures.IngestlabError(f"ledger run {entry.run} has no figure matching {pattern.pattern!r}")
    published = any(f.published is not None for _, f in chosen)
    head = f"| {args.get('what', 'figure').replace('_', ' ')} | here |" + (" the article |" if published else "")
    lines = [head, "|---|---:|" + ("---:|" if published else "")]
    for _, f in chosen:
        row = f"| {f.label} | {figures.number(f.value, f.unit, args.get('digits'))} |"
        lines.append(row + (f" {figures.number(f.published, f.unit, args.get('digits'))} |" if published else ""))
    lines.append(f"\nFrom [{entry.short}]({record.link(entry, args['_page'])}) ({entry.date[:10]}).")
    return "\n".join(lines)


RENDERERS["figures"] = figures_table
