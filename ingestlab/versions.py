"""The cross-version study: each Elasticsearch (or OpenSearch) version in turn on this machine, the studies raced on it,
and one report of each study's headline ratios and fitted parameters per version beside the published figure. What a
version cannot run is named in its cell (e.g. no ``_reindex`` in an integration-test zip), never left blank or 0."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from ingestlab import machine, paths, racing
from ingestlab.cluster import lifecycle
from ingestlab.cluster.versions import resolve
from ingestlab.errors import IngestlabError
from ingestlab.rally import results
from ingestlab.report import writer
from ingestlab.studies import Study
from ingestlab.studies.base import Headline

SHAPE = {"name": "ingestlab-versions", "http_port": 29260, "transport_port": 29360, "heap": "1g"}


@dataclass
class Cell:
    """One study on one version: its headlines, or why there are none."""

    version: str
    study: str
    race_id: str | None = None
    headlines: list[Headline] = field(default_factory=list)
    error: str | None = None


def run(studies: list[Study], versions: list[str], full: bool = False, test_mode: bool = False, log=print) -> tuple[str, list[Cell]]:
    """Race every study on every version (small sizes unless ``full``); returns the report's Markdown and the cells."""
    stamp = time.strftime("%Y-%m-%dT%H%M%S")
    cells: list[Cell] = []
    started = time.monotonic()
    for i, version in enumerate(versions):
        spec = resolve(version)
        log(f"[ingestlab] versions {stamp}: {spec.label} ({i + 1}/{len(versions)}), {time.monotonic() - started:,.0f} s so far")
        try:
            with lifecycle.running(lifecycle.Shape(version=spec.version, engine=spec.engine, **SHAPE), log=log) as cluster:
                for study in studies:
                    cells.append(_race(study, version, cluster, full, test_mode, stamp, log))
        except IngestlabError as e:  # a version that does not come up is a row that says so
            cells += [
                Cell(version, s.name, error=f"{spec.label} did not start: {str(e).splitlines()[0]}")
                for s in studies
                if not any(c.version == version and c.study == s.name for c in cells)
            ]
    text, out = write(stamp, studies, versions, cells, full, test_mode)
    log(text)
    log(f"[ingestlab] versions report: {out}/report.md and report.html ({time.monotonic() - started:,.0f} s)")
    return text, cells


def write(stamp: str, studies: list[Study], versions: list[str], cells: list[Cell], full: bool, test_mode: bool):
    text = markdown(studies, versions, cells, stamp, full, test_mode)
    out = writer.write(
        paths.results_dir() / "versions" / stamp,
        f"ingestlab: studies across versions and engines {stamp}",
        text,
        charts(studies, versions, cells),
        {
            "versions": versions,
            "studies": [s.name for s in studies],
            "full": full,
            "test_mode": test_mode,
            "cells": [_cell_json(c) for c in cells],
        },
    )
    return text, out


def again(stamp: str, studies_by_name: dict[str, Study], log=print) -> str:
    """The report of an earlier cross-version run written again from its stored races (e.g. after the report changed)."""
    stored = paths.results_dir() / "versions" / stamp / "results.json"
    if not stored.is_file():
        raise IngestlabError(f"no cross-version run {stamp!r} under {stored.parent.parent}")
    data = json.loads(stored.read_text())
    cells = []
    for c in data["cells"]:
        study = studies_by_name[c["study"]]
        if c["race_id"]:
            result = results.load(c["race_id"], track_path=study.track)
            cells.append(Cell(c["version"], c["study"], c["race_id"], study.headlines(result, study.published_figures())))
        else:
            cells.append(Cell(c["version"], c["study"], error=c["error"]))
    names = data.get("studies") or list(dict.fromkeys(c["study"] for c in data["cells"]))
    text, out = write(stamp, [studies_by_name[n] for n in names], data["versions"], cells, data["full"], data["test_mode"])
    log(text)
    log(f"[ingestlab] versions report: {out}/report.md and report.html")
    return text


def _race(study: Study, version: str, cluster, full: bool, test_mode: bool, stamp: str, log) -> Cell:
    small = study.headline_params if study.headline_params is not None else study.small_params
    options = racing.Options(
        challenge=study.headline_challenge,
        params={} if full else dict(small),
        test_mode=test_mode,
        tags={"study": study.name, "versions": stamp, "engine": cluster.engine, "version": cluster.version},
    )
    try:
        result = racing.race(study.track, racing.Target(hosts=cluster.hosts, engine=cluster.engine), options, log=log)
    except IngestlabError as e:
        return Cell(version, study.name, error=str(e).splitlines()[0])
    return Cell(version, study.name, result.race_id, study.headlines(result, study.published_figures()))


