"""Race a track: check what the race is given against the track, then run esrally (against given hosts, on load-driver
hosts, or through Rally's from-distribution pipeline) or OSB. Every command that races goes through :func:`race`."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from ingestlab import paths
from ingestlab.corpus.makers import declared
from ingestlab.errors import IngestlabError
from ingestlab.hosts import fidelity
from ingestlab.osb import race as osb_race
from ingestlab.rally import from_distribution, preflight, trackinfo
from ingestlab.rally import race as rally_race
from ingestlab.rally.command import RaceRequest, tag_value
from ingestlab.rally.home import data_cache, emulation_file
from ingestlab.rally.results import JAVA_OPTIONS_TAG, RaceResult


@dataclass(frozen=True)
class Target:
    """Where a race goes: ``hosts`` with ``client_options``, load-driver hosts, or a node Rally provisions itself."""

    hosts: str | None = None
    client_options: str | None = None
    drivers: object | None = None
    distribution: dict | None = None
    emulation: object | None = None  # a lab with emulated hardware (ingestlab.hosts.lab.Lab): monitored while racing
    engine: str = "elasticsearch"  # "opensearch": the race is opensearch-benchmark's (ingestlab.osb.race)
    launcher: tuple = ()  # a command prefix esrally starts through (the coordinator's load-driver CPU share)


FULL_SIZE_TAGS = {"size": "full"}  # the user tags of a race at its article's own size (``--full-size``)


@dataclass(frozen=True)
class Options:
    challenge: str | None = None
    params: dict = field(default_factory=dict)
    tags: dict = field(default_factory=dict)
    test_mode: bool = False
    on_error: str = "abort"
    exclude_tasks: str | None = None
    include_tasks: str | None = None  # Rally's --include-tasks: only these tasks of the challenge
    report_file: Path | None = None

    def tagged(self, **tags) -> "Options":
        return replace(self, tags={**tags, **self.tags})


def summary_file(name: str) -> Path:
    """Where Rally's own summary of a race goes (esrally prints it only to a terminal otherwise)."""
    out = paths.results_dir() / name
    out.mkdir(parents=True, exist_ok=True)
    return out / f"rally-summary-{time.strftime('%Y%m%dT%H%M%S')}.md"


def checked_track(track_path: Path, options: Options, target: Target) -> trackinfo.TrackInfo:
    """The track rendered with the race's parameters, once the parameters and challenge are known to fit it."""
    params = dict(options.params)
    track = trackinfo.load(track_path, params)
    if target.drivers is not None and "drivers" in track.defaults and "drivers" not in params:
        params["drivers"] = len(target.drivers.hosts)  # a step per load-driver host
        track = track.with_params(params)
    track.check(unknown=True)
    track.challenge(options.challenge)
    _check_supplied_corpora(track)
    return track


def _check_supplied_corpora(track: trackinfo.TrackInfo) -> None:
    """A corpus file the user must supply (named by a track parameter) is there, or one line says how to make it."""
    # heavy: imports runners.compat, which loads the client (elasticsearch, ~0.3 s); the CLI starts without it
    from ingestlab.runners.track_processors.corpora import find_supplied

    for corpus in track.rendered.get("corpora", []):
        for document_set in corpus.get("documents", []):
            how = declared(document_set.get("meta")).get("supplied")
            name = document_set.get("source-file", "")
            if how and find_supplied(name, [str(track.path), str(data_cache() / corpus.get("name", ""))]) is None:
                raise IngestlabError(
                    f"corpus file {name} of track {track.name} does not exist (looked in {track.path} and "
                    f"{data_cache() / corpus.get('name', '')}); make it with: {how}"
                )


