"""The studies' tracks as opensearch-benchmark workloads, made from the tracks themselves on every export — one
source of truth, no second copy kept by hand.

OSB reads what Rally reads, under other names: ``workload.json`` with ``test_procedures`` instead of ``track.json``
with ``challenges``, the ``benchmark.helpers`` template module instead of ``rally.helpers``, ``workload.py`` instead of
``track.py`` (the same ``register(registry)``: its registry is Rally's). The export copies a track folder and the
shared fragments beside the tracks (``challenges/``), renaming exactly those, and nothing else.
"""

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
    """Write ``out/workloads/<name>/`` for each track (default: all) and ``out/challenges/`` (the shared fragments, at
    the same relative place as beside the tracks); returns ``out/workloads``."""
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
