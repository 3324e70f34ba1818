"""A study raced by opensearch-benchmark against OpenSearch: the workload exported from the track, its corpora made by
the pack where OSB looks for them, OSB run stock through the pack's launcher, and its ``test_run.json`` read back as
the same :class:`~ingestlab.rally.results.RaceResult` a Rally race gives, so every study's report works on it."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from ingestlab import allocator, net, paths
from ingestlab.corpus import makers
from ingestlab.corpus.files import TEST_MODE_DOCS, one_k_path
from ingestlab.errors import IngestlabError, RaceFailed
from ingestlab.osb import tool, workloads
from ingestlab.rally import failure, progress, trackinfo
from ingestlab.rally.command import format_tags
from ingestlab.rally.footprint import ProcessPeaks
from ingestlab.rally.home import LATENCY_FILE, errors_logged, read_from
from ingestlab.rally.launcher import PORT_VARIABLE, PROGRESS_VARIABLE, TOKEN_VARIABLE
from ingestlab.rally.load_side import LoadSide
from ingestlab.rally.race import task_spans
from ingestlab.rally.results import RaceResult, finished
from ingestlab.runners.utils.runner_stats import VARIABLE as RUNNER_STATS

LOAD_GENERATOR = "opensearch-benchmark"


def config_dir() -> Path:
    return tool.home() / ".osb"


def test_run_file(test_run_id: str) -> Path:
    return config_dir() / "benchmarks" / "test-runs" / test_run_id / "test_run.json"


def data_cache(benchmark_home: Path | None = None) -> Path:
    """OSB's data cache: the pack's OSB home's, or ``benchmark_home``'s (OSB's own default: the user's home)."""
    return (benchmark_home / ".osb" if benchmark_home else config_dir()) / "benchmarks" / "data"


def make_corpora(track, test_mode: bool, log=print, cache: Path | None = None) -> None:
    """Every generated corpus of the rendered track, made where OSB finds it (test mode: only the -1k files)."""
    for corpus in track.rendered.get("corpora", []):
        for document_set in corpus.get("documents", []):
            spec = makers.declared(document_set.get("meta"))
            if not spec.get("generator"):
                continue
            name, docs = Path(document_set["source-file"]), int(document_set["document-count"])
            if test_mode:  # OSB, as Rally, reads the -1k file of every set in test mode, whatever its size
                name, docs = one_k_path(name), min(docs, TEST_MODE_DOCS)
            makers.make_as_declared((cache or data_cache()) / corpus["name"] / name.name, docs, spec, log=log)


def as_race(doc: dict) -> dict:
    """OSB's test_run.json with the names a Rally race.json has (the original keys stay too)."""
    return {
        **doc,
        "race-id": doc.get("test-run-id"),
        "race-timestamp": doc.get("test-run-timestamp"),
        "track": doc.get("workload"),
        "challenge": doc.get("test_procedure"),
        "track-params": doc.get("workload-params") or {},
        "load-generator": f"{LOAD_GENERATOR} {doc.get('benchmark-version')}",
        "engine": "opensearch",
    }


