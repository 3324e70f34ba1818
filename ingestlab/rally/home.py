"""The pack's own Rally home (``RALLY_HOME``), kept apart from the user's ``~/.rally``, and where Rally
keeps what a race leaves: race.json, the pack's runner stats beside it, and Rally's log."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ingestlab import paths

RALLY_INI = """[meta]
config.version = 17

[system]
env.name = local

[node]
root.dir = ${CONFIG_DIR}/benchmarks
src.root.dir = ${CONFIG_DIR}/benchmarks/src

[benchmarks]
local.dataset.cache = ${CONFIG_DIR}/benchmarks/data

[reporting]
datastore.type = in-memory

[distributions]
release.cache = true
"""
RUNNER_STATS_FILE = "ingestlab-runner-stats.jsonl"
EMULATION_FILE = "ingestlab-emulation.json"
FOOTPRINT_FILE = "ingestlab-footprint.json"  # what the race cost: duration, peak RSS of Rally's processes, disk
SAMPLES_FILE = "ingestlab-samples.json"  # each task's throughput samples, as Rally's driver held them (race.json keeps only their summary)
LATENCY_FILE = "ingestlab-latency-samples.json"  # each task's measured latency samples (ms), as Rally took them


def ensure_rally_home(home: Path | None = None) -> Path:
    """A Rally home with a minimal offline configuration (written once)."""
    home = home or paths.rally_home()
    ini = home / ".rally" / "rally.ini"
    if not ini.is_file():
        ini.parent.mkdir(parents=True, exist_ok=True)
        tmp = ini.with_name(f"rally.ini.{os.getpid()}.tmp")  # whole, also to another command reading it at that moment
        tmp.write_text(RALLY_INI)
        os.replace(tmp, ini)
    return home


def user_rally_home() -> Path:
    """Where plain ``esrally`` keeps its races for this user: ``$RALLY_HOME`` or the home directory."""
    return Path(os.environ.get("RALLY_HOME") or Path.home())


def races_dir(home: Path | None = None) -> Path:
    return (home or paths.rally_home()) / ".rally" / "benchmarks" / "races"


def race_json(race_id: str, home: Path | None = None) -> Path:
    return races_dir(home) / race_id / "race.json"


def runner_stats_file(race_id: str, home: Path | None = None) -> Path:
    return race_json(race_id, home).with_name(RUNNER_STATS_FILE)


def emulation_file(race_id: str, home: Path | None = None) -> Path:
    """The fidelity monitor's report of a race on emulated hardware (see ingestlab.hosts.fidelity)."""
    return race_json(race_id, home).with_name(EMULATION_FILE)


def samples_file(race_id: str, home: Path | None = None) -> Path:
    return race_json(race_id, home).with_name(SAMPLES_FILE)


def latency_file(race_id: str, home: Path | None = None) -> Path:
    return race_json(race_id, home).with_name(LATENCY_FILE)


def data_cache(home: Path | None = None) -> Path:
    """Rally's ``local.dataset.cache`` in the pack's Rally home (see RALLY_INI)."""
    return (home or paths.rally_home()) / ".rally" / "benchmarks" / "data"


def corpus_dirs(track: Path, corpus: str, home: Path | None = None) -> list[str]:
    """Where Rally looks for a corpus file of a track raced with ``--track-path``: its folder, then the data cache."""
    return [str(track), str(data_cache(home) / corpus)]


def rally_log(home: Path | None = None) -> Path:
    return (home or paths.rally_home()) / ".rally" / "logs" / "rally.log"


def log_size(home: Path | None = None) -> int:
    """Where Rally's log ends now: a failed race's errors are read from there on."""
    try:
        return rally_log(home).stat().st_size
    except OSError:
        return 0


EXCEPTION_LINE = re.compile(r"^[A-Za-z_]\w*(?:\.\w+)+: \S")  # "thespian.actors.InvalidActorAddress: ActorAddr-..."


def read_from(path: Path, offset: int) -> str:
    """What a log file gained after byte ``offset`` ("" without the file)."""
    try:
        with open(path, "rb") as log:
            log.seek(offset)
            return log.read().decode("utf-8", "replace")
    except OSError:
        return ""


def log_since(since: int, home: Path | None = None) -> str:
    """What Rally's log gained after offset ``since`` ("" without a log)."""
    return read_from(rally_log(home), since)


def errors_logged(since: int, home: Path | None = None, most: int = 4, text: str | None = None) -> list[str]:
    """The exceptions Rally's log gained after offset ``since`` (or in ``text``), each once and at most ``most``: any
    Rally's on the same home, not only the race's own (:mod:`ingestlab.rally.failure` tells those apart)."""
    found = []
    for line in (log_since(since, home) if text is None else text).splitlines():
        if EXCEPTION_LINE.match(line) and line not in found:
            found.append(line[:400])
    return found[:most]


def footprint_file(race_id: str, home: Path | None = None) -> Path:
    return race_json(race_id, home).with_name(FOOTPRINT_FILE)
