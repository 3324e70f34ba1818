"""Per-call figures that Rally's race.json does not keep, as JSON lines in the file ``INGESTLAB_RUNNER_STATS`` names
(``ingestlab race`` sets it; with plain esrally nothing is written).
"""

from __future__ import annotations

import os

import orjson

VARIABLE = "INGESTLAB_RUNNER_STATS"


_open_files: dict = {}  # path -> file descriptor, kept open per worker process: a record costs one write()


def record(stats: dict) -> None:
    path = os.environ.get(VARIABLE)
    if not path:
        return
    fd = _open_files.get(path)
    if fd is None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = _open_files[path] = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, orjson.dumps(stats) + b"\n")  # one O_APPEND write per line: whole lines even with several workers


def read(path) -> list[dict]:
    try:
        with open(path, "rb") as f:
            return [orjson.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []
