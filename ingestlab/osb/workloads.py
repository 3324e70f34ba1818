"""The studies' tracks as opensearch-benchmark workloads, made from the tracks on every export: a copy of the track
folder and the shared ``challenges/`` with exactly OSB's names changed (``workload.json``/``test_procedures``,
``benchmark.helpers``, ``workload.py``)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from ingestlab import paths

_RENAMES = (
    ('{% import "rally.helpers" as rally with context %}', '{% import "benchmark.helpers" as benchmark with context %}'),
    ("rally.collect(", "benchmark.collect("),
    ('parts="challenges/', 'parts="test_procedures/'),
)
_CHALLENGES_KEY = re.compile(r'^(\s*)"challenges"(\s*:)', re.M)


def workload_json(track_json: str) -> str:
    text = track_json
    for old, new in _RENAMES:
        text = text.replace(old, new)
    return _CHALLENGES_KEY.sub(r'\1"test_procedures"\2', text)


def export(out: Path, tracks: list[str] | None = None) -> Path:
    """Write ``out/workloads/<name>/`` for each track (default: all) and ``out/challenges/``; returns ``out/workloads``."""
    out = Path(out)
    target = out / "workloads"
    if target.exists():
        shutil.rmtree(target)
    shutil.rmtree(out / "challenges", ignore_errors=True)
    shutil.copytree(paths.REPO_ROOT / "challenges", out / "challenges")
    for track in tracks or sorted(p.name for p in paths.TRACKS_DIR.iterdir() if (p / "track.json").is_file()):
        source, dest = paths.TRACKS_DIR / track, target / track
        shutil.copytree(
            source,
            dest,
            ignore=shutil.ignore_patterns(
                "track.json", "track.py", "challenges", "*.offset", ".*.lock", "*-generated-*", "*-[0-9]*.json", "__pycache__"
            ),
        )
        (dest / "workload.json").write_text(workload_json((source / "track.json").read_text()))
        (dest / "workload.py").write_text((source / "track.py").read_text())
        if (source / "challenges").is_dir():
            shutil.copytree(source / "challenges", dest / "test_procedures")
    return target