def race(track_path: Path, target: Target, options: Options, log=print, stream: bool = True) -> RaceResult:
    track = checked_track(track_path, options, target)
    tags = dict(options.tags)
    if options.test_mode:
        tags["test-mode"] = "true"
    if target.drivers is not None:
        tags["load-driver-hosts"] = str(len(target.drivers.hosts))
    if target.emulation is not None:
        tags["hardware"] = target.emulation.profile.tag()
    request = RaceRequest(
        track_path=Path(track_path),
        target_hosts=target.hosts,
        challenge=options.challenge,
        track_params=track.given,
        user_tags=tags,
        test_mode=options.test_mode,
        client_options=target.client_options,
        report_file=options.report_file or summary_file(tags.get("study", track.name)),
        on_error=options.on_error,
        exclude_tasks=options.exclude_tasks,
        include_tasks=options.include_tasks,
        drivers=target.drivers,
        launcher=tuple(target.launcher),
    )
    if target.distribution is not None:
        return from_distribution.run(request, track=track, log=log, **target.distribution)
    facts = preflight.check_hosts(target.hosts, target.client_options)
    if (facts.distribution == "opensearch") != (target.engine == "opensearch"):
        raise IngestlabError(
            f"{target.hosts} runs {facts.distribution} {facts.version}: race it with "
            + ("--engine opensearch (opensearch-benchmark)" if facts.distribution == "opensearch" else "the default engine (esrally)")
        )
    track = fit_to_cluster(request, track, facts, options, log)
    if target.engine == "opensearch":
        return osb_race.run(
            track,
            target.hosts,
            options.challenge,
            request.track_params,
            request.user_tags,
            options.test_mode,
            options.on_error,
            request.exclude_tasks,
            log=log,
            stream=stream,
        )
    if target.emulation is None:
        return rally_race.run(request, track=track, log=log, stream=stream)
    return _monitored(request, track, target.emulation, log, stream)


def _monitored(request: RaceRequest, track, lab, log, stream: bool) -> RaceResult:
    """A race on emulated hardware, with the fidelity monitor watching it; its verdict is kept beside race.json."""
    with fidelity.Monitor(lab) as monitor:
        result = rally_race.run(request, track=track, log=log, stream=stream)
    emulation_file(result.race_id, result.rally_home).write_text(json.dumps(monitor.report, indent=2))
    for line in fidelity.lines(monitor.report):
        log(f"[ingestlab] {line.lstrip('- ')}")
    return replace(result, footprint={**result.footprint, "emulation": monitor.report})


def fit_to_cluster(request: RaceRequest, track: trackinfo.TrackInfo, facts: preflight.ClusterFacts, options: Options, log=print):
    """Tasks whose API the cluster lacks are left out (``--exclude-tasks``) and the race tagged ``unavailable``; a 6.x
    cluster gets the track param ``mapping_type`` its indices need; the race is tagged with the cluster's ``nodes``."""
    # heavy: imports runners.compat, which loads the client (elasticsearch, ~0.3 s); the CLI starts without it
    from ingestlab.runners.operations.reindex_api import MODULE as REINDEX_MODULE
    from ingestlab.runners.operations.reindex_api import NAME as REINDEX

    if facts.nodes:
        request.user_tags = {**request.user_tags, "nodes": str(facts.nodes)}
    if facts.java_options:  # nodes the pack started with INGESTLAB_NODE_JAVA_OPTS: the race says so wherever it is read
        request.user_tags = {**request.user_tags, JAVA_OPTIONS_TAG: tag_value(",".join(facts.java_options))}

    six = facts.distribution == "elasticsearch" and facts.major is not None and facts.major < 7
    if six and "mapping_type" in track.defaults and "mapping_type" not in track.given:
        track = track.with_params({**track.given, "mapping_type": "_doc"})
        request.track_params = track.given
        log("[ingestlab] Elasticsearch 6.x: the track's indices get the mapping type _doc (track param mapping_type)")
    uses = {t.operation_type for t in track.challenge(options.challenge).schedule}
    if REINDEX in uses and facts.lacks(REINDEX_MODULE):
        request.exclude_tasks = ",".join(filter(None, [request.exclude_tasks, f"type:{REINDEX}"]))
        request.user_tags = {**request.user_tags, "unavailable": REINDEX}
        log(
            f"[ingestlab] {facts.distribution.capitalize()} {facts.version} here has no {REINDEX_MODULE} module: the {REINDEX} tasks "
            f"are left out (--exclude-tasks=type:{REINDEX}) and reported as not available on this distribution"
        )
    return track
