"""Per-call figures that Rally's race.json does not keep (client CPU, bytes moved), as JSON lines.

``ingestlab race`` points ``INGESTLAB_RUNNER_STATS`` at a file beside the race's race.json; with plain
esrally the variable is unset and nothing is written.
"""
from __future__ import annotations

import os

import orjson

VARIABLE = "INGESTLAB_RUNNER_STATS"


def record(stats: dict) -> None:
    path = os.environ.get(VARIABLE)
    if not path:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "ab") as f:  # one short append per call: whole lines even with several workers
        f.write(orjson.dumps(stats) + b"\n")


def read(path) -> list[dict]:
    try:
        with open(path, "rb") as f:
            return [orjson.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []
