"""Run ``esrally race`` offline in the pack's own RALLY_HOME on a free actor port, print a line per finished task,
stop the race when a load-driver host drops out, and return it as a :class:`~ingestlab.rally.results.RaceResult`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from ingestlab import allocator, net, paths, procs
from ingestlab.errors import IngestlabError, RaceFailed
from ingestlab.rally import failure
from ingestlab.rally import home as rally_home
from ingestlab.rally.command import RaceRequest, build_command, redacted
from ingestlab.rally.driver_watch import DriverStats, DriverWatch
from ingestlab.rally.footprint import ProcessPeaks, indices_bytes
from ingestlab.rally.launcher import PORT_VARIABLE, PROGRESS_VARIABLE, TOKEN_VARIABLE
from ingestlab.rally.load_side import LoadSide
from ingestlab.rally.progress import Progress, per_task
from ingestlab.rally.results import RaceResult, finished
from ingestlab.rally.trackinfo import TrackInfo
from ingestlab.runners.utils.runner_stats import VARIABLE as RUNNER_STATS_VARIABLE


@dataclass
class Outcome:
    """How the esrally process ended (before its race is read back)."""

    race_id: str
    returncode: int
    stopped_because: str | None = None  # why the pack stopped the race itself (a load-driver host gone)
    output: str = ""
    seconds: float | None = None  # wall clock of the esrally process
    rally_memory: dict | None = None  # peak RSS of Rally's processes (see footprint.ProcessPeaks)
    load_side: dict | None = None  # which side was at its CPU limit (see load_side.LoadSide)
    errors: tuple[str, ...] = ()  # the exceptions Rally's log gained while a failed race ran
    cause: str | None = None  # why a failed race failed, in one line (see failure.cause)


def environment(race_id: str, home: Path, actor_port: int, progress: Path, token: str | None = None) -> dict:
    env = {
        **os.environ,
        "RALLY_HOME": str(home),
        PORT_VARIABLE: str(actor_port),
        # its actor system hears its own messages only (a lab's daemons and races share the lab's token)
        TOKEN_VARIABLE: token or race_id,
        PROGRESS_VARIABLE: str(progress),
        # the pack's runners append per-call figures Rally's race.json does not keep (client CPU, bytes) here
        RUNNER_STATS_VARIABLE: str(rally_home.runner_stats_file(race_id, home)),
    }
    return allocator.with_settings(env)  # big request bodies from the heap, not a fresh mmap each


def execute(request: RaceRequest, log=print, stream: bool = True, home: Path | None = None) -> Outcome:
    home = rally_home.ensure_rally_home(home)
    race_id = str(uuid.uuid4())
    drivers = request.drivers
    with tempfile.TemporaryDirectory(prefix="ingestlab-race-") as tmp:
        params_file = None
        if request.track_params:
            params_file = Path(tmp) / "track-params.json"
            params_file.write_text(json.dumps(request.track_params))
        cmd = build_command(request, race_id, params_file)
        log(f"[ingestlab] {redacted(cmd)}")
        port = drivers.actor_port if drivers is not None else net.free_port()
        env = environment(race_id, home, port, Path(tmp) / "progress.jsonl", getattr(drivers, "actor_token", None))
        driver_stats = DriverStats(drivers) if drivers is not None else None
        watch = DriverWatch(drivers) if drivers is not None else None
        log_start = rally_home.log_size(home)
        with open(Path(tmp) / "output.txt", "w+") as captured, Progress(Path(tmp) / "progress.jsonl", log) as progress:
            started, started_at = time.monotonic(), time.time()
            proc = subprocess.Popen(
                cmd, env=env, stdin=subprocess.DEVNULL, stdout=None if stream else captured, stderr=None if stream else subprocess.STDOUT
            )
            marker = f"{RUNNER_STATS_VARIABLE}={env[RUNNER_STATS_VARIABLE]}"
            # load-driver hosts' daemons (a lab's) run the workers: their processes carry the lab's own variable
            with (
                ProcessPeaks(proc.pid, marker=marker, workers_marker=getattr(drivers, "process_marker", None)) as peaks,
                LoadSide(peaks, request.target_hosts, request.client_options) as load_side,
            ):
                try:
                    returncode, stopped_because = _wait(proc, watch, log)
                except BaseException:  # interrupted or terminated: Rally and its actors go too, not only the pack
                    _stop_race(proc, marker)
                    raise
            seconds = time.monotonic() - started
            captured.seek(0)
            output = captured.read()
        if driver_stats:
            driver_stats.collect(rally_home.runner_stats_file(race_id, home))
        samples, latency = per_task(progress.events, "throughput_samples"), per_task(progress.events, "latency_samples")
        spans = task_spans(progress.events, started_at)
        if samples and rally_home.race_json(race_id, home).is_file():
            rally_home.samples_file(race_id, home).write_text(json.dumps(samples))
        if latency and rally_home.race_json(race_id, home).is_file():  # a percentile Rally leaves out for too few requests
            rally_home.latency_file(race_id, home).write_text(json.dumps(latency))
    if stopped_because:
        rally_home.race_json(race_id, home).unlink(missing_ok=True)  # a race the pack stopped is not a result
    errors, cause = (), None
    if returncode != 0:
        logged = rally_home.log_since(log_start, home)
        errors = tuple(rally_home.errors_logged(log_start, text=logged))
        cause = failure.cause(output, logged, peaks.pids() | {proc.pid}, returncode, errors)
    return Outcome(race_id, returncode, stopped_because, output, seconds, peaks.summary(), load_side.summary(spans), errors, cause)


def task_spans(events: list[dict], started_at: float) -> dict[str, tuple[float, float]]:
    """Each finished task's wall-clock span, from the join point before it (the race's start for the first) to the next."""
    spans, previous = {}, started_at
    for event in sorted(events, key=lambda e: e["time"]):
        for figures in event["tasks"]:
            spans[figures["task"]] = (previous, event["time"])
        previous = event["time"]
    return spans


def _wait(proc: subprocess.Popen, watch, log, grace: float = 20.0) -> tuple[int, str | None]:
    """Wait for Rally; with a ``watch``, stop it (SIGINT, then SIGTERM, then SIGKILL) once the watch reports a problem."""
    if watch is None:
        return proc.wait(), None
    while proc.poll() is None:
        problem = watch.check()
        if problem:
            log(f"[ingestlab] stopping the race: {problem.split(':')[0]}")
            procs.stop(
                lambda: [] if proc.poll() is not None else [proc.pid], grace=grace, signals=(signal.SIGINT, signal.SIGTERM, signal.SIGKILL)
            )
            return proc.wait(), problem
        time.sleep(1.0)
    return proc.returncode, None


def _stop_race(proc: subprocess.Popen, marker: str, grace: float = 20.0) -> None:
    """Stop esrally (SIGINT first: it cancels the race), then any actor it left behind (found by the race's variable)."""
    procs.stop(lambda: [proc.pid] if proc.poll() is None else [], grace=grace, signals=(signal.SIGINT, signal.SIGTERM, signal.SIGKILL))
    mark = marker.encode()
    procs.stop(lambda: procs.carrying(mark)[mark], grace=5.0)


def run(request: RaceRequest, track: TrackInfo | None = None, log=print, stream: bool = True, home: Path | None = None) -> RaceResult:
    """Race, and return the stored race; an error naming Rally's log when it failed or was stopped."""
    home = home or paths.rally_home()
    outcome = execute(request, log=log, stream=stream, home=home)
    race_file = rally_home.race_json(outcome.race_id, home)
    if outcome.stopped_because:
        raise IngestlabError(f"{outcome.stopped_because}. Rally's log: {rally_home.rally_log(home)}")
    if outcome.returncode != 0 or not race_file.is_file():
        logged = "".join(f"\n  {line}" for line in outcome.errors)
        cause = outcome.cause or f"esrally exited with {outcome.returncode} and left no race"
        raise RaceFailed(
            f"the race failed: {cause} (exit {outcome.returncode}; Rally's log: {rally_home.rally_log(home)})"
            + (f"\nRally's log gained meanwhile:{logged}" if logged else "")
            + (f"\n{outcome.output[-3000:]}" if outcome.output else ""),
            cause=cause,
        )
    race = json.loads(race_file.read_text())
    footprint = {
        "seconds": outcome.seconds,
        "rally_memory": outcome.rally_memory,
        "load_side": outcome.load_side,
        "indices_bytes": indices_bytes(request.target_hosts, request.client_options) if request.target_hosts else None,
    }
    rally_home.footprint_file(outcome.race_id, home).write_text(json.dumps(footprint))  # for every later report of the race
    return finished(race, rally_home.runner_stats_file(outcome.race_id, home), track, rally_home=home, footprint=footprint)
