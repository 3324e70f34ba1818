"""The nightly history: an SQLite file with one row per (night, setup, study, task), Rally's median throughput or a
headline ratio (task ``headline:<key>``), the annotations people add to nights, and the change points seen; in a table
of their own (``COSTS``), each task's costs per document, shown beside its rate and never judged."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

from ingestlab import compare, paths
from ingestlab.verdicts import stats

NIGHTS_COMPARED = 7  # tonight is judged against the same setup's previous nights, at most this many
NIGHTS_NEEDED = 3  # fewer previous nights than this: tonight's figures are shown, not judged
MIN_DROP = 0.05  # the smallest drop called a regression, however sure (``--margin`` sets another)
DROP_LEVEL = 0.05  # family-wise, over one study's tasks of one night (Holm)
HEADLINE = "headline:"
COSTS = "costs"  # the table of cost series, as ``figures``: none of previous(), regressions() or change points reads it
COST = " node CPU µs/doc"  # a task's node CPU per document indexed: the series "<task> node CPU µs/doc" in COSTS


def history_path() -> Path:
    return paths.results_dir() / "nightly" / "history.sqlite"


def open_history(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE IF NOT EXISTS figures (night TEXT, study TEXT, task TEXT, value REAL, race_id TEXT, es_version TEXT)")
    if "setup" not in [row[1] for row in db.execute("PRAGMA table_info(figures)")]:
        db.execute("ALTER TABLE figures ADD COLUMN setup TEXT NOT NULL DEFAULT 'default'")
    db.execute(
        f"CREATE TABLE IF NOT EXISTS {COSTS} (night TEXT, study TEXT, task TEXT, value REAL, race_id TEXT, es_version TEXT, setup TEXT)"
    )
    db.execute("CREATE TABLE IF NOT EXISTS annotations (night TEXT, text TEXT, setup TEXT)")
    db.execute("CREATE TABLE IF NOT EXISTS node_options (night TEXT, setup TEXT, options TEXT, PRIMARY KEY (night, setup))")
    db.execute(
        "CREATE TABLE IF NOT EXISTS changepoints (setup TEXT, study TEXT, task TEXT, night TEXT, change REAL, pvalue REAL, "
        "first_seen TEXT, PRIMARY KEY (setup, study, task, night))"
    )
    return db


SAME_WITHIN = 2  # nights: a change point found within this many nights of a known one is that one, moved


def record_change_points(
    db: sqlite3.Connection,
    setup: str,
    study: str,
    task: str,
    found: list[tuple[str, float, float]],
    tonight: str,
    nights: list[str] | None = None,
) -> list[tuple[str, float, float]]:
    """Keep the change points (night where the new level starts, change, p-value) found tonight and return those new
    tonight; one within ``SAME_WITHIN`` nights (of ``nights``, in order) of a known one, in the same direction, is that one."""
    nights = nights or []
    position = {n: i for i, n in enumerate(nights)}
    known = list(db.execute("SELECT night, change FROM changepoints WHERE setup = ? AND study = ? AND task = ?", (setup, study, task)))
    new = []
    for night, change, pvalue in found:
        seen = any(
            k == night
            or (k in position and night in position and abs(position[k] - position[night]) <= SAME_WITHIN and (c > 0) == (change > 0))
            for k, c in known
        )
        if not seen:
            db.execute("INSERT INTO changepoints VALUES (?, ?, ?, ?, ?, ?, ?)", (setup, study, task, night, change, pvalue, tonight))
            new.append((night, change, pvalue))
    return new


def annotate(db: sqlite3.Connection, night: str, text: str, setup: str | None = None) -> None:
    db.execute("INSERT INTO annotations VALUES (?, ?, ?)", (night, text, setup))
    db.commit()


def annotations(db: sqlite3.Connection, *setups: str | None) -> list[tuple[str, str]]:
    """The notes for every setup and those of ``setups``, oldest first, each once."""
    marks = ", ".join("?" * len(setups)) or "NULL"
    query = f"SELECT DISTINCT night, text FROM annotations WHERE setup IS NULL OR setup IN ({marks}) ORDER BY night"
    return list(db.execute(query, setups))


def last_version(db: sqlite3.Connection, study: str, setup: str, before: str) -> str | None:
    """The version the newest night before ``before`` that knew one stored for ``setup``'s figures of ``study`` (None: no
    such night)."""
    row = db.execute(
        "SELECT es_version FROM figures WHERE study = ? AND setup = ? AND night < ? AND es_version IS NOT NULL ORDER BY night DESC LIMIT 1",
        (study, setup, before),
    ).fetchone()
    return row[0] if row else None


def node_options(db: sqlite3.Connection, setup: str, study: str, night: str, options: str) -> tuple[list[str], int, int] | None:
    """Keep the extra JVM options ``setup``'s nodes ran with tonight (``INGESTLAB_NODE_JAVA_OPTS``, as the races' tag keeps
    them), with a note on its charts the night they change. While some of the nights that tonight's ``study`` is judged
    against (:func:`judged_nights`) ran with other options: (those options, how many such nights, how many kept any)."""
    db.execute("INSERT OR REPLACE INTO node_options VALUES (?, ?, ?)", (night, setup, options))
    db.commit()
    judged = judged_nights(db, study, setup, night)
    kept = dict(db.execute("SELECT night, options FROM node_options WHERE setup = ?", (setup,)))
    before = [kept[n] for n in judged if n in kept]  # newest first; a night whose options are not known is left out
    other = [theirs for theirs in before if theirs != options]
    if not other:
        return None
    text = f"extra JVM options of the nodes: {before[0]} → {options}"
    if before[0] != options and (night, text) not in annotations(db, setup):
        annotate(db, night, text, setup)
    return sorted(set(other)), len(other), len(before)


def judged_nights(db: sqlite3.Connection, study: str, setup: str, before: str) -> list[str]:
    """The nights before ``before`` that ``setup``'s ``study`` is judged against, newest first (at most NIGHTS_COMPARED)."""
    query = "SELECT DISTINCT night FROM figures WHERE study = ? AND setup = ? AND night < ? ORDER BY night DESC LIMIT ?"
    return [n for (n,) in db.execute(query, (study, setup, before, NIGHTS_COMPARED))]


