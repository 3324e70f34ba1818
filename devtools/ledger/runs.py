"""A command's run as a ledger entry, made from what the command stored (``python -m devtools.ledger record KIND ID``):
a study's race from Rally's store, a calibration's, redline search's or emulated study's results file under the
results directory. Each entry has the kind, run id, figures (their names, units and labels), conditions, versions and
source that the docs cite; its date is when the run began (its stamp), its command the one the run stored."""

from __future__ import annotations

import json
import re
import statistics
import time
from pathlib import Path

from devtools import ledger
from ingestlab import paths, studies
from ingestlab import published as published_data
from ingestlab.errors import IngestlabError
from ingestlab.models import bottleneck
from ingestlab.rally import results
from ingestlab.report import writer
from ingestlab.report.common import fmt, ratio
from ingestlab.studies import corpora_bottleneck, corpora_hardware, wikipedia_hosts
from ingestlab.studies.corpora import ONE_NODE
from ingestlab.studies.corpora_bottleneck import CONFIGURATIONS, RACED_IN, RATIOS
from ingestlab.verdicts import stats
from ingestlab.verdicts.noise import calibration_dir

SYMBOLS = {"λ": "lambda", "σ": "sigma", "κ": "kappa"}  # a USL parameter in a figure's name


def _stored(path: Path) -> dict:
    """A results file a command wrote, refused in one line when it is not there."""
    if not path.is_file():
        raise IngestlabError(f"no results file {path}: the command writes it when it reports its run (--command for one it did not)")
    return json.loads(path.read_text())


def _command(path: Path, given: str | None, stored: dict | None = None) -> str:
    """The command line that ran the run: ``given``, else the one its results file ``path`` keeps (``stored``, when read)."""
    command = given or (_stored(path) if stored is None else stored).get("command")
    if not command:
        raise IngestlabError(f"{path} keeps no command line (a run made before the command stored it): give it with --command")
    return command


def _date(stamp: str, form: str) -> str | None:
    """When the run began, from its stamp (None, the time of recording, for a stamp of another form)."""
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.strptime(stamp, form))
    except ValueError:
        return None


def from_study(race_id: str, command: str | None = None) -> dict:
    """A study's race (``ingestlab race`` or ``demo``): the headlines of its study's report."""
    race, home = results.load_race(race_id)
    name = (race.get("user-tags") or {}).get("study")
    if not name:
        raise IngestlabError(f"race {race_id} has no user tag study: not a race of a study (`ingestlab race` and `demo` tag theirs)")
    study = studies.get(name)
    result = results.of(race, home, study.track)
    if result.test_mode:
        raise IngestlabError(f"race {result.race_id} ran in test mode: its figures measure nothing, and the ledger keeps none")
    figures = {
        h.key: ledger.Figure(h.here, h.unit.strip(), h.label, h.published) for h in study.headlines(result, study.published_figures())
    }
    if not figures:
        raise IngestlabError(f"race {result.race_id}: study {study.name} has no headline figures to record")
    given = result.race.get("track-params", {}) or {}
    conditions = "; ".join(
        filter(None, [f"challenge {result.challenge}" if result.challenge else "", ", ".join(f"{k}={v}" for k, v in sorted(given.items()))])
    )
    out = writer.race_dir(study.name, result)
    stored = _stored(out / "results.json") if (out / "results.json").is_file() or not command else {}
    return {
        "run": result.race_id,
        "kind": f"{study.name} study",
        "command": _command(out / "results.json", command, stored),
        "figures": figures,
        "versions": {
            "engine": result.tags.get("engine", "elasticsearch"),
            "version": result.es_version,
            "rally": result.race.get("rally-version"),
        },
        "conditions": conditions,
        "source": f"report {out.relative_to(out.parents[2]) if len(out.parents) > 2 else out}/results.json",
        "date": _date(race["race-timestamp"], "%Y%m%dT%H%M%SZ") if race.get("race-timestamp") else None,
        "info": stored.get("machine") or None,
    }


