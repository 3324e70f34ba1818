"""Study 5 on emulated hardware: the article's four configurations — 1 node on one plain disk, 1 node on a RAID0 of
4 disks, 3 nodes on RAID0 with 0 and with 1 replica — raced on test hosts whose CPU, memory, disks and network are
the article's machines scaled to this one (:func:`ingestlab.hosts.hardware.scaled`, ``study5``), each host the same,
one Rally load driver in a CPU share of its own. Every race carries the fidelity monitor's verdict.

The report sets each ratio the article's own way beside it (throughput, and Rally's p90/p99 service time): nodes as
3-node RAID0 ÷ 1-node RAID0, disks as RAID0 ÷ one disk on 1 node, a replica as 1 ÷ 0 on 3 nodes.

Each configuration's lab is new, and its first race is a warm-up whose figures are not kept: on a fresh lab the
nodes' JVMs spend minutes of their 0.45-core quota warming up (measured: the same 3-node geonames race took 2.2–2.6x
the node CPU per document and ran at a quarter of the speed when it came first; whichever task ran first lost).
"""
from __future__ import annotations

import time

from ingestlab import machine, paths, published as published_data
from ingestlab.models import bottleneck
from ingestlab.report.common import fmt, ratio
from ingestlab.studies.corpora import (ONE_NODE, ONE_NODE_RAID, THREE_NODES, THREE_NODES_REPLICA, TRACKS, bulk_task_per_replicas,
                                       counted_documents, node_scaling_lines)

# (configuration, hosts, RAID0 devices, challenge); the 3-node race sweeps 0 and 1 replica in one race
SETUPS = (
    (ONE_NODE, 1, 1, "append-no-conflicts-index-only"),
    (ONE_NODE_RAID, 1, 4, "append-no-conflicts-index-only"),
    (THREE_NODES, 3, 4, "append-replica-sweep"),
)
# per track, a corpus that runs for minutes on a 0.45-core host with a 5.6 MB/s disk (Rally's own sizes would take
# days here: eventdata ran 902 docs/s on one such disk); pmc at 10,000 articles gives Rally 11-13 throughput samples
# per task (measured: at 2,000, four bulks per task, it kept one or two and the rows meant nothing)
SIZES = {"eventdata": {"eventdata_docs": 100_000}, "geonames": {"geonames_docs": 200_000}, "pmc": {"pmc_docs": 10_000}}
# a scaled host is ~27x slower than the study's: a pmc bulk of 500 articles (15 MB) outlasts Rally's 60 s default
# request timeout on one emulated disk (the study's own P99 there was 19 s); the client waits as long as the host needs
CLIENT_OPTIONS = "timeout:1200"
LAB = {"prefix": "inglh", "subnet": "127.213.30"}
# 3 hosts x 0.45 + the coordinator's load driver 0.5 = 1.85 of this machine's 2 cores; the hosts' own daemons drive
# nothing here, so they get no share of their own (the fidelity monitor still counts what they use)
CPUS, DRIVER_CPUS = 0.45, 0.5


def _row(result, task: str) -> dict:
    r = result.tasks.get(task)
    return {"median": r.throughput_median if r else None, "p90": r.service_time("p90") if r else None,
            "p99": r.service_time("p99") if r else None}


