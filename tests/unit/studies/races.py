"""Race results of the study tests: real race.json fixtures of test-mode races, each with its track rendered."""

import json
from pathlib import Path

from ingestlab.paths import TRACKS_DIR
from ingestlab.rally import trackinfo
from ingestlab.rally.results import RaceResult

FIXTURES = Path(__file__).parents[2] / "fixtures"


def race(study: str) -> dict:
    return json.loads((FIXTURES / f"{study}-test-mode-race.json").read_text())


def result(
    study: str, race_doc: dict | None = None, stats: list | None = None, machine: str = "test machine", challenge: str | None = None
) -> RaceResult:
    doc = race_doc if race_doc is not None else race(study)
    if challenge:
        doc = {**doc, "challenge": challenge}
    return RaceResult(
        race=doc,
        runner_stats=stats or [],
        track=trackinfo.load(TRACKS_DIR / study, doc.get("track-params") or {}),
        machine={"cpu": machine, "cores": 2, "memory_gib": 23.5, "os": "Linux", "python": "3.11"},
    )