def calibration_figures(data: dict) -> dict:
    """A calibration's figures: the noise floor, every measured rate of each comparison size and design, the races a
    side a change needs, and the races kept."""
    out = {"sigma": ledger.Figure(round(data["tasks"][data["task"]]["sigma"] * 100, 2), "%", f"σ of log race medians, {data['task']}")}
    for size, got in data["rates"].items():
        for key, (k, n) in ((k, v) for k, v in got.items() if k not in ("blocks", "pairs")):
            out.update(rate_figures(f"{size}-{key}", f"{size} race(s) a side: {key.replace('_', ' ')}", k, n))
        for design, how in (("blocks", "in blocks raced one after the other"), ("pairs", "in pairs of consecutive races (ab)")):
            for key, (k, n) in got.get(design, {}).items():
                out.update(rate_figures(f"{size}-{design}-{key}", f"{size} race(s) a side, {how}: {key.replace('_', ' ')}", k, n))
    for effect, need in data["races_a_side"].items():
        out[f"races-for-{effect}"] = ledger.Figure(need["with_floor"], "races", f"races a side for a {effect} % change (floor)")
        out[f"races-for-{effect}-welch"] = ledger.Figure(need["welch"], "races", f"races a side for a {effect} % change (Welch, no floor)")
    out["races"] = ledger.Figure(len(data["medians"]), "races", "races kept")
    return out


def rate_figures(name: str, what: str, k: int, n: int) -> dict:
    """A measured rate's ledger figures: the rate, its count, of how many, and its exact 95 % interval."""
    low, high = stats.clopper_pearson(k, n) if n else (None, None)
    return {
        name: ledger.Figure(round(100 * k / n, 1) if n else None, "%", f"{what} {k}/{n}"),
        f"{name}-count": ledger.Figure(k, "comparisons", f"{what}: called"),
        f"{name}-of": ledger.Figure(n, "comparisons", f"{what}: disjoint comparisons"),
        f"{name}-low": ledger.Figure(None if low is None else round(100 * low, 1), "%", f"{what}: exact 95 % interval, low"),
        f"{name}-high": ledger.Figure(None if high is None else round(100 * high, 1), "%", f"{what}: exact 95 % interval, high"),
    }


def calibration(data: dict, figures=None, command: str | None = None) -> dict:
    """A calibration file's entry; ``figures``: what makes its figures, when not :func:`calibration_figures` (a dose
    calibration's)."""
    return {
        "run": data["stamp"],
        "kind": "calibrate",
        "command": command or data["command"],
        "figures": (figures or calibration_figures)(data),
        "versions": data["versions"],
        "conditions": data["conditions"],
        "source": f"results/calibration/{data['stamp']}/results.json",
        "info": data.get("machine"),
        "date": _date(data["stamp"], "%Y-%m-%dT%H%M%S"),
    }


def from_calibration(stamp: str, command: str | None = None) -> dict:
    """``ingestlab calibrate``'s run ``stamp`` (its calibration file)."""
    data = _stored(calibration_dir() / stamp / "results.json")
    if "dose" in data:
        raise IngestlabError(f"calibration {stamp} is a dose bench's: `python -m devtools.bench dose` records its own entry")
    return calibration(data, command=command)


def redline_figures(result: dict) -> dict:
    """A search over the offered rate: the sustainable rate, the failed step above it and the full-speed rate."""
    key = f"p{result['latency_target']['percentile']}"
    at = [p for p in result["probes"] if p["rate"] == result["rate"]]
    figures = {
        "sustainable": ledger.Figure(
            None if result["rate"] is None else round(result["rate"], 1),
            "docs/s",
            f"highest offered rate whose {len(at)} probes all met {key} <= {result['latency_target']['ms']:g} ms",
        ),
        "failed-above": ledger.Figure(
            None if result["failed_above"] is None else round(result["failed_above"], 1), "docs/s", "the lowest step above it that failed"
        ),
        "full-speed": ledger.Figure(
            round(result["full_speed"]["rate"], 1), "docs/s", f"full speed, median of {len(result['full_speed']['races'])} warm races"
        ),
        "probes": ledger.Figure(len(result["probes"]), "races", "probes the search raced"),
        "duration": ledger.Figure(
            result.get("seconds"), "s", "warm-up and search (a node the command provisions: its start and stop not included)"
        ),
        "target-ms": ledger.Figure(result["latency_target"]["ms"], "ms", f"the latency target ({key})"),
    }
    seen = [p["latency_ms"].get(key) for p in at if p["latency_ms"].get(key) is not None]
    if seen:
        figures["latency-at-sustainable"] = ledger.Figure(round(max(seen), 1), "ms", f"the highest {key} of its probes")
    achieved = [p["throughput"] for p in at if p.get("throughput") is not None]
    if achieved:
        figures["achieved-at-sustainable"] = ledger.Figure(
            round(statistics.median(achieved), 1),
            "docs/s",
            "what its probes achieved (median): below the offered rate, the schedule fell behind",
        )
    return {**figures, **emulation_figures(result)}