def run(tracks=TRACKS, cpus: float = CPUS, driver_cpus: float = DRIVER_CPUS, extra_params: dict | None = None,
        version: str | None = None, test_mode: bool = False, warm_up: bool = True, log=print) -> str:
    """Race every track in every configuration on emulated hosts; write the report beside the article's.
    ``warm_up``: on each new lab, one race of the first track first, not kept (never in test mode)."""
    from ingestlab import racing
    from ingestlab.hosts import hardware, lab as labs

    stamp = time.strftime("%Y-%m-%dT%H%M%S")
    params = {t.name: {**SIZES.get(t.name, {}), **(extra_params or {}).get(t.name, {})} for t in tracks}
    warmed_with = tracks[0].name if warm_up and not test_mode else None
    for configuration, hosts, devices, challenge in SETUPS:
        profile = hardware.scaled("study5", cpus, devices, coordinator_cpus=driver_cpus)
        lab = labs.up(count=hosts, version=version or tracks[0].default_version, hardware=profile, log=log, **LAB)
        try:
            target = racing.Target(hosts=lab.target_hosts, emulation=lab, launcher=tuple(lab.driver_launcher("coordinator")),
                                   client_options=CLIENT_OPTIONS)
            if warmed_with:
                log(f"[ingestlab] study 5 on emulated hosts: warming up the new lab ({configuration}) with {warmed_with}; not kept")
                racing.race(tracks[0].track, target, racing.Options(
                    challenge="append-no-conflicts-index-only", params=params[warmed_with],
                    tags={"study": warmed_with, "corpora-hardware-warm-up": stamp}), log=log)
            for study in tracks:
                log(f"[ingestlab] study 5 on emulated hosts: {study.name}, {configuration}")
                racing.race(study.track, target, racing.Options(
                    challenge=challenge, params=params[study.name], test_mode=test_mode,
                    tags={"study": study.name, "corpora-hardware": stamp, "configuration": configuration.replace(",", ";")}), log=log)
        finally:
            labs.down(LAB["prefix"], log=log)
    return report(stamp, tracks, measured=not test_mode, log=log)


def report(stamp: str, tracks=TRACKS, measured: bool = False, log=print) -> str:
    """The report of a run from its stored races (tagged ``corpora-hardware:STAMP``), written and printed;
    ``measured``: just raced, so its figures go into the ledger (when the emulation held in every race)."""
    from ingestlab.errors import IngestlabError
    from ingestlab.rally import results
    from ingestlab.report import writer

    by_name = {t.name: t for t in tracks}
    races = [r for r in results.races_with_tags({"corpora-hardware": stamp}) if r.get("user-tags", {}).get("study") in by_name]
    if not races:
        raise IngestlabError(f"no stored race tagged corpora-hardware:{stamp}")
    rows: dict[str, dict[str, dict]] = {t.name: {} for t in tracks if any(r["user-tags"]["study"] == t.name for r in races)}
    verdicts, docs, profiles, setups, test_mode = [], {}, {}, {}, False
    for race in races:
        name, configuration = race["user-tags"]["study"], race["user-tags"]["configuration"].replace(";", ",")
        result = results.load(race["race-id"], track_path=by_name[name].track)
        test_mode = test_mode or result.test_mode
        per_replicas = bulk_task_per_replicas(result)
        if configuration == THREE_NODES:
            rows[name][THREE_NODES] = _row(result, per_replicas.get(0))
            rows[name][THREE_NODES_REPLICA] = _row(result, per_replicas.get(1))
        else:
            rows[name][configuration] = _row(result, per_replicas.get(0))
        emulation = result.footprint.get("emulation") or {}
        verdicts.append((name, configuration, emulation.get("held"), emulation.get("problems", []), result.race_id))
        profiles[configuration] = (emulation.get("profile") or {}).get("label", "—")
        docs[name] = counted_documents(result)
        if emulation and docs[name]:
            setups.setdefault(name, {})[configuration] = (bottleneck.Setup.of(emulation), docs[name] * len(per_replicas),
                                                          docs[name] * sum(1 + r for r in per_replicas))
    warm = results.races_with_tags({"corpora-hardware-warm-up": stamp})
    warmed_with = warm[0]["user-tags"].get("study") if warm else None
    published = published_data.load("rally-corpora")
    text = markdown(rows, published, verdicts, profiles, docs, machine.one_line(machine.describe()), test_mode, warmed_with, setups)
    out = writer.write(paths.results_dir() / "rally-corpora-hardware" / stamp, "ingestlab: study 5 on emulated hardware", text,
                       [chart(rows, published)], {"rows": rows, "verdicts": verdicts, "profiles": profiles, "documents": docs})
    log(text)
    log(f"[ingestlab] report written to {out}/report.md and report.html")
    if measured and verdicts and all(v[2] for v in verdicts):
        entry = to_ledger(stamp, rows, setups, published, docs, races, warmed_with)
        log(f"[ingestlab] ledger entry {entry}" if entry else "[ingestlab] no ledger here: the figures are in the report only")
    elif measured:
        log("[ingestlab] not in the ledger: the emulation did not hold in every race")
    return text


