"""Read what Rally stored about a race (race.json) into per-task figures."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ingestlab import paths


@dataclass(frozen=True)
class TaskResult:
    task: str
    throughput_max: float
    throughput_median: float
    throughput_min: float
    service_time_median_ms: float | None
    error_rate: float
    service_time_ms: dict = field(default_factory=dict)  # "p50", "p90", "p99", "p100", "mean" as Rally stored them

    def service_time(self, name: str) -> float | None:
        return self.service_time_ms.get(name)


def races_dir(rally_home: Path | None = None) -> Path:
    return (rally_home or paths.rally_home()) / ".rally" / "benchmarks" / "races"


def race_json(race_id: str, rally_home: Path | None = None) -> Path:
    return races_dir(rally_home) / race_id / "race.json"


def load_race(race_id: str, rally_home: Path | None = None) -> dict:
    path = race_json(race_id, rally_home)
    if not path.is_file():
        raise FileNotFoundError(f"no race {race_id} under {races_dir(rally_home)}")
    return json.loads(path.read_text())


def races_with_tags(tags: dict, rally_home: Path | None = None) -> list[dict]:
    """Every stored race whose user tags include ``tags``, oldest first."""
    root = races_dir(rally_home)
    found = []
    for f in root.glob("*/race.json") if root.is_dir() else []:
        race = json.loads(f.read_text())
        if all(str(race.get("user-tags", {}).get(k)).lower() == str(v).lower() for k, v in tags.items()):
            found.append(race)
    return sorted(found, key=lambda r: r["race-timestamp"])


def latest_race(tags: dict, rally_home: Path | None = None) -> dict | None:
    """The newest stored race whose user tags include ``tags``."""
    races = races_with_tags(tags, rally_home)
    return races[-1] if races else None


def _service_times(stored: dict) -> dict:
    """Rally writes percentiles as keys like ``50_0`` and ``99_9``; only those its sample count allows."""
    out = {}
    for key, value in stored.items():
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
            service_time_ms=_service_times(st),
        )
    return out
