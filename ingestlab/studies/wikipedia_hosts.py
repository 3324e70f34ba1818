"""Study 4 over host counts: the ``scale-out`` challenge raced on 1, 2 and 4 emulated hosts (each a node and a Rally
load driver), and the Universal Scalability Law fitted over them for one tool per node and for ``_reindex`` without
slices. Their quotient at N = 8 is the model's answer to the article's headline (8 nodes' one tool per node against
``_reindex``). Three host counts fit the law exactly (no interval), which the report says in words.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ingestlab import machine, paths, racing, studies
from ingestlab import published as published_data
from ingestlab.errors import IngestlabError
from ingestlab.hosts import emulation, hardware
from ingestlab.hosts import lab as labs
from ingestlab.rally import results
from ingestlab.report import writer
from ingestlab.report.common import fmt, ratio
from ingestlab.studies.wikipedia_scale_out import reindex_fastest, scale_out_rows

HOST_COUNTS = (1, 2, 4)
PREDICT_AT = 8  # the article's nodes
# each host as in race e9c5ca6a, where the emulation held on 4 hosts: 4 x (0.25 + 0.18) = 1.72 of this machine's 2 cores
CPUS, DRIVER_CPUS, MEMORY = 0.25, 0.18, "2g"
PARAMS = {"wiki_pages": 20_000, "repetitions": 1}
CLIENT_OPTIONS = "timeout:1200"  # a scaled host is slow: a bulk may outlast Rally's 60 s default
VERSION = "7.17.29"  # the 8.19/9.x zips here answer POST /_reindex with 405
LAB = {"prefix": "inglw", "subnet": "127.213.40"}
EXACT = 0.01  # a three-point fit whose points all lie within 1 % of it passes through them


def rates(result) -> dict:
    """One race's figures: one tool per node's and ``_reindex`` (no slices)'s docs/s, and how many drivers and
    documents; None where a step did not run."""
    rows = {r["published"] or r["task"]: r for r in scale_out_rows(result) if r["span_s"]}
    many = rows.get("tool-local")
    docs = many["docs"] if many else None
    api = reindex_fastest(result).get("no slices")
    return {
        "tool_per_node": docs / many["span_s"] if many else None,
        "reindex": docs / api if docs and api else None,
        "drivers": many["drivers"] if many else None,
        "docs": docs,
        "tool_s": many["span_s"] if many else None,
        "reindex_s": api,
    }


def published_ratio(published: dict) -> float:
    """The article's headline made its way: its best ``_reindex`` time ÷ one tool per node's, 8 nodes."""
    best_api = min(f["seconds"] for f in published["figures"] if f["kind"] == "reindex-api")
    local = next(f["seconds"] for f in published["figures"] if f["key"] == "tool-local")
    return best_api / local


def _fit_words(fit, why: str | None) -> str:
    if fit is None:
        return f"no fit ({why})"
    worst = max(abs(fit.at(n) - x) / x for n, x in fit.points)
    through = (
        "it passes through the 3 points"
        if fit.dof == 0 and worst <= EXACT
        else f"not through every point: a bound holds it, the farthest point {worst:.0%} off"
        if fit.dof == 0
        else f"{fit.dof} degree(s) of freedom"
    )
    return f"{fit.describe()} — {through}"


def model(by_hosts: dict[int, dict], published: dict) -> dict:
    """The two fits over the host counts and their quotient at :data:`PREDICT_AT`, with the article's ratio."""
    from ingestlab.models import usl  # the cost models (scipy loads where one is fitted)

    tool = usl.try_fit([(n, r["tool_per_node"]) for n, r in by_hosts.items() if r.get("tool_per_node")])
    api = usl.try_fit([(n, r["reindex"]) for n, r in by_hosts.items() if r.get("reindex")])
    predicted = tool[0].at(PREDICT_AT) / api[0].at(PREDICT_AT) if tool[0] and api[0] else None
    return {
        "tool": tool,
        "reindex": api,
        "predicted_ratio": predicted,
        "published_ratio": published_ratio(published),
        "tool_at": tool[0].at(PREDICT_AT) if tool[0] else None,
        "reindex_at": api[0].at(PREDICT_AT) if api[0] else None,
    }