def to_ledger(stamp: str, rows: dict, setups: dict, published: dict, docs: dict, races: list, warmed_with: str | None):
    import sys

    from ingestlab import ledger
    from ingestlab.docs.transcribe import slug

    figures = {}
    for track, measured in rows.items():
        for c in CONFIGURATIONS:
            for key, unit, what in (("median", "docs/s", "median"), ("p90", "ms", "p90 service time"), ("p99", "ms", "p99 service time")):
                value = measured.get(c, {}).get(key)
                if value is not None:
                    figures[f"{track}-{slug(c)}-{key}"] = ledger.Figure(round(value, 1), unit, f"{track}, {c}: {what}")
        pub = published["figures"].get(track, {})
        fitted = model(rows, setups).get(track, {})
        for label, a, b in RATIOS:
            here = ratio(measured.get(a, {}).get("median"), measured.get(b, {}).get("median"))
            if here is not None:
                there = ratio(pub.get(a), pub.get(b))
                figures[f"{track}-{slug(label)}"] = ledger.Figure(round(here, 3), "×", f"{track}: {label}",
                                                                  round(there, 3) if there is not None else None)
            predicted = (fitted.get("ratios") or {}).get(label)
            if predicted:
                figures[f"{track}-{slug(label)}-predicted"] = ledger.Figure(
                    round(predicted["value"], 3), "×", f"{track}: {label}, predicted by the bottleneck law from the race of {predicted['from']}")
        first = ((fitted.get("per") or {}).get(ONE_NODE) or {}).get("demands") or {}
        for c, p in (fitted.get("per") or {}).items():
            if p["own"] and c not in RACED_IN:
                figures[f"{track}-{slug(c)}-busiest"] = ledger.Figure(
                    round(100 * p["own"][1], 1), "%", f"{track}, {c}: its race's busiest resource, {p['own'][0]}: use ÷ capacity")
            for r in (bottleneck.NODE_CPU, bottleneck.IOPS, bottleneck.DISK_MB):
                if c not in (ONE_NODE, *RACED_IN) and first.get(r) and p["demands"].get(r):
                    figures[f"{track}-{slug(c)}-{slug(r)}-per-copy"] = ledger.Figure(
                        round(p["demands"][r] / first[r], 3), "×", f"{track}, {c}: {r} per document copy ÷ that of 1 node, 1 disk")
    version = next((r.get("distribution-version") or r.get("cluster", {}).get("distribution-version") for r in races), None)
    sizes = ", ".join(f"{t} {fmt(n, ',')}" for t, n in docs.items())
    return ledger.record(stamp, "corpora emulated", "ingestlab " + " ".join(sys.argv[1:]), figures,
                         {"engine": "elasticsearch", "version": version, "rally": races[0].get("rally-version")},
                         f"study 5 on emulated hosts scaled from the article's machines; documents {sizes}; "
                         + (f"each new lab warmed up by a race of {warmed_with}, not kept; " if warmed_with else "no warm-up race; ")
                         + f"the emulation held in {len(races)} of {len(races)} races",
                         source=f"results/rally-corpora-hardware/{stamp}/results.json")


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
        for label, a, b in RATIOS:
            if a not in per or b not in per:
                ratios[label] = None
                continue
            base = per[b]["demands"]
            top, bottom = (bottleneck.bound(base, per[a]["capacity"], COPIES.get(a, 1)),
                           bottleneck.bound(base, per[b]["capacity"], COPIES.get(b, 1)))
            ratios[label] = {"value": top.rate / bottom.rate, "from": b, "binds": (top.resource, bottom.resource)} if top and bottom else None
        out[track] = {"per": per, "ratios": ratios}
    return out


