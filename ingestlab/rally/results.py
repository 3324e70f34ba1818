"""What a race leaves, as one value: :class:`RaceResult` (race.json, the pack's runner stats, the effective track
parameters, the machine, the rendered track); :func:`load` reads a stored race back from the pack's Rally home or a
user's own."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ingestlab import machine, paths
from ingestlab.errors import IngestlabError
from ingestlab.rally import home as rally_paths
from ingestlab.rally import metrics_store
from ingestlab.rally.trackinfo import TrackInfo
from ingestlab.runners.utils.runner_stats import read as read_runner_stats

# the user tag of a race on nodes the pack started with INGESTLAB_NODE_JAVA_OPTS (ingestlab.racing.fit_to_cluster)
JAVA_OPTIONS_TAG = "node-java-options"
NO_JAVA_OPTIONS = "none"  # what java_options_of says of a race the pack read its nodes for and found none


def java_options_of(race: dict) -> str | None:
    """The extra JVM options a race's nodes ran with, as its tag keeps them; ``NO_JAVA_OPTIONS`` where the pack read the
    nodes (the race is tagged with their count, ``nodes``) and found none; None where it is not known (a race of plain
    esrally, or whose nodes could not be read)."""
    tags = race.get("user-tags", {}) or {}
    return tags.get(JAVA_OPTIONS_TAG) or (NO_JAVA_OPTIONS if tags.get("nodes") else None)


@dataclass(frozen=True)
class TaskResult:
    task: str
    throughput_max: float | None
    throughput_median: float | None
    throughput_min: float | None
    service_time_median_ms: float | None
    error_rate: float
    service_time_ms: dict = field(default_factory=dict)  # "p50", "p90", "p99", "p100", "mean" as Rally stored them
    throughput_mean: float | None = None
    unit: str | None = None
    latency_ms: dict = field(default_factory=dict)

    def service_time(self, name: str) -> float | None:
        return self.service_time_ms.get(name)


def _percentiles(stored: dict) -> dict:
    """Rally writes percentiles as keys like ``50_0`` and ``99_9``; only those its sample count allows."""
    out = {}
    for key, value in (stored or {}).items():
        if key == "mean":
            out["mean"] = value
        elif key != "unit":
            whole, _, fraction = key.partition("_")
            out["p" + whole + ("." + fraction if fraction.strip("0") else "")] = value
    return out


def task_results(race: dict) -> dict[str, TaskResult]:
    out = {}
    for op in race.get("results", {}).get("op_metrics", []):
        tp = op.get("throughput") or {}
        st = op.get("service_time") or {}
        out[op["task"]] = TaskResult(
            task=op["task"],
            throughput_max=tp.get("max"),
            throughput_median=tp.get("median"),
            throughput_min=tp.get("min"),
            service_time_median_ms=st.get("50_0", st.get("100_0")),
            error_rate=op.get("error_rate", 0.0),
            service_time_ms=_percentiles(st),
            throughput_mean=tp.get("mean"),
            unit=tp.get("unit"),
            latency_ms=_percentiles(op.get("latency") or {}),
        )
    return out


@dataclass(frozen=True)
class RaceResult:
    race: dict
    runner_stats: list = field(default_factory=list)
    machine: dict = field(default_factory=dict)
    track: TrackInfo | None = None  # the track as rendered with the race's parameters, where it is known
    rally_home: Path | None = None
    footprint: dict = field(default_factory=dict)  # seconds, rally_memory (peak RSS), indices_bytes: see rally.footprint
    latency_file: Path | None = None  # where the race's latency samples are kept, when not in a Rally home (an OSB test run's)

    @property
    def race_id(self) -> str:
        return self.race.get("race-id", "")

    @property
    def tags(self) -> dict:
        return self.race.get("user-tags", {}) or {}

    @property
    def node_java_options(self) -> str | None:
        """The JVM options the pack added to the nodes (``INGESTLAB_NODE_JAVA_OPTS``), as the race's tag keeps them."""
        return self.tags.get(JAVA_OPTIONS_TAG) or None

    @property
    def test_mode(self) -> bool:
        """Rally stores the tag value ``true`` as a boolean."""
        return str(self.tags.get("test-mode", "")).lower() == "true"

    @property
    def params(self) -> dict:
        """The effective track parameters: the track's defaults overlaid with what the race was given."""
        return self.track.params if self.track else dict(self.race.get("track-params", {}) or {})

    @property
    def challenge(self) -> str | None:
        return self.race.get("challenge")

    @property
    def cluster(self) -> dict:
        return self.race.get("cluster", {}) or {}

    @property
    def es_version(self) -> str | None:
        return self.cluster.get("distribution-version")

    @cached_property
    def tasks(self) -> dict[str, TaskResult]:
        return task_results(self.race)

    def latency_samples(self, task: str) -> list[float]:
        """The task's measured latency samples (ms) as Rally took them, where the pack's race kept them (empty if not)."""
        f = self.latency_file or rally_paths.latency_file(self.race_id, self.rally_home)
        return list(json.loads(f.read_text()).get(task, [])) if self.race_id and f.is_file() else []

    @property
    def schedule(self):
        """The challenge's tasks as the track declares them (empty when the track is not known)."""
        return self.track.challenge(self.challenge).schedule if self.track and self.challenge in self.track.challenges else ()

    def to_json(self) -> dict:
        return {
            "race": self.race,
            "params": self.params,
            "machine": self.machine,
            "track-path": str(self.track.path) if self.track else None,
            "footprint": self.footprint,
        }