def emulation_figures(result: dict) -> dict:
    """On emulated hosts: how many probes and full-speed races the emulation held in (none elsewhere)."""
    held = [p.get("emulation") for p in result["probes"]] + list(result["full_speed"].get("emulation") or [])
    if all(v is None for v in held):
        return {}
    return {
        "emulation-held": ledger.Figure(
            sum(v is True for v in held), "races", f"probes and full-speed races the emulation held in, of {len(held)}"
        )
    }


def over_figures(result: dict) -> dict:
    """A search over clients or bulk size at full speed: the highest that kept the target, and the USL's N* beside it."""
    key = f"p{result['latency_target']['percentile']}"
    unit = "clients" if result["over"] == "clients" else "docs"
    at = [p for p in result["probes"] if p["rate"] == result["rate"]]
    figures = {
        "highest": ledger.Figure(
            result["rate"],
            unit,
            f"highest {result['over'].replace('_', ' ')} whose {len(at)} probes all met {key} "
            f"<= {result['latency_target']['ms']:g} ms at full speed",
        ),
        "failed-above": ledger.Figure(result["failed_above"], unit, "the lowest step above it that failed"),
        "full-speed": ledger.Figure(
            round(result["full_speed"]["rate"], 1),
            "docs/s",
            f"full speed at {result['full_speed']['clients']} clients, median of {len(result['full_speed']['races'])} warm races",
        ),
        "probes": ledger.Figure(len(result["probes"]), "races", "probes the search raced"),
        "duration": ledger.Figure(result.get("seconds"), "s", "warm-up and search"),
        "target-ms": ledger.Figure(result["latency_target"]["ms"], "ms", f"the latency target ({key})"),
    }
    through = [p["throughput"] for p in at if p.get("throughput")]
    if through:
        figures["throughput-at-highest"] = ledger.Figure(round(statistics.median(through), 1), "docs/s", "median of its probes")
    fit = result.get("usl") or {}
    if fit.get("peak") is not None:
        figures["usl-peak"] = ledger.Figure(round(fit["peak"], 1), "clients", "the USL's N* from every client count probed")
    return figures


def redline(result: dict, command: str | None = None) -> dict:
    """A search's entry (``redline.json``'s content): its figures, the engine and Rally that raced it, its setup and
    why it stopped; a search over clients or bulk size (its ``over``) is a ``redline-over``."""
    over = result.get("over")
    if over:
        run, kind, figures = f"{result['stamp']}-redline-{over.replace('_', '-')}", "redline-over", over_figures(result)
        setup = f"over {over} at full speed"
    else:
        setup = f"bulk size {result['bulk_size']}, {result['full_speed']['clients']} client(s) at full speed"
        run, kind, figures = f"{result['stamp']}-redline", "redline", redline_figures(result)
    path = paths.results_dir() / "redline" / result["stamp"] / "redline.json"
    return {
        "run": run,
        "kind": kind,
        "command": _command(path, command, result),
        "figures": figures,
        "versions": {"engine": result["engine"], "version": result["es_version"], "rally": result.get("rally_version")},
        "conditions": (
            f"track {result['track']}, challenge {result['challenge']}, task {result['task']}, {setup}, resolution "
            f"{result['resolution']:.0%}, {result['probes_per_step']} probes a step; stopped: {result['stopped']}"
        ),
        "source": f"results/redline/{result['stamp']}/redline.json",
        "date": _date(result["stamp"], "%Y%m%dT%H%M%S"),
        "info": result.get("machine"),
    }


def from_redline(stamp: str, command: str | None = None) -> dict:
    """``ingestlab redline``'s search ``stamp`` (``results/redline/<stamp>/redline.json``)."""
    return redline(_stored(paths.results_dir() / "redline" / stamp / "redline.json"), command)


def _held_in_every_race(what: str, stamp: str, test_mode: bool, held: list) -> None:
    """An emulated study's run is recorded only outside test mode and when the emulation held in every race."""
    if test_mode:
        raise IngestlabError(f"{what} {stamp} ran in test mode: its figures measure nothing, and the ledger keeps none")
    if not held or not all(held):
        raise IngestlabError(
            f"{what} {stamp}: the emulation held in {sum(h is True for h in held)} of {len(held)} races, not in every one: "
            "its figures are this machine's, not the emulated hardware's, and the ledger keeps none"
        )


