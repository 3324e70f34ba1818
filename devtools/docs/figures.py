"""Ledger figures in the docs (:mod:`devtools.ledger`): a figure, the article's figure beside it, and a run's
provenance (id, date, commit, machine), each as a block that ``make docs`` renders from the ledger.

    <!-- ingestlab:figure run=86351883 name=bulk1000-over-single -->60.7×<!-- /ingestlab:figure -->
    <!-- ingestlab:published run=86351883 name=bulk1000-over-single -->24.3×<!-- /ingestlab:published -->
    <!-- ingestlab:ratio run=86351883 of=NAME over=NAME -->2.1×<!-- /ingestlab:ratio -->
    <!-- ingestlab:ratio run=RUN of=NAME over-run=OTHER over=NAME -->2.0×<!-- /ingestlab:ratio -->   (across two runs)
    <!-- ingestlab:run run=86351883 -->race 86351883, 2026-11-26, commit c13e314, AMD EPYC 7B13 (2 cores, 23.5 GiB)<!-- /ingestlab:run -->

``digits=N`` sets the decimals (default: one below 100, none from 100 on); ``bare=yes`` leaves the unit out (a table
whose header names it); a unit ``s`` of a minute or more reads ``M min S s``; a figure the run did not measure reads ``—``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from devtools import ledger
from ingestlab.errors import IngestlabError


@lru_cache(maxsize=1)
def _entries() -> dict:
    return ledger.load_all()


def reload() -> None:
    _entries.cache_clear()


def entry_of(args: dict) -> ledger.Entry:
    if "run" not in args:
        raise IngestlabError("a ledger block needs run=<id>")
    return ledger.find(args["run"], _entries())


def number(value: float | None, unit: str = "", digits: str | None = None) -> str:
    if value is None:
        return "—"
    if unit == "s" and value >= 60 and digits is None:
        minutes, seconds = divmod(round(value), 60)
        return f"{minutes} min {seconds} s"
    places = int(digits) if digits is not None else (1 if abs(value) < 100 else 0)
    text = f"{value:,.{places}f}"
    if unit in ("×", "%"):
        return f"{text}{'' if unit == '×' else ' '}{unit}"
    return f"{text} {unit}" if unit else text


def _unit(args: dict, f) -> str:
    return "" if args.get("bare") == "yes" else f.unit  # bare=yes: the number alone (a table whose header names the unit)


def figure(args: dict) -> str:
    f = entry_of(args).figure(args.get("name", ""))
    return number(f.value, _unit(args, f), args.get("digits"))


def published(args: dict) -> str:
    f = entry_of(args).figure(args.get("name", ""))
    return number(f.published, _unit(args, f), args.get("digits"))


def ratio(args: dict) -> str:
    """``of`` ÷ ``over``, two figures of one run, or ``over`` of the run ``over-run`` (``published=yes``: of their
    published values), as a ratio: a figure the docs derive from the ledger instead of typing it."""
    entry = entry_of(args)
    other = ledger.find(args["over-run"], _entries()) if "over-run" in args else entry
    a, b = entry.figure(args.get("of", "")), other.figure(args.get("over", ""))
    top, bottom = (a.published, b.published) if args.get("published") == "yes" else (a.value, b.value)
    return number(top / bottom if top is not None and bottom else None, "×", args.get("digits"))


def run(args: dict) -> str:
    entry = entry_of(args)
    m = entry.machine or {}
    where = f"{m.get('cpu', 'unknown CPU')}, {m.get('cores')} cores, {m.get('memory_gib')} GiB"
    what = "race" if re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f-]{27})?", entry.run) else "run"
    return f"{what} {entry.short} ({entry.date[:10]}, commit {entry.commit or 'unknown'}, {where})"


RENDERERS = {"figure": figure, "published": published, "ratio": ratio, "run": run}