def finished(race: dict, stats_file: Path, track: TrackInfo | None, **fields) -> RaceResult:
    """A race just run: its race.json, runner stats, this machine, and the track rendered with the race's parameters."""
    track = track.with_params(race.get("track-params", {}) or {}) if track else None
    return RaceResult(race=race, runner_stats=read_runner_stats(stats_file), machine=machine.describe(), track=track, **fields)


def races_dir(home: Path | None = None) -> Path:
    return rally_paths.races_dir(home)


def _homes(home: Path | None) -> list[Path]:
    return [home] if home else [paths.rally_home(), rally_paths.user_rally_home()]


EMULATION_KEY = "ingestlab-emulation"  # the fidelity report, read from beside race.json into the race's dict
SAMPLES_KEY = "ingestlab-samples"  # each task's throughput samples, likewise
FOOTPRINT_KEY = "ingestlab-footprint"  # what the race cost (duration, peak RSS, disk), likewise


def _read_race(f: Path) -> dict:
    race = json.loads(f.read_text())
    for key, name in (
        (EMULATION_KEY, rally_paths.EMULATION_FILE),
        (SAMPLES_KEY, rally_paths.SAMPLES_FILE),
        (FOOTPRINT_KEY, rally_paths.FOOTPRINT_FILE),
    ):
        beside = f.with_name(name)
        if beside.is_file():
            race[key] = json.loads(beside.read_text())
    return race


def load_race(race_id: str, home: Path | None = None) -> tuple[dict, Path]:
    """race.json of a stored race (or its metrics store document) and the Rally home it was found in (the pack's first)."""
    for h in _homes(home):
        f = rally_paths.race_json(race_id, h)
        if f.is_file():
            return _read_race(f), h
        store = metrics_store.datastore(h)
        if store:
            found = metrics_store.races(store, race_id)
            if found:
                return found[0], h
    raise IngestlabError(f"no race {race_id} under {' or '.join(str(races_dir(h)) for h in _homes(home))}")


def load(race_id: str, home: Path | None = None, track_path: Path | None = None) -> RaceResult:
    race, found_in = load_race(race_id, home)
    return of(race, found_in, track_path)


def of(race: dict, home: Path | None = None, track_path: Path | None = None) -> RaceResult:
    """The result value of a stored race.json; ``track_path`` renders the track it ran (when known)."""
    track = TrackInfo(Path(track_path).resolve(), dict(race.get("track-params", {}) or {})) if track_path else None
    stats = read_runner_stats(rally_paths.runner_stats_file(race["race-id"], home)) if race.get("race-id") and home else []
    footprint = dict(race.get(FOOTPRINT_KEY) or {})
    if EMULATION_KEY in race:
        footprint["emulation"] = race[EMULATION_KEY]
    return RaceResult(race=race, runner_stats=stats, machine=machine.describe(), track=track, rally_home=home, footprint=footprint)


def races_with_tags(tags: dict, rally_home: Path | None = None) -> list[dict]:
    """Every stored race (race.json, or the metrics store's) whose user tags include ``tags``, oldest first."""
    store = metrics_store.datastore(rally_home) if rally_home else None
    root = races_dir(rally_home)
    candidates = metrics_store.races(store) if store else [_read_race(f) for f in (root.glob("*/race.json") if root.is_dir() else [])]
    found = [
        race for race in candidates if all(str((race.get("user-tags") or {}).get(k)).lower() == str(v).lower() for k, v in tags.items())
    ]
    return sorted(found, key=lambda r: r["race-timestamp"])


def latest_race(tags: dict, rally_home: Path | None = None) -> dict | None:
    """The newest stored race whose user tags include ``tags``."""
    races = races_with_tags(tags, rally_home)
    return races[-1] if races else None