def model_lines(rows: dict, setups: dict, published: dict) -> list[str]:
    """The bottleneck law's tables: what bound each race, and the ratios it predicts beside the measured and the published."""
    fitted = model(rows, setups)
    if not fitted:
        return ["- No bottleneck model: no race here carries the fidelity monitor's readings and a document count."]
    lines = ["", "### Why: the bottleneck law on the monitor's readings", "",
             "A resource's demand per document copy is what the fidelity monitor saw it busy for over the documents the race "
             "indexed; the emulation sets its capacity; a setup indexes at most the least capacity ÷ demand, and the resource "
             "with the highest use ÷ capacity bound its race. Each ratio is *predicted* from the race it divides by: that race's "
             "demands at the other setup's capacities.", "",
             "| corpus | setup | measured docs/s | the race's busiest resource (use ÷ capacity) | demand per copy ÷ 1 node, 1 disk: node CPU / disk IOPS / disk MB/s |",
             "|---|---|---:|---|---|"]
    for track, m in fitted.items():
        first = m["per"].get(ONE_NODE, {}).get("demands")
        for c, p in m["per"].items():
            own = p["own"]
            relative = " / ".join(fmt(p["demands"][r] / first[r] if first and first.get(r) and p["demands"].get(r) else None, ',.2f', '×')
                                  for r in (bottleneck.NODE_CPU, bottleneck.IOPS, bottleneck.DISK_MB))
            lines.append(f"| {track} | {c} | {fmt(rows.get(track, {}).get(c, {}).get('median'), ',.0f')} "
                         f"| {own[0] + ' (' + fmt(own[1], '.0%') + ')' if own else '—'}{' — the 3-node race, both tasks' if c in RACED_IN else ''} "
                         f"| {relative} |")
    lines += ["", "| corpus | " + " | ".join(f"{label}: measured / predicted / published" for label, _, _ in RATIOS) + " |",
              "|---|" + "---:|" * len(RATIOS)]
    for track, m in fitted.items():
        pub = published["figures"].get(track, {})
        cells = [f"{fmt(ratio(rows[track].get(a, {}).get('median'), rows[track].get(b, {}).get('median')), ',.2f', '×')} / "
                 f"{fmt((m['ratios'][label] or {}).get('value'), ',.2f', '×')} / {fmt(ratio(pub.get(a), pub.get(b)), ',.2f', '×')}"
                 for label, a, b in RATIOS]
        lines.append(f"| {track} | " + " | ".join(cells) + " |")
    lines.append("")
    for track, m in fitted.items():
        for label, r in m["ratios"].items():
            if r:
                lines.append(f"- {track}, {label}: predicted from the race of {r['from']} (binding there: {r['binds'][1]}; at the other "
                             f"setup's capacities: {r['binds'][0]}).")
        idle = [c for c, p in m["per"].items() if p["own"] and p["own"][1] < SATURATED_AT and c not in RACED_IN]
        if idle:
            lines.append(f"- {track}: no resource reached {SATURATED_AT:.0%} of its capacity in the race of " + ", ".join(idle)
                         + ": what bound it is not a capacity the monitor sees (the clients' round trips, locks, the JVM), so the "
                           "law's bound is above what it measured there.")
    lines.append("- Use is over each whole race (its setup steps, and the merges and flushes after the last bulk, count); the link "
                 "counts each host's busier direction.")
    return lines


def opening(rows: dict, setups: dict) -> str | None:
    """The report's first sentence: what the bottleneck law predicts for the article's ratios, and what bound one node."""
    fitted = model(rows, setups)
    said = []
    for track, m in fitted.items():
        one = (m["per"].get(ONE_NODE) or {}).get("own")
        if one is None or not any(m["ratios"].values()):
            continue
        said.append(f"{track}: one node on one disk was bound by its {one[0]} ({fmt(one[1], '.0%')} used); the law predicts "
                    + ", ".join(f"{label} {fmt((x or {}).get('value'), ',.2f', '×')}" for label, x in m["ratios"].items()))
    return ("The bottleneck law on the fidelity monitor's readings — " + "; ".join(said) + " (measured and published beside them "
            "below, with what bound each race)." if said else None)