def hosts_figures(by_hosts: dict[int, dict], m: dict) -> dict:
    """Study 4 over host counts (``m``: :func:`ingestlab.studies.wikipedia_hosts.model`'s): each host count's rates and
    ratio, the two laws' parameters, their rates at 8 hosts and the predicted ratio beside the article's."""
    figures = {}
    for n, r in sorted(by_hosts.items()):
        for key, label, unit in (("tool_per_node", "one tool per node", "docs/s"), ("reindex", "`_reindex` without slices", "docs/s")):
            if r.get(key):
                figures[f"hosts-{n}-{key.replace('_', '-')}"] = ledger.Figure(round(r[key], 1), unit, f"{n} host(s): {label}")
        if both := ratio(r.get("tool_per_node"), r.get("reindex")):
            figures[f"hosts-{n}-ratio"] = ledger.Figure(round(both, 3), "×", f"{n} host(s): one tool per node ÷ `_reindex` without slices")
    for key, name in (("tool", "tool-per-node"), ("reindex", "reindex")):
        fit = m[key][0]
        if fit:
            for p in (fit.lam, fit.sigma, fit.kappa):
                figures[f"usl-{name}-{SYMBOLS[p.name]}"] = ledger.Figure(
                    round(p.value, 6), "docs/s" if p.name == "λ" else "", f"USL over hosts, {name}: {p.name}"
                )
    for key, name in (("tool_at", "tool-per-node"), ("reindex_at", "reindex")):
        if m[key] is not None:
            figures[f"{name}-at-8"] = ledger.Figure(round(m[key], 1), "docs/s", f"the USL's {name} at 8 hosts")
    if m["tool"][0] and m["tool"][0].peak is not None:
        figures["usl-tool-per-node-peak"] = ledger.Figure(round(m["tool"][0].peak, 4), "hosts", "the USL's peak N* of one tool per node")
    if m["predicted_ratio"] is not None:
        figures["predicted-ratio-at-8"] = ledger.Figure(
            round(m["predicted_ratio"], 4), "×", "the USL's one tool per node ÷ `_reindex` at 8 hosts", round(m["published_ratio"], 2)
        )
    return figures


def hosts_conditions(by_hosts: dict[int, dict], profile: str) -> str:
    hosts = ",".join(map(str, sorted(by_hosts)))
    pages = ", ".join(sorted({f"{r['docs']:,}" for r in by_hosts.values() if r.get("docs")}))
    return f"{hosts} emulated hosts ({profile}); scale-out challenge, {pages} pages, each step once"


def from_wikipedia_hosts(stamp: str, command: str | None = None) -> dict:
    """``ingestlab scale-out``'s run ``stamp``, from its stored races; refused unless the emulation held in every race."""
    run = wikipedia_hosts.stored(stamp)
    _held_in_every_race("scale-out run", stamp, run.test_mode, [held for held, _ in run.verdicts.values()])
    path = paths.results_dir() / "wikipedia-hosts" / stamp / "results.json"
    return {
        "run": stamp,
        "kind": "wikipedia hosts",
        "command": _command(path, command),
        "figures": hosts_figures(run.by_hosts, wikipedia_hosts.model(run.by_hosts, published_data.load("wikipedia"))),
        "versions": run.versions,
        "conditions": hosts_conditions(run.by_hosts, run.profile),
        "source": f"results/wikipedia-hosts/{stamp}/results.json",
        "date": _date(stamp, "%Y-%m-%dT%H%M%S"),
    }


def _slug(text: str) -> str:
    """A configuration's or a ratio's label as part of a ledger figure's name: lower case, runs of other characters a dash."""
    return re.sub(r"[^a-z0-9]+", "-", re.sub(r"<!--.*?-->|`|\*", "", text).lower()).strip("-")[:40] or "x"


