"""A sweep's state, ``results/sweeps/<id>/state.json``: the track, grid, options and every finished run, done
or failed, with its figures. Written after every race (atomically), so a sweep stopped part way continues
from it; :func:`planned` and :func:`finished` say what is left."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path

from ingestlab import paths
from ingestlab.errors import IngestlabError
from ingestlab.rally import trackinfo
from ingestlab.sweep.grid import Grid, check


def sweeps_dir() -> Path:
    return paths.results_dir() / "sweeps"


def save(state: dict) -> None:
    out = sweeps_dir() / state["id"]
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / "state.json.tmp"
    tmp.write_text(json.dumps(state, indent=2, default=str))
    os.replace(tmp, out / "state.json")


def load(sweep_id: str | None) -> dict:
    root = sweeps_dir()
    if sweep_id is None:
        found = sorted(root.glob("*/state.json"), key=lambda f: f.stat().st_mtime) if root.is_dir() else []
        if not found:
            raise IngestlabError(f"no sweep to resume under {root}")
        return json.loads(found[-1].read_text())
    f = root / sweep_id / "state.json"
    if not f.is_file():
        raise IngestlabError(f"no sweep {sweep_id!r} under {root}")
    return json.loads(f.read_text())


def new(
    track_path: Path,
    grid: dict,
    fixed: dict,
    challenge: str | None,
    repeat: int,
    test_mode: bool,
    provisioned: bool,
    cluster: dict,
    on_error: str,
    study: str | None,
) -> dict:
    """A new sweep's state, once its track, grid, parameters and challenge are checked; nothing has raced yet."""
    if repeat < 1:
        raise IngestlabError(f"--repeat takes 1 or more, got {repeat}")
    track = trackinfo.load(track_path)
    checked = check(track, grid, fixed, challenge, provisioned)
    state = {
        "id": f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:4]}",
        "track": str(track.path),
        "study": study,
        "grid": checked.params,
        "cluster_grid": checked.cluster,
        "fixed": fixed,
        "challenge": challenge or track.default_challenge,
        "repeat": repeat,
        "test_mode": test_mode,
        "cluster": cluster,
        "on_error": on_error,
        "runs": [],
        "started": time.time(),
    }
    save(state)
    return state


def planned(state: dict) -> list[tuple[dict, int]]:
    cells = Grid(state["grid"], state["cluster_grid"]).cells()
    return [(cell, rep) for cell in cells for rep in range(1, state["repeat"] + 1)]


def finished(state: dict) -> set[tuple[str, int]]:
    return {(r["cell_id"], r["repetition"]) for r in state["runs"]}