def markdown(rows: dict, published: dict, verdicts: list, profiles: dict, docs: dict, machine_line: str, test_mode: bool,
             warmed_with: str | None = None, setups: dict | None = None) -> str:
    configurations = CONFIGURATIONS
    first = opening(rows, setups or {})
    lines = ["## Study 5 on emulated hardware: median docs/s (Rally's p90 / p99 service time, ms)" + (" — test mode" if test_mode else ""), "",
             *([first, ""] if first else []),
             "| corpus | " + " | ".join(configurations) + " |", "|---|" + "---:|" * len(configurations)]
    for track, measured in rows.items():
        cells = []
        for c in configurations:
            m = measured.get(c, {})
            cells.append(f"{fmt(m.get('median'), ',.0f')} ({fmt(m.get('p90'), ',.0f')} / {fmt(m.get('p99'), ',.0f')})")
        lines.append(f"| {track} | " + " | ".join(cells) + " |")
    lines += ["", "| corpus | " + " | ".join(f"{label}: here / published" for label, _, _ in RATIOS) + " |", "|---|" + "---:|" * len(RATIOS)]
    for track, measured in rows.items():
        pub = published["figures"].get(track, {})
        cells = [f"{fmt(ratio(measured.get(a, {}).get('median'), measured.get(b, {}).get('median')), ',.2f', '×')} / "
                 f"{fmt(ratio(pub.get(a), pub.get(b)), ',.2f', '×')}" for _, a, b in RATIOS]
        lines.append(f"| {track} | " + " | ".join(cells) + " |")
    lines += ["", "- Hardware per host, scaled from the article's machines to this one: "
              + "; ".join(f"{c}: {p}" for c, p in profiles.items()) + "."]
    held = [v for v in verdicts if v[2]]
    broken = [v for v in verdicts if v[2] is False]
    lines.append(f"- Fidelity: the emulation held in {len(held)} of {len(verdicts)} races"
                 + ("." if not broken else "; not in: " + "; ".join(f"{t} {c} ({'; '.join(p)})" for t, c, _, p, _ in broken) + "."))
    lines.append(f"- Each configuration's new lab was warmed up by one race of {warmed_with} first, not kept." if warmed_with else
                 "- No warm-up race: each configuration's first race ran on a new lab's cold JVMs.")
    if docs:
        lines.append("- Documents per race, as the count checks found them: " + ", ".join(f"{t} {fmt(n, ',')}" for t, n in docs.items()) + ".")
    lines += node_scaling_lines({t: {1: m.get(ONE_NODE_RAID, {}).get("median"), 3: m.get(THREE_NODES, {}).get("median")}
                                 for t, m in rows.items()}, published)
    lines += [f"- This machine: {machine_line}. One Rally load driver outside the hosts, in a CPU share of its own.",
              f"- Published: Elasticsearch {published['elasticsearch']}, {published['hardware']}; the node ratio is the pack's derivation "
              "(3-node RAID0 ÷ 1-node RAID0); the article says each added node adds about 40 %."]
    lines += model_lines(rows, setups or {}, published)
    return "\n".join(lines) + "\n"


def chart(rows: dict, published: dict) -> tuple[str, bytes]:
    from ingestlab.report import plot

    labels, here, there = [], [], []
    for track, measured in rows.items():
        pub = published["figures"].get(track, {})
        for label, a, b in RATIOS:
            labels.append(f"{track}\n{label.split(' (')[0]}")
            here.append(ratio(measured.get(a, {}).get("median"), measured.get(b, {}).get("median")))
            there.append(ratio(pub.get(a), pub.get(b)))
    image = plot.grouped_bars(labels, {"emulated here": here, "published": there}, ylabel="ratio of median docs/s",
                              title="Study 5 on emulated hardware: nodes, disks, replicas",
                              caption_here=machine.one_line(machine.describe()), caption_published=published["hardware"],
                              colors=[plot.HERE, plot.PUBLISHED])
    return ("Nodes, disks and replicas on emulated hardware", image)
