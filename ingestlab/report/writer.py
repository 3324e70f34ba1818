"""The one results writer: ``report.md``, a self-contained ``report.html`` with the charts, and
``results.json`` with the figures behind them, in one directory per race (or run of races)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from ingestlab import paths
from ingestlab.rally.results import RaceResult
from ingestlab.report import html


def write(out: Path, title: str, markdown: str, charts: list, data: dict) -> Path:
    """The report in ``out``: Markdown, HTML with the charts inside, each chart also as ``chart-N.png``, and the data."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("chart-*.png"):
        stale.unlink()
    for i, (_, png) in enumerate(charts, 1):
        (out / f"chart-{i}.png").write_bytes(png)
    (out / "report.md").write_text(markdown)
    (out / "report.html").write_text(html.page(title, markdown, charts))
    kept = out / "results.json"
    if "command" in data and not data["command"] and kept.is_file():  # a report written again keeps the command that raced it
        data = {**data, "command": json.loads(kept.read_text()).get("command")}
    kept.write_text(json.dumps(data, indent=2, default=str))
    return out


def command_line(words: list[str] | None = None, program: str = "ingestlab") -> str:
    """The command line (``program``, ``words`` or this process's), client options left out: they may hold credentials."""
    out, skip = shlex.split(program), False
    for w in sys.argv[1:] if words is None else words:
        if not skip and w != "--client-options" and not w.startswith("--client-options="):
            out.append(w)
        skip = w == "--client-options" and not skip  # the next word is its value
    return shlex.join(out)


def race_dir(name: str, result: RaceResult) -> Path:
    return paths.results_dir() / name / result.race_id


def write_race(name: str, result: RaceResult, report, extra: dict | None = None) -> Path:
    """A race's report under ``results/<name>/<race id>/``; ``results.json`` holds the race, its effective
    parameters, the machine, and ``extra`` (e.g. the load side measured alone)."""
    return write(race_dir(name, result), report.title, report.markdown, report.charts, {**result.to_json(), **(extra or {})})
