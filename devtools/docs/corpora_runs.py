"""Study 5's runs of one track as a table, from their ledger entries (``ingestlab corpora`` runs): a row per run and
cluster (one node; three nodes with and without a replica), and under it each run's command, time and commit.

    <!-- ingestlab:corpora-runs track=eventdata runs=2026-11-24T073514,2026-11-25T185718 -->
    <!-- /ingestlab:corpora-runs -->

A figure a run did not measure is a dash.
"""

from __future__ import annotations

from devtools import ledger
from devtools.docs import figures
from ingestlab.errors import IngestlabError

CLUSTERS = (("1-node", "1"), ("3-nodes", "3"))


def _get(entry: ledger.Entry, name: str) -> ledger.Figure | None:
    return entry.figures.get(name)


def _num(f: ledger.Figure | None, digits: str | None = None, unit: bool = False) -> str:
    if f is None or f.value is None:
        return "—"
    return figures.number(f.value, f.unit if unit else "", digits)


def _rss(entry: ledger.Entry, track: str) -> str:
    low, high = _get(entry, f"{track}-rss-low"), _get(entry, f"{track}-rss-high")
    if low is None:
        return "—"
    text = _num(low, "0") if high is None or high.value == low.value else f"{_num(low, '0')}–{_num(high, '0')}"
    a, b = _get(entry, f"{track}-anon-low"), _get(entry, f"{track}-anon-high")
    if a is not None:
        text += f" ({_num(a, '0')})" if b is None or b.value == a.value else f" ({_num(a, '0')}–{_num(b, '0')})"
    return text


def table(args: dict) -> str:
    track, runs = args.get("track"), [r for r in args.get("runs", "").split(",") if r]
    if not track or not runs:
        raise IngestlabError("a corpora-runs block needs track= and runs=")
    entries = [figures.entry_of({"run": r}) for r in runs]
    lines = [
        (
            "| run | documents | nodes | docs/s, no replica | docs/s, 1 replica | Rally's time | indices, GB "
            "| workers' peak RSS, MiB (anonymous) |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for entry in entries:
        if _get(entry, f"{track}-docs") is None:
            raise IngestlabError(f"run {entry.run} raced no {track}")
        first = True
        for cluster, nodes in CLUSTERS:
            rate = _get(entry, f"{track}-{cluster}-docs-s")
            if rate is None:
                continue
            replica = _num(_get(entry, f"{track}-3-nodes-1-replica-docs-s"), "0") if cluster == "3-nodes" else "—"
            lines.append(
                f"| {entry.run if first else ''} | {_num(_get(entry, f'{track}-docs'), '0') if first else ''} | {nodes} | "
                f"{_num(rate, '0')} | {replica} | {_num(_get(entry, f'{track}-{cluster}-rally-s'), None, True)} | "
                f"{_num(_get(entry, f'{track}-{cluster}-indices-gb'), '2')} | {_rss(entry, track) if first else ''} |"
            )
            first = False
    lines.append("")
    for entry in entries:
        took = _get(entry, "duration")
        peak = _get(entry, "pack-peak")
        lines.append(
            f"- {entry.run}: `{entry.command}`"
            + (f", {_num(took, None, True)} in all" if took else "")
            + (f", the pack's own process at most {_num(peak, '0', True)}" if peak else "")
            + f"; {figures.run({'run': entry.run})}; {entry.conditions}."
        )
    return "\n".join(lines)


RENDERERS = {"corpora-runs": table}
