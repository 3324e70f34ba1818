"""A sweep's grid, read from ``--grid key=v1,v2`` arguments and checked against the track before any race: track
parameters the track reads, cluster keys (``version``, ``nodes``, ``heap``) and hardware keys (``cpus``, ``memory``,
``disk``, ``link``: :mod:`ingestlab.hosts.hardware`). A cell is one combination, written ``key=value;key=value``.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass

from ingestlab.cluster.lifecycle import validate_heap
from ingestlab.cluster.versions import resolve
from ingestlab.errors import IngestlabError
from ingestlab.hosts import hardware
from ingestlab.rally import command
from ingestlab.rally.trackinfo import TrackInfo

HARDWARE_KEYS = ("cpus", "memory", "disk", "link")
CLUSTER_KEYS = ("version", "nodes", "heap", *HARDWARE_KEYS)
ALIASES = {"replicas": "number_of_replicas"}


def split_values(text: str) -> list[str]:
    """``500,1000`` → two values; commas inside brackets or quotes stay (``[1,2],[3]`` → two lists)."""
    values, depth, quote, current = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            values.append(current)
            current = ""
            continue
        current += ch
    values.append(current)
    return [v.strip() for v in values if v.strip()]


def parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


@dataclass(frozen=True)
class Grid:
    params: dict  # track param → values
    cluster: dict  # cluster key → values

    @property
    def keys(self) -> list[str]:
        return [*self.cluster, *self.params]

    def cells(self) -> list[dict]:
        keys = self.keys
        values = [self.cluster.get(k) or self.params[k] for k in keys]
        return [dict(zip(keys, combo)) for combo in itertools.product(*values)] if keys else [{}]


def show(value) -> str:
    """A value as a cell id shows it: lists joined by '+', so the id holds no ',' or ':'."""
    if isinstance(value, list):
        return "[" + "+".join(show(v) for v in value) + "]"
    if isinstance(value, bool):
        return str(value).lower()
    return command.tag_value(value)


def cell_id(cell: dict) -> str:
    return ";".join(f"{k}={show(v)}" for k, v in cell.items()) or "defaults"


def parse(items: list[str] | None) -> dict:
    grid: dict = {}
    for item in items or []:
        if "=" not in item:
            raise IngestlabError(f"--grid {item!r} must look like key=value1,value2")
        key, _, values = item.partition("=")
        key = ALIASES.get(key.strip(), key.strip())
        parsed = [parse_value(v) for v in split_values(values)]
        if not parsed:
            raise IngestlabError(f"--grid {key} has no values")
        if key in grid:
            raise IngestlabError(f"--grid {key} is given twice")
        grid[key] = parsed
    return grid


def check(track: TrackInfo, grid: dict, fixed: dict, challenge: str | None, provisioned: bool) -> Grid:
    """The grid, once every key and value fits the track (or the pack's provisioning), and the challenge exists."""
    track.challenge(challenge)
    cluster = {k: v for k, v in grid.items() if k in CLUSTER_KEYS}
    params = {k: v for k, v in grid.items() if k not in CLUSTER_KEYS}
    if cluster and not provisioned:
        raise IngestlabError(f"--grid {', '.join(cluster)} chooses clusters the pack provisions; drop --target-hosts to use them")
    for v in cluster.get("version", []):
        resolve(str(v))
    for v in cluster.get("heap", []):
        validate_heap(str(v))
    for v in cluster.get("nodes", []):
        if not isinstance(v, int) or v < 1:
            raise IngestlabError(f"--grid nodes takes whole numbers of nodes, got {v!r}")

    for v in cluster.get("cpus", []):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise IngestlabError(f"--grid cpus takes numbers of cores, got {v!r}")
        hardware.from_options(cpus=float(v))
    for key, parse in (("memory", hardware.parse_size), ("disk", hardware.Disk.parse), ("link", hardware.parse_rate)):
        for v in cluster.get(key, []):
            parse(str(v))
    for key, values in params.items():
        if key not in track.defaults:
            raise IngestlabError(
                f"--grid {key}: track {track.name} never reads a parameter {key!r}; it reads: {', '.join(sorted(track.defaults))}"
            )
        for value in values:
            track.check({key: value})
    track.check(fixed, unknown=True)
    for cell in Grid(params, {}).cells():  # every combination renders
        track.with_params({**fixed, **cell}).rendered
    return Grid(params, {k: [x if k in ("nodes", "cpus") else str(x) for x in v] for k, v in cluster.items()})