def previous(db: sqlite3.Connection, study: str, before: str, setup: str = "default") -> dict[str, compare.Aggregate]:
    per_task: dict[str, list[float]] = {}
    for night in judged_nights(db, study, setup, before):
        for task, value in db.execute("SELECT task, value FROM figures WHERE study = ? AND setup = ? AND night = ?", (study, setup, night)):
            per_task.setdefault(task, []).append(value)
    return {t: compare.Aggregate.of(v) for t, v in per_task.items()}


def series(db: sqlite3.Connection, study: str, setup: str = "default", table: str = "figures") -> dict[str, list[tuple[str, float]]]:
    """task → [(night, value), …], oldest first; ``table=COSTS``: the cost series."""
    out: dict[str, list] = {}
    for night, task, value in db.execute(
        f"SELECT night, task, value FROM {table} WHERE study = ? AND setup = ? ORDER BY night", (study, setup)
    ):
        out.setdefault(task, []).append((night, value))
    return out


def regressions(db, study: str, night: str, figures: dict[str, float], margin: float | None, setup: str = "default") -> list[dict]:
    """Tonight's figure of every task the previous nights had, judged against those nights: a **regression** is below
    their one-sided prediction bound (:func:`stats.below_history`), after Holm over the night's tasks at ``DROP_LEVEL``,
    and a drop of at least ``margin`` (``MIN_DROP`` unless given). A row says why a task is not judged, or ``missing``."""
    smallest = MIN_DROP if margin is None else margin
    out = []
    for task, past in previous(db, study, night, setup).items():
        if task.startswith(HEADLINE):  # a ratio between tasks: drawn as a trend, not judged
            continue
        centre = stats.geometric_mean(past.values)
        centre = past.median if math.isnan(centre) else centre  # no positive figure to take logs of
        row = {
            "study": study,
            "setup": setup,
            "task": task,
            "tonight": figures.get(task),
            "history": past,
            "centre": centre,
            "change": None,
            "margin": smallest,
            "p": None,
            "bound": None,
            "why": None,
            "regression": False,
            "missing": task not in figures,
        }
        out.append(row)
        if row["missing"]:
            continue
        test = stats.below_history(figures[task], past.values, DROP_LEVEL)
        row["change"] = figures[task] / centre - 1.0
        if test is None:
            row["why"] = (
                f"{past.n} previous night{'s' if past.n != 1 else ''}: {NIGHTS_NEEDED} needed"
                if past.n < NIGHTS_NEEDED
                else "the previous nights show no spread"
            )
        else:
            row["p"], row["bound"] = test.p, test.low
    judged = [r for r in out if r["p"] is not None]
    for row, called in zip(judged, called_drops([(r["change"], r["p"]) for r in judged], smallest)):
        row["regression"] = called
    return out


def called_drops(tests: list[tuple[float, float]], smallest: float = MIN_DROP) -> list[bool]:
    """Which of one night's judged tasks (each its change and one-sided p against its previous nights) regressed: Holm
    over them at ``DROP_LEVEL``, and a drop of at least ``smallest``."""
    rejected = stats.holm([p for _, p in tests], DROP_LEVEL)
    return [bool(r) and change <= -smallest for (change, _), r in zip(tests, rejected)]


def store(db, night: str, setup: str, study: str, figures: dict[str, float], race_id: str, es_version: str | None, table="figures") -> None:
    db.executemany(
        f"INSERT INTO {table} (night, study, task, value, race_id, es_version, setup) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(night, study, t, v, race_id, es_version, setup) for t, v in figures.items()],
    )
