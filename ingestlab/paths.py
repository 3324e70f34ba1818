"""Where ingestlab keeps its state: everything under ``INGESTLAB_HOME``; when run as root the default lies outside
root's private home, so that Elasticsearch's non-root service user can read and write it."""

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
TRACKS_DIR = REPO_ROOT / "tracks"


def home() -> Path:
    configured = os.environ.get("INGESTLAB_HOME")
    if configured:
        return Path(configured).resolve()
    if os.geteuid() == 0:
        return Path("/var/lib/ingestlab")
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "ingestlab"


def distributions_dir() -> Path:
    return home() / "distributions"


def clusters_dir() -> Path:
    return home() / "clusters"


def rally_home() -> Path:
    """RALLY_HOME of the pack's races: isolated from the user's own ~/.rally."""
    return home() / "rally"


def results_dir() -> Path:
    return Path(os.environ.get("INGESTLAB_RESULTS", str(REPO_ROOT / "results"))).resolve()
