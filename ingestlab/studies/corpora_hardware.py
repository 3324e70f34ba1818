"""Study 5 on emulated hardware: the article's four configurations (1 node on one disk, 1 node on a RAID0 of 4, 3
nodes on RAID0 with 0 and 1 replica) raced on test hosts scaled from the article's machines to this one
(:func:`ingestlab.hosts.hardware.scaled`, ``study5``), each ratio beside the article's, every race with the fidelity
monitor's verdict. Each configuration's lab is new, and a first race, not kept, warms its nodes' JVMs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ingestlab import machine, paths, racing
from ingestlab import published as published_data
from ingestlab.errors import IngestlabError
from ingestlab.hosts import hardware
from ingestlab.hosts import lab as labs
from ingestlab.models import bottleneck
from ingestlab.rally import results
from ingestlab.report import writer
from ingestlab.report.common import fmt, held_sentence, ratio
from ingestlab.studies.corpora import (
    ONE_NODE,
    ONE_NODE_RAID,
    THREE_NODES,
    THREE_NODES_REPLICA,
    TRACKS,
    bulk_task_per_replicas,
    held_rows,
)
from ingestlab.studies.corpora_bottleneck import CONFIGURATIONS, RATIOS, model, model_lines, opening, ratio_table
from ingestlab.studies.corpora_scaling import counted_documents, node_scaling_lines

# (configuration, hosts, RAID0 devices, challenge); the 3-node race sweeps 0 and 1 replica in one race
SETUPS = (
    (ONE_NODE, 1, 1, "append-no-conflicts-index-only"),
    (ONE_NODE_RAID, 1, 4, "append-no-conflicts-index-only"),
    (THREE_NODES, 3, 4, "append-replica-sweep"),
)
# per track, a corpus that runs for minutes on a scaled host (Rally's own sizes would take days here)
SIZES = {"eventdata": {"eventdata_docs": 100_000}, "geonames": {"geonames_docs": 200_000}, "pmc": {"pmc_docs": 10_000}}
CLIENT_OPTIONS = "timeout:1200"  # a scaled host is slow: a large bulk outlasts Rally's 60 s default request timeout
LAB = {"prefix": "inglh", "subnet": "127.213.30"}
CPUS, DRIVER_CPUS = 0.45, 0.5  # per host, and the coordinator's load driver: within this machine's 2 cores


def _row(result, task: str) -> dict:
    r = result.tasks.get(task)
    if r is None:
        return {"median": None, "p90": None, "p99": None}
    return {"median": r.throughput_median, "p90": r.service_time("p90"), "p99": r.service_time("p99")}


def run(
    tracks=TRACKS,
    cpus: float = CPUS,
    driver_cpus: float = DRIVER_CPUS,
    extra_params: dict | None = None,
    version: str | None = None,
    test_mode: bool = False,
    warm_up: bool = True,
    log=print,
) -> str:
    """Race every track in every configuration on emulated hosts; write the report beside the article's.
    ``warm_up``: on each new lab, one race of the first track first, not kept (never in test mode)."""
    stamp = time.strftime("%Y-%m-%dT%H%M%S")
    params = {t.name: {**SIZES.get(t.name, {}), **(extra_params or {}).get(t.name, {})} for t in tracks}
    warmed_with = tracks[0].name if warm_up and not test_mode else None
    for configuration, hosts, devices, challenge in SETUPS:
        profile = hardware.scaled("study5", cpus, devices, coordinator_cpus=driver_cpus)
        lab = labs.up(count=hosts, version=version or tracks[0].default_version, hardware=profile, log=log, **LAB)
        try:
            target = racing.Target(
                hosts=lab.target_hosts, emulation=lab, launcher=tuple(lab.driver_launcher("coordinator")), client_options=CLIENT_OPTIONS
            )
            if warmed_with:
                log(f"[ingestlab] study 5 on emulated hosts: warming up the new lab ({configuration}) with {warmed_with}; not kept")
                tags = {"study": warmed_with, "corpora-hardware-warm-up": stamp}
                options = racing.Options(challenge="append-no-conflicts-index-only", params=params[warmed_with], tags=tags)
                racing.race(tracks[0].track, target, options, log=log)
            for study in tracks:
                log(f"[ingestlab] study 5 on emulated hosts: {study.name}, {configuration}")
                tags = {"study": study.name, "corpora-hardware": stamp, "configuration": configuration.replace(",", ";")}
                options = racing.Options(challenge=challenge, params=params[study.name], test_mode=test_mode, tags=tags)
                racing.race(study.track, target, options, log=log)
        finally:
            labs.down(LAB["prefix"], log=log)
    return report(stamp, tracks, command=writer.command_line(), log=log)


@dataclass
class Run:
    """A run read back from its stored races; ``verdicts``: (track, configuration, held, problems, race id) a race,
    ``setups``: :func:`model`'s, ``limits``: :func:`held_rows`' of every race."""

    rows: dict[str, dict[str, dict]]
    races: list
    verdicts: list = field(default_factory=list)
    docs: dict = field(default_factory=dict)
    profiles: dict = field(default_factory=dict)
    setups: dict = field(default_factory=dict)
    test_mode: bool = False
    warmed_with: str | None = None
    limits: dict = field(default_factory=dict)


def stored(stamp: str, tracks=TRACKS) -> Run:
    """The run ``stamp`` from its stored races (tagged ``corpora-hardware:STAMP``) of ``tracks``."""
    by_name = {t.name: t for t in tracks}
    races = [r for r in results.races_with_tags({"corpora-hardware": stamp}) if r.get("user-tags", {}).get("study") in by_name]
    if not races:
        raise IngestlabError(f"no stored race tagged corpora-hardware:{stamp}")
    found = Run({t.name: {} for t in tracks if any(r["user-tags"]["study"] == t.name for r in races)}, races)
    for race in races:
        name, configuration = race["user-tags"]["study"], race["user-tags"]["configuration"].replace(";", ",")
        result = results.load(race["race-id"], track_path=by_name[name].track)
        found.test_mode = found.test_mode or result.test_mode
        per_replicas = bulk_task_per_replicas(result)
        columns = {0: THREE_NODES, 1: THREE_NODES_REPLICA} if configuration == THREE_NODES else {0: configuration}
        found.rows[name].update({column: _row(result, per_replicas.get(n)) for n, column in columns.items()})
        found.limits.update(held_rows(result, name, columns))
        emulation = result.footprint.get("emulation") or {}
        found.verdicts.append((name, configuration, emulation.get("held"), emulation.get("problems", []), result.race_id))
        found.profiles[configuration] = (emulation.get("profile") or {}).get("label", "—")
        found.docs[name] = counted_documents(result)
        if emulation and found.docs[name]:
            found.setups.setdefault(name, {})[configuration] = (
                bottleneck.Setup.of(emulation),
                found.docs[name] * len(per_replicas),
                found.docs[name] * sum(1 + r for r in per_replicas),
            )
    warm = results.races_with_tags({"corpora-hardware-warm-up": stamp})
    found.warmed_with = warm[0]["user-tags"].get("study") if warm else None
    return found


def report(stamp: str, tracks=TRACKS, command: str | None = None, log=print) -> str:
    """The report of a run from its stored races (tagged ``corpora-hardware:STAMP``), results.json keeping ``command``."""
    found = stored(stamp, tracks)
    published = published_data.load("rally-corpora")
    fitted = model(found.rows, found.setups)
    here = machine.one_line(machine.describe())
    run = (found.rows, published, found.verdicts, found.profiles, found.docs, here, found.test_mode, found.warmed_with, found.setups)
    text = markdown(*run, fitted, found.limits)
    out = writer.write(
        paths.results_dir() / "rally-corpora-hardware" / stamp,
        "ingestlab: study 5 on emulated hardware",
        text,
        [chart(found.rows, published)],
        {"rows": found.rows, "verdicts": found.verdicts, "profiles": found.profiles, "documents": found.docs, "command": command},
    )
    log(text)
    log(f"[ingestlab] report written to {out}/report.md and report.html")
    return text


def markdown(
    rows: dict,
    published: dict,
    verdicts: list,
    profiles: dict,
    docs: dict,
    machine_line: str,
    test_mode: bool,
    warmed_with: str | None = None,
    setups: dict | None = None,
    fitted: dict | None = None,
    limits: dict | None = None,
) -> str:
    """``fitted``: the bottleneck law's fits (:func:`model`'s of ``rows`` and ``setups``), where the caller has them;
    ``limits``: what held each row's rate (:func:`held_rows`')."""
    fitted = model(rows, setups or {}) if fitted is None else fitted
    first = " ".join(filter(None, [opening(fitted), held_sentence(limits or {}, "its race")]))
    lines = [
        "## Study 5 on emulated hardware: median docs/s (Rally's p90 / p99 service time, ms)" + (" — test mode" if test_mode else ""),
        "",
        *([first, ""] if first else []),
        "| corpus | " + " | ".join(CONFIGURATIONS) + " |",
        "|---|" + "---:|" * len(CONFIGURATIONS),
    ]
    for track, measured in rows.items():
        shown = [measured.get(c, {}) for c in CONFIGURATIONS]
        cells = [f"{fmt(m.get('median'), ',.0f')} ({fmt(m.get('p90'), ',.0f')} / {fmt(m.get('p99'), ',.0f')})" for m in shown]
        lines.append(f"| {track} | " + " | ".join(cells) + " |")
    lines += [
        "",
        *ratio_table(rows, published),
        "",
        "- Hardware per host, scaled from the article's machines to this one: " + "; ".join(f"{c}: {p}" for c, p in profiles.items()) + ".",
    ]
    held = [v for v in verdicts if v[2]]
    broken = [v for v in verdicts if v[2] is False]
    lines.append(
        f"- Fidelity: the emulation held in {len(held)} of {len(verdicts)} races"
        + ("." if not broken else "; not in: " + "; ".join(f"{t} {c} ({'; '.join(p)})" for t, c, _, p, _ in broken) + ".")
    )
    lines.append(
        f"- Each configuration's new lab was warmed up by one race of {warmed_with} first, not kept."
        if warmed_with
        else "- No warm-up race: each configuration's first race ran on a new lab's cold JVMs."
    )
    if docs:
        lines.append(
            "- Documents per race, as the count checks found them: " + ", ".join(f"{t} {fmt(n, ',')}" for t, n in docs.items()) + "."
        )
    lines += node_scaling_lines(
        {t: {1: m.get(ONE_NODE_RAID, {}).get("median"), 3: m.get(THREE_NODES, {}).get("median")} for t, m in rows.items()}, published
    )
    lines += [
        f"- This machine: {machine_line}. One Rally load driver outside the hosts, in a CPU share of its own.",
        f"- Published: Elasticsearch {published['elasticsearch']}, {published['hardware']}; the node ratio is the pack's derivation "
        "(3-node RAID0 ÷ 1-node RAID0); the article says each added node adds about 40 %.",
    ]
    lines += model_lines(fitted, rows, published)
    return "\n".join(lines) + "\n"


def chart(rows: dict, published: dict) -> tuple[str, bytes]:
    from ingestlab.report import plot  # heavy: matplotlib, only when drawing charts

    labels, here, there = [], [], []
    for track, measured in rows.items():
        pub = published["figures"].get(track, {})
        for label, a, b in RATIOS:
            labels.append(f"{track}\n{label.split(' (')[0]}")
            here.append(ratio(measured.get(a, {}).get("median"), measured.get(b, {}).get("median")))
            there.append(ratio(pub.get(a), pub.get(b)))
    image = plot.grouped_bars(
        labels,
        {"emulated here": here, "published": there},
        ylabel="ratio of median docs/s",
        title="Study 5 on emulated hardware: nodes, disks, replicas",
        caption_here=machine.one_line(machine.describe()),
        caption_published=published["hardware"],
        colors=[plot.HERE, plot.PUBLISHED],
    )
    return ("Nodes, disks and replicas on emulated hardware", image)
