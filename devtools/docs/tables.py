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
PROMISE_REAL = "2026-12-02T0326-compare-blocks"  # the usual workflow on real races
PROMISE_SIMULATED = "2026-12-02T040846-blocks"  # the same rule on made-up races at the calibration's σ


def promise(args: dict) -> str:
    cal = figures.entry_of({"run": PROMISE_CALIBRATION})
    real = figures.entry_of({"run": PROMISE_REAL})
    sim = figures.entry_of({"run": PROMISE_SIMULATED})
    page = args["_page"]

    def rate(sides: int, what: str) -> str:
        f = cal.figure(f"{sides}-{what}")
        low, high = cal.figure(f"{sides}-{what}-low"), cal.figure(f"{sides}-{what}-high")
        count, of = cal.figure(f"{sides}-{what}-count"), cal.figure(f"{sides}-{what}-of")
        return f"{count.value:.0f}/{of.value:.0f} ({figures.number(f.value, '%')}; {low.value:.1f}–{high.value:.1f} %)"

    def simulated(name: str) -> str:
        f = sim.figure(name)
        return f"{figures.number(f.value, '%')} ({sim.figure(name + '-low').value:.1f}–{sim.figure(name + '-high').value:.1f} %)"

    sigma = figures.number(cal.figure("sigma").value, "%")
    lines = [
        "| how the races were raced | identical races called different | a change found | evidence |",
        "|---|---:|---:|---|",
    ]
    for sides in (1, 3):
        lines.append(
            f"| {sides} a side, shuffled | {rate(sides, 'false_alarms')} | an exact 10 % change: {rate(sides, 'detect_10')} | "
            f"[{cal.short}]({record.link(cal, page)}): real posts races, σ {sigma} |"
        )
    lines.append(
        f"| 5 a side, one block after the other | {simulated('aa-5')} | a 10 % step: {simulated('step10-5')}; a 40 % drift "
        f"with no step called a change: {simulated('drift40-5')} | [{sim.short}]({record.link(sim, page)}): simulated at σ {sigma} |"
    )
    change, low, high = (real.figure(n).value for n in ("change", "low", "high"))
    lines.append(
        f"| 5 a side, one block after the other | — | a real {change:+.1f} % ({low:+.1f} to {high:+.1f} %): called slower | "
        f"[{real.short}]({record.link(real, page)}): real eventdata races |"
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