def _cell_json(c: Cell) -> dict:
    return {
        "version": c.version,
        "study": c.study,
        "race_id": c.race_id,
        "error": c.error,
        "headlines": [{"key": h.key, "label": h.label, "here": h.here, "published": h.published, "note": h.note} for h in c.headlines],
    }


def _number(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    return f"{value:,.2f}{unit}" if abs(value) < 10 else f"{value:,.1f}{unit}"


def _value(cell: Cell | None, key: str) -> str:
    if cell is None:
        return "not raced"
    if cell.error:
        return f"failed: {cell.error[:80]}"
    h = next((h for h in cell.headlines if h.key == key), None)
    if h is None or h.here is None:
        return h.note if h and h.note else "—"
    return _number(h.here, h.unit)


def label(version: str) -> str:
    """A row's name: the engine, its version and the distribution's flavour (what it is, what the pack added)."""
    spec = resolve(version)
    return f"{spec.label} ({spec.flavor_note})"


def markdown(studies: list[Study], versions: list[str], cells: list[Cell], stamp: str, full: bool, test_mode: bool) -> str:
    by = {(c.version, c.study): c for c in cells}
    small = "small sizes (each study's smallest race that measures its headline)" + (", test mode" if test_mode else "")
    size = "full size" if full else small
    lines = [
        f"# The studies across versions and engines ({stamp})",
        "",
        f"This machine: {machine.one_line()}; one node per version (1 GB heap), {size}. Each version ran alone, "
        "in turn, on the same machine.",
        "",
    ]
    for study in studies:
        published = study.published_figures()
        seen: dict[str, Headline] = {}
        for h in (h for c in cells if c.study == study.name for h in c.headlines):
            seen.setdefault(h.key, h)
        if not seen:
            lines += [f"## {study.name}", "", *(f"- {label(v)}: {_value(by.get((v, study.name)), '')}" for v in versions), ""]
            continue
        lines += [
            f"## {study.name}: {study.title}",
            "",
            "| engine and version (distribution) | " + " | ".join(h.label for h in seen.values()) + " |",
            "|---|" + "---:|" * len(seen),
        ]
        for v in versions:
            lines.append(f"| {label(v)} | " + " | ".join(_value(by.get((v, study.name)), k) for k in seen) + " |")
        if published:
            lines.append(
                f"| published (Elasticsearch {published['elasticsearch']}; fitted figures: the model on the article's own) | "
                + " | ".join(_number(h.published, h.unit) for h in seen.values())
                + " |"
            )
        lines += [
            "",
            "Race ids: "
            + ", ".join(f"{v} {by[(v, study.name)].race_id}" for v in versions if (v, study.name) in by and by[(v, study.name)].race_id),
            "",
        ]
    return "\n".join(lines) + "\n"


def _panels(study: Study, versions: list[str], cells: list[Cell]) -> list:
    by = {(c.version, c.study): c for c in cells}
    published = study.published_figures()
    keys: dict[str, Headline] = {}
    for c in cells:
        for h in c.headlines if c.study == study.name else []:
            if h.is_ratio:  # the charts draw ratios; fitted costs are in the tables
                keys.setdefault(h.key, h)
    panels = []
    for key, first in keys.items():
        points = []
        for v in versions:
            cell = by.get((v, study.name))
            h = next((h for h in cell.headlines if h.key == key), None) if cell else None
            why = "not raced" if cell is None else ("failed" if cell.error else (h.note if h else None))
            points.append((v, h.here if h else None, why))
        label = f"published, Elasticsearch {published['elasticsearch']}" if published else None
        panels.append((f"{study.name}: {first.label}", points, first.published, label))
    return panels


def charts(studies: list[Study], versions: list[str], cells: list[Cell]) -> list:
    """All studies' headline ratios by version in one figure, then one figure per study."""
    from ingestlab.report import plot  # heavy: matplotlib, only when drawing charts

    def figure(title: str, panels: list, here: str, published: str | None, name: str | None = None) -> tuple:
        lines = plot.version_lines(panels, versions, ylabel="ratio (×)", title=title, caption_here=here, caption_published=published)
        return name or title, lines

    per_study = [(study, _panels(study, versions, cells)) for study in studies]
    everything = [p for _, panels in per_study for p in panels]
    out = []
    if len(per_study) > 1 and everything:
        here = machine.one_line() + "; one node per version, 1 GB heap, each version alone in turn"
        published = "dashed: each study's own published ratio, on the version it ran"
        title = "The studies across versions and engines: headline ratios"
        out.append(figure(title, everything, here, published, name="Every study's headline ratio by version"))
    for study, panels in per_study:
        if panels:
            title = f"{study.name}: headline ratios by version"
            out.append(figure(title, panels, machine.one_line(), plot.published_line(study.published_figures())))
    return out
