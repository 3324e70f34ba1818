"""The ledger: every measured run the docs quote, one JSON file per run in the repository's ``ledger/``, rendered into
the docs from there (`make docs`). An entry holds the run's id, date, commit, machine, command, versions, the
conditions a reader needs and its named figures with units. It is the maintainers' record of the pack's own
measurements, not part of the installed pack: ``python -m devtools.ledger record KIND ID`` makes a command's entry from
what the command stored (:mod:`devtools.ledger.runs`), ``add`` records a figure measured outside the pack, and the
pack's self-measurements (:mod:`devtools.bench`) write their own, unless ``INGESTLAB_LEDGER=off``."""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from ingestlab import machine, paths
from ingestlab.errors import IngestlabError

VARIABLE = "INGESTLAB_LEDGER"  # off: write no entry; a directory: write entries there


@dataclass(frozen=True)
class Figure:
    value: float | None  # None: not measured (shown as missing, never as 0)
    unit: str = ""
    label: str = ""
    published: float | None = None  # the article's own figure for the same thing, where there is one


@dataclass
class Entry:
    run: str
    kind: str
    date: str
    commit: str | None
    machine: dict
    command: str
    figures: dict[str, Figure]
    versions: dict = field(default_factory=dict)
    conditions: str = ""
    source: str = ""  # where the figures were read: the run's report, or the doc they were transcribed from

    @property
    def short(self) -> str:
        """How the docs name the run: a race id's first 8 characters, a stamp as it is."""
        return self.run[:8] if re.fullmatch(r"[0-9a-f]{8}-[0-9a-f-]{27}", self.run) else self.run

    def figure(self, name: str) -> Figure:
        try:
            return self.figures[name]
        except KeyError:
            raise IngestlabError(f"ledger run {self.run} has no figure {name!r} (it has {', '.join(self.figures)})") from None

    def to_json(self) -> dict:
        data = {k: v for k, v in self.__dict__.items() if k != "figures"}
        data["figures"] = {k: {a: b for a, b in f.__dict__.items() if b not in (None, "") or a == "value"} for k, f in self.figures.items()}
        return data

    @classmethod
    def from_json(cls, data: dict) -> "Entry":
        figures = {k: Figure(**v) for k, v in data.get("figures", {}).items()}
        return cls(**{**data, "figures": figures})


def directory() -> Path:
    return paths.REPO_ROOT / "ledger"


def load_all(where: Path | None = None) -> dict[str, Entry]:
    """Every entry, by run id and by its short form."""
    entries: dict[str, Entry] = {}
    for f in sorted((where or directory()).glob("*.json")):
        try:
            entry = Entry.from_json(json.loads(f.read_text()))
        except (ValueError, TypeError) as e:
            raise IngestlabError(f"{f}: not a ledger entry ({e})") from None
        for key in {entry.run, entry.short}:
            if key in entries and entries[key].run != entry.run:
                raise IngestlabError(f"{f}: run {key} is in the ledger twice")
            entries[key] = entry
    return entries


def find(run: str, entries: dict[str, Entry] | None = None) -> Entry:
    entries = load_all() if entries is None else entries
    try:
        return entries[run]
    except KeyError:
        raise IngestlabError(f"no run {run!r} in the ledger ({directory()})") from None


def commit() -> str | None:
    """The checkout's commit (``+`` when it has changes beyond it), or None outside a checkout."""
    git = ["git", "-C", str(paths.REPO_ROOT)]
    try:
        head = subprocess.run([*git, "rev-parse", "--short=7", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")


def target() -> Path | None:
    """Where an entry goes: ``INGESTLAB_LEDGER`` (a directory, or ``off``), else a checkout's ``ledger/``."""
    configured = os.environ.get(VARIABLE)
    if configured:
        return None if configured.lower() == "off" else Path(configured)
    return directory() if (paths.REPO_ROOT / ".git").exists() else None


def record(
    run: str,
    kind: str,
    command: str,
    figures: dict[str, Figure],
    versions: dict | None = None,
    conditions: str = "",
    source: str = "",
    where: Path | None = None,
    date: str | None = None,
    info: dict | None = None,
) -> Path | None:
    """Append one entry (None: no ledger here); its file is named after the date, kind and run."""
    where = where or target()
    if where is None:
        return None
    if not figures:
        raise IngestlabError(f"ledger entry {run}: no figures")
    now = date or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    entry = Entry(
        run=run,
        kind=kind,
        date=now,
        commit=commit(),
        machine=info or machine.describe(),
        command=command,
        figures=figures,
        versions=versions or {},
        conditions=conditions,
        source=source,
    )
    where.mkdir(parents=True, exist_ok=True)
    out, n = _file(where, now, kind, entry), 1
    while out.is_file() and json.loads(out.read_text()).get("command") != command:  # another run ended the same second: never overwritten
        n += 1
        entry = replace(entry, run=f"{run}-{n}")
        out = _file(where, now, kind, entry)
    out.write_text(json.dumps(entry.to_json(), indent=2, ensure_ascii=False) + "\n")
    return out


def _file(where: Path, now: str, kind: str, entry: "Entry") -> Path:
    return where / f"{now[:10]}-{re.sub(r'[^a-z0-9]+', '-', kind.lower()).strip('-')}-{entry.short}.json"