def markdown(
    by_hosts: dict[int, dict], verdicts: dict[int, tuple], profile: str, published: dict, machine_line: str, test_mode: bool, m=None
) -> str:
    """The report's text; ``m``: the fits (:func:`model`'s), where the caller has them."""
    m = model(by_hosts, published) if m is None else m
    opening = (
        f"The Universal Scalability Law over {', '.join(map(str, sorted(by_hosts)))} emulated hosts predicts one tool per node at "
        f"**{fmt(m['predicted_ratio'], ',.2f', '×')}** the speed of `_reindex` without slices on {PREDICT_AT} hosts; the article "
        f"measured {m['published_ratio']:,.1f}× on its {PREDICT_AT} nodes."
        if m["predicted_ratio"] is not None
        else "No prediction at 8 hosts: " + "; ".join(f"{k} — {m[k][1]}" for k in ("tool", "reindex") if m[k][0] is None) + "."
    )
    lines = [
        "## Study 4 over host counts: one tool per node and `_reindex`" + (" — test mode" if test_mode else ""),
        "",
        opening,
        "",
        "| hosts | load-driver hosts | docs | one tool per node | docs/s | `_reindex`, no slices | docs/s | ratio | emulation |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for n in sorted(by_hosts):
        r = by_hosts[n]
        held = verdicts.get(n, (None, []))
        lines.append(
            f"| {n} | {fmt(r.get('drivers'), 'd')} | {fmt(r.get('docs'), ',')} | {fmt(r.get('tool_s'), ',.2f', ' s')} "
            f"| {fmt(r.get('tool_per_node'), ',.0f')} | {fmt(r.get('reindex_s'), ',.2f', ' s')} | {fmt(r.get('reindex'), ',.0f')} "
            f"| {fmt(ratio(r.get('tool_per_node'), r.get('reindex')), ',.2f', '×')} "
            f"| {'held' if held[0] else 'did not hold: ' + '; '.join(held[1]) if held[0] is False else '—'} |"
        )
    lines += [
        "",
        f"- One tool per node, Universal Scalability Law: {_fit_words(*m['tool'])}; at {PREDICT_AT} hosts "
        f"{fmt(m['tool_at'], ',.0f')} docs/s.",
        f"- `_reindex` without slices, Universal Scalability Law: {_fit_words(*m['reindex'])}; at {PREDICT_AT} hosts "
        f"{fmt(m['reindex_at'], ',.0f')} docs/s.",
        "- Each host count is one race on a new lab, each step run once (the race is the unit; no interval is claimed "
        "for a rate): the fits carry the runs' noise whole.",
        f"- Hardware per host, scaled from the article's nodes to this one: {profile}.",
        f"- This machine: {machine_line}.",
        f"- Published: Elasticsearch {published['elasticsearch']}, {published.get('hardware', '8 nodes')}; "
        f"{m['published_ratio']:,.1f}× is its best `_reindex` time over one tool per node's.",
    ]
    return "\n".join(lines) + "\n"


def chart(by_hosts: dict[int, dict], m: dict, published: dict, machine_line: str) -> tuple[str, bytes]:
    from ingestlab.report import cost  # the cost models (scipy loads where one is fitted)

    tool, api = m["tool"][0], m["reindex"][0]
    xs = [1 + i * (PREDICT_AT - 1) / 70 for i in range(71)]
    panels = [
        {
            "xlabel": "hosts",
            "ylabel": "one tool per node, docs/s",
            "title": "one tool per node",
            "points": {"this machine": [(n, r.get("tool_per_node")) for n, r in sorted(by_hosts.items())]},
            "curves": {"this machine": tool.at if tool else None},
            "xs": xs,
        },
        {
            "xlabel": "hosts",
            "ylabel": "one tool per node ÷ _reindex (speed)",
            "title": "the headline ratio",
            "points": {
                "this machine": [(n, ratio(r.get("tool_per_node"), r.get("reindex"))) for n, r in sorted(by_hosts.items())],
                "published": [(PREDICT_AT, m["published_ratio"])],
            },
            "curves": {"this machine": (lambda n: tool.at(n) / api.at(n)) if tool and api else None},
            "xs": xs,
        },
    ]
    image = cost.curve_chart(
        panels,
        "Study 4: one tool per node over hosts, predicted to 8",
        machine_line,
        f"Elasticsearch {published['elasticsearch']}, 8 nodes",
    )
    return ("One tool per node over hosts, and the Universal Scalability Law to 8", image)


def run(
    counts=HOST_COUNTS,
    cpus: float = CPUS,
    driver_cpus: float = DRIVER_CPUS,
    memory: str = MEMORY,
    params: dict | None = None,
    version: str = VERSION,
    test_mode: bool = False,
    log=print,
) -> str:
    """Race the scale-out challenge on a new lab of each host count, then report it."""
    study = studies.get("wikipedia")
    stamp = time.strftime("%Y-%m-%dT%H%M%S")
    profile = hardware.from_options(cpus=cpus, memory=memory, driver_cpus=driver_cpus, scale="study4")
    emulation.check(profile, max(counts), "ingestlab")  # the largest lab must fit before the first one races
    for n in counts:
        lab = labs.up(count=n, version=version, hardware=profile, log=log, **LAB)
        try:
            log(f"[ingestlab] study 4 over host counts: {n} host(s)")
            target = racing.Target(hosts=lab.target_hosts, client_options=CLIENT_OPTIONS, drivers=lab, emulation=lab)
            tags = {"study": study.name, "wikipedia-hosts": stamp, "hosts": str(n)}
            options = racing.Options(challenge="scale-out", params={**PARAMS, **(params or {})}, test_mode=test_mode, tags=tags)
            racing.race(study.track, target, options, log=log)
        finally:
            labs.down(LAB["prefix"], log=log)
    return report(stamp, command=writer.command_line(), log=log)


@dataclass
class Run:
    """A run read back from its stored races: per host count its rates, the emulation's verdict (held, problems), race id."""

    by_hosts: dict[int, dict] = field(default_factory=dict)
    verdicts: dict[int, tuple] = field(default_factory=dict)
    ids: dict[int, str] = field(default_factory=dict)
    profile: str = "—"
    test_mode: bool = False
    versions: dict = field(default_factory=dict)


def stored(stamp: str) -> Run:
    """The run ``stamp`` from its stored races (tagged ``wikipedia-hosts:STAMP``)."""
    study = studies.get("wikipedia")
    races = results.races_with_tags({"wikipedia-hosts": stamp})
    if not races:
        raise IngestlabError(f"no stored race tagged wikipedia-hosts:{stamp}")
    found = Run()
    for race in races:
        n = int(race["user-tags"]["hosts"])
        result = results.load(race["race-id"], track_path=study.track)
        found.by_hosts[n], found.ids[n] = rates(result), result.race_id
        emulation = result.footprint.get("emulation") or {}
        found.verdicts[n] = (emulation.get("held"), emulation.get("problems", []))
        found.profile = (emulation.get("profile") or {}).get("label", found.profile)
        found.test_mode = found.test_mode or result.test_mode
        found.versions = {"engine": "elasticsearch", "version": result.es_version, "rally": result.race.get("rally-version")}
    return found


def report(stamp: str, command: str | None = None, log=print) -> str:
    """The report of a run from its stored races (tagged ``wikipedia-hosts:STAMP``), results.json keeping ``command``."""
    found = stored(stamp)
    published = published_data.load("wikipedia")
    machine_line = machine.one_line(machine.describe())
    m = model(found.by_hosts, published)
    text = markdown(found.by_hosts, found.verdicts, found.profile, published, machine_line, found.test_mode, m)
    text += "- Races: " + ", ".join(f"{n} host(s) {found.ids[n][:8]}" for n in sorted(found.ids)) + ".\n"
    out = writer.write(
        paths.results_dir() / "wikipedia-hosts" / stamp,
        "ingestlab: study 4 over host counts",
        text,
        [chart(found.by_hosts, m, published, machine_line)],
        {"by_hosts": found.by_hosts, "verdicts": found.verdicts, "races": found.ids, "command": command},
    )
    log(text)
    log(f"[ingestlab] report written to {out}/report.md and report.html")
    return text