def run(
    track,
    hosts: str,
    challenge: str | None,
    params: dict,
    tags: dict,
    test_mode: bool,
    on_error: str = "abort",
    exclude_tasks: str | None = None,
    log=print,
    stream: bool = True,
) -> RaceResult:
    """Race the track's workload with OSB; its result, or an error naming OSB's log."""
    python = tool.python(log)
    make_corpora(track, test_mode, log)
    test_run_id = str(uuid.uuid4())
    stats_file = test_run_file(test_run_id).with_name("ingestlab-runner-stats.jsonl")
    with tempfile.TemporaryDirectory(prefix="ingestlab-osb-") as tmp:
        exported = workloads.export(Path(tmp), [track.name]) / track.name
        cmd = [
            str(python),
            "-m",
            "ingestlab.rally.launcher",
            "run",
            "--offline",
            "--pipeline=benchmark-only",
            f"--workload-path={exported}",
            f"--target-hosts={hosts}",
            f"--test-run-id={test_run_id}",
            f"--on-error={'abort' if on_error == 'abort' else 'continue'}",
            "--results-format=markdown",
            f"--results-file={Path(tmp) / 'summary.md'}",
        ]
        if challenge:
            cmd.append(f"--test-procedure={challenge}")
        if params:
            (Path(tmp) / "params.json").write_text(json.dumps(params))
            cmd.append(f"--workload-params={Path(tmp) / 'params.json'}")
        if tags:
            cmd.append(f"--user-tag={format_tags(tags)}")
        if exclude_tasks:
            cmd.append(f"--exclude-tasks={exclude_tasks}")
        if test_mode:
            cmd.append("--test-mode")
        env = allocator.with_settings(
            {
                **os.environ,
                "BENCHMARK_HOME": str(tool.home()),
                PORT_VARIABLE: str(net.free_port()),
                TOKEN_VARIABLE: test_run_id,  # its actor system hears its own messages only
                RUNNER_STATS: str(stats_file),
                PROGRESS_VARIABLE: str(Path(tmp) / "progress.jsonl"),
            }
        )
        log(f"[ingestlab] {' '.join(cmd)}")
        osb_log = config_dir() / "logs" / "benchmark.log"
        log_start = osb_log.stat().st_size if osb_log.is_file() else 0
        started, started_at = time.monotonic(), time.time()
        with open(Path(tmp) / "output.txt", "w+") as captured:
            proc = subprocess.Popen(
                cmd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=None if stream else captured,
                stderr=None if stream else subprocess.STDOUT,
                text=True,
            )
            # OSB's workers are the pack's too (its tracks name them when they register): the same load-side watch as esrally's
            with ProcessPeaks(proc.pid, marker=f"{RUNNER_STATS}={stats_file}") as peaks, LoadSide(peaks, hosts) as side:
                try:
                    proc.wait()
                except BaseException:
                    proc.terminate()
                    raise
            captured.seek(0)
            output = "" if stream else captured.read()[-3000:]
        seconds = time.monotonic() - started
        events = progress.read(Path(tmp) / "progress.jsonl")
        latency, spans = progress.per_task(events, "latency_samples"), task_spans(events, started_at)
    found = test_run_file(test_run_id)
    if proc.returncode != 0 or not found.is_file():
        logged = read_from(osb_log, log_start)
        cause = failure.cause(output, logged, peaks.pids() | {proc.pid}, proc.returncode, tuple(errors_logged(0, text=logged)))
        raise RaceFailed(
            f"the OSB test run failed: {cause} (exit {proc.returncode}; its log: {osb_log})" + (f"\n{output}" if output else ""),
            cause=cause,
        )
    if latency:  # beside the test run, as the pack keeps Rally's: a percentile OSB leaves out for too few requests
        found.with_name(LATENCY_FILE).write_text(json.dumps(latency))
    footprint = {"seconds": seconds, "rally_memory": peaks.summary(), "load_side": side.summary(spans)}
    return finished(
        as_race(json.loads(found.read_text())), stats_file, track, footprint=footprint, latency_file=found.with_name(LATENCY_FILE)
    )


def load(test_run_id: str, track_path: Path | None = None) -> RaceResult:
    """A stored OSB test run as a race result (``ingestlab report --engine opensearch``)."""
    found = test_run_file(test_run_id)
    if not found.is_file():
        raise IngestlabError(f"no OSB test run {test_run_id} under {found.parent.parent}")
    race, track = as_race(json.loads(found.read_text())), trackinfo.load(track_path) if track_path else None
    return finished(race, found.with_name("ingestlab-runner-stats.jsonl"), track, latency_file=found.with_name(LATENCY_FILE))


def stored() -> list[dict]:
    root = config_dir() / "benchmarks" / "test-runs"
    return (
        sorted((as_race(json.loads(f.read_text())) for f in root.glob("*/test_run.json")), key=lambda r: r["race-timestamp"] or "")
        if root.is_dir()
        else []
    )


__all__ = ["run", "load", "stored", "as_race", "make_corpora", "paths"]