def corpora_figures(rows: dict, fitted: dict, published: dict) -> dict:
    """Study 5 on emulated hosts (``fitted``: :func:`ingestlab.studies.corpora_bottleneck.model`'s): each configuration's
    median and service times, each ratio measured, published and predicted, each race's busiest resource and each
    setup's demand per document copy beside one node's."""
    figures = {}
    for track, measured in rows.items():
        for c in CONFIGURATIONS:
            for key, unit, what in (("median", "docs/s", "median"), ("p90", "ms", "p90 service time"), ("p99", "ms", "p99 service time")):
                value = measured.get(c, {}).get(key)
                if value is not None:
                    figures[f"{track}-{_slug(c)}-{key}"] = ledger.Figure(round(value, 1), unit, f"{track}, {c}: {what}")
        pub = published["figures"].get(track, {})
        this = fitted.get(track, {})
        for label, a, b in RATIOS:
            here = ratio(measured.get(a, {}).get("median"), measured.get(b, {}).get("median"))
            if here is not None:
                there = ratio(pub.get(a), pub.get(b))
                figures[f"{track}-{_slug(label)}"] = ledger.Figure(
                    round(here, 3), "×", f"{track}: {label}", round(there, 3) if there is not None else None
                )
            predicted = (this.get("ratios") or {}).get(label)
            if predicted:
                what = f"{track}: {label}, predicted by the bottleneck law from the race of {predicted['from']}"
                figures[f"{track}-{_slug(label)}-predicted"] = ledger.Figure(round(predicted["value"], 3), "×", what)
        first = ((this.get("per") or {}).get(ONE_NODE) or {}).get("demands") or {}
        for c, p in (this.get("per") or {}).items():
            if p["own"] and c not in RACED_IN:
                figures[f"{track}-{_slug(c)}-busiest"] = ledger.Figure(
                    round(100 * p["own"][1], 1), "%", f"{track}, {c}: its race's busiest resource, {p['own'][0]}: use ÷ capacity"
                )
            for r in (bottleneck.NODE_CPU, bottleneck.IOPS, bottleneck.DISK_MB):
                if c not in (ONE_NODE, *RACED_IN) and first.get(r) and p["demands"].get(r):
                    figures[f"{track}-{_slug(c)}-{_slug(r)}-per-copy"] = ledger.Figure(
                        round(p["demands"][r] / first[r], 3), "×", f"{track}, {c}: {r} per document copy ÷ that of 1 node, 1 disk"
                    )
    return figures


def corpora_conditions(docs: dict, races: list, warmed_with: str | None) -> str:
    sizes = ", ".join(f"{t} {fmt(n, ',')}" for t, n in docs.items())
    return (
        f"study 5 on emulated hosts scaled from the article's machines; documents {sizes}; "
        + (f"each new lab warmed up by a race of {warmed_with}, not kept; " if warmed_with else "no warm-up race; ")
        + f"the emulation held in {len(races)} of {len(races)} races"
    )


def from_corpora_hardware(stamp: str, command: str | None = None) -> dict:
    """``ingestlab corpora --emulated``'s run ``stamp``, from its stored races; refused unless the emulation held in every race."""
    run = corpora_hardware.stored(stamp)
    _held_in_every_race("corpora --emulated run", stamp, run.test_mode, [v[2] for v in run.verdicts])
    path = paths.results_dir() / "rally-corpora-hardware" / stamp / "results.json"
    version = next((r.get("distribution-version") or r.get("cluster", {}).get("distribution-version") for r in run.races), None)
    return {
        "run": stamp,
        "kind": "corpora emulated",
        "command": _command(path, command),
        "figures": corpora_figures(run.rows, corpora_bottleneck.model(run.rows, run.setups), published_data.load("rally-corpora")),
        "versions": {"engine": "elasticsearch", "version": version, "rally": run.races[0].get("rally-version")},
        "conditions": corpora_conditions(run.docs, run.races, run.warmed_with),
        "source": f"results/rally-corpora-hardware/{stamp}/results.json",
        "date": _date(stamp, "%Y-%m-%dT%H%M%S"),
    }


KINDS = {
    "study": from_study,
    "calibrate": from_calibration,
    "redline": from_redline,
    "wikipedia-hosts": from_wikipedia_hosts,
    "corpora-hardware": from_corpora_hardware,
}


def record(kind: str, run_id: str, command: str | None = None, where: Path | None = None, replace: bool = False) -> Path:
    """The entry of ``kind``'s run ``run_id`` written to ``where`` (default: ``INGESTLAB_LEDGER``'s directory, else the
    checkout's ``ledger/``); its file. A run already in the ledger is refused unless ``replace``."""
    if kind not in KINDS:
        raise IngestlabError(f"no kind {kind!r} (one of {', '.join(KINDS)})")
    entry, where = KINDS[kind](run_id, command), where or ledger.target() or ledger.directory()
    if not replace and entry["run"] in ledger.load_all(where):
        raise IngestlabError(f"run {entry['run']} is in the ledger already ({where}): --replace writes it again")
    return ledger.record(**entry, where=where)
