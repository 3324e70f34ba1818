"""One night: each setup in turn, every study raced on it (small in test mode, or at its article's own size), its
figures stored, judged against the previous nights of the same setup, and one report with trend charts written. With a
reference raced beside each race, the night is judged on the setup's figures over the reference's, kept as a setup of
their own (``<setup> ÷ <reference>``), so that a shift of the machine both share cancels."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ingestlab import compare, machine, paths, racing
from ingestlab.nightly import changepoints, history, measured, sections, trends
from ingestlab.nightly.races import Setup, Sizing, race_setup
from ingestlab.rally.command import tag_value
from ingestlab.rally.results import java_options_of
from ingestlab.report import writer
from ingestlab.report.common import engine_name, task_limits
from ingestlab.studies import Study

DEFAULT_STUDIES = ("posts", "refresh", "dvf", "wikipedia")
OVERHEAD_STUDY = "overhead"  # the history files the pack's cost under this name: pack ÷ minimal per task
BESIDE = " ÷ "  # the history files a setup's figures over its reference's as the setup "<setup> ÷ <reference>"


def reference_label(reference: Setup) -> str:
    """The reference as a ratio's series names it: its name, with its version where the name does not hold it (a
    reference of another version is another series)."""
    return reference.name if not reference.version or reference.version in reference.name else f"{reference.name} {reference.version}"


def beside_figures(figures: dict[str, float], reference: dict[str, float]) -> dict[str, float]:
    """Each task's figure over the reference's of the same night (tasks both have; headline ratios left out)."""
    return {t: v / reference[t] for t, v in figures.items() if not t.startswith(history.HEADLINE) and reference.get(t) and v is not None}


def night_figures(study: Study, results: list, published: dict) -> tuple[dict, dict]:
    """Each task's figure of the night and the study's headline ratios: with several races, the median over them (the
    race is the unit; a task a race lacks is left out of its median, never counted as 0)."""
    per_race = [compare.task_figures(r.race) for r in results]
    tasks = dict.fromkeys(t for f in per_race for t in f)
    figures = {t: trends.median_or_none([f.get(t) for f in per_race]) for t in tasks}
    headlines = {}
    for result in results:
        for h in study.headlines(result, published):
            if h.is_ratio:
                headlines.setdefault(h.key, []).append(h)
    here = {k: trends.median_or_none([h.here for h in hs]) for k, hs in headlines.items()}
    figures.update({history.HEADLINE + k: v for k, v in here.items() if v is not None})
    return figures, {k: hs[-1] for k, hs in headlines.items()}


def night_costs(results: list, figures: dict) -> dict[str, float]:
    """Each rated task's node CPU per document (µs) of the night, as its series ``<task> node CPU µs/doc``: the median
    over the races that measured it (one that did not is left out, never counted as 0; none did: no figure)."""
    per_race = []
    for r in results:
        limits = task_limits(r)
        per_race.append(
            {t: ms * 1000 for t, lim in limits.items() if (ms := (lim.get("costs") or {}).get("node_cpu_ms_per_doc")) is not None}
        )
    tonight = {t + history.COST: trends.median_or_none([c.get(t) for c in per_race]) for t in figures if not t.startswith(history.HEADLINE)}
    return {k: v for k, v in tonight.items() if v is not None}


@dataclass
class _Night:
    """What one night found so far: the report's sections and charts, and what the verdict counts."""

    night: str
    db: object
    margin: float | None
    log: object
    sizing: Sizing = field(default_factory=Sizing)
    sections: list = field(default_factory=list)
    charts: list = field(default_factory=list)
    found: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    shifts: list = field(default_factory=list)
    races: dict = field(default_factory=dict)

    def judge(self, name: str, study: str, figures: dict, race_id: str, es_version: str | None, counted: bool = True, shifts: bool = True):
        """Tonight's ``figures`` of ``study`` on the setup ``name`` kept and judged against its previous nights (change
        points too where ``shifts``); ``counted``: whether what they find counts in the night's verdict."""
        rows = history.regressions(self.db, study, self.night, figures, self.margin, name)
        history.store(self.db, self.night, name, study, figures, race_id, es_version)
        self.db.commit()
        series = history.series(self.db, study, name)
        points, new = change_points(self.db, name, study, series, self.night, self.log) if shifts else ({}, [])
        if counted:
            self.found += [r for r in rows if r["regression"]]
            self.missing += [r for r in rows if r["missing"]]
            self.shifts += new
        return rows, series, points, new

    def trend(
        self,
        title: str,
        study: str,
        name: str,
        series: dict,
        rows: list,
        points: dict,
        notes_of: str | tuple[str, ...],
        published: dict | None = None,
        line: str | None = None,
        shown: frozenset[str] = frozenset(),
    ) -> None:
        """The trend chart of the setup ``name``'s ``series`` over the nights, with the annotations of the setup ``notes_of``;
        ``shown``: series shown and never judged."""
        notes_of = (notes_of,) if isinstance(notes_of, str) else notes_of
        notes, missing = history.annotations(self.db, *notes_of), [r["task"] for r in rows if r["missing"]]
        marks = {t: [(n, c) for n, c, _ in p] for t, p in points.items()}
        png = trends.chart(study, name, series, notes, published or {}, missing, line or machine.one_line(), marks, shown)
        self.charts.append((title, png))

    def cost(self, setup: Setup, costs: dict) -> None:
        rows, series, _, _ = self.judge(setup.name, OVERHEAD_STUDY, costs, "", None, shifts=False)  # the drop rule alone, as ever
        self.sections.append(sections.history_table(f"the pack's cost on {setup.name} (pack ÷ minimal client, docs/s)", rows))
        self.trend(
            f"the pack's cost on {setup.name}: pack ÷ minimal over the nights", OVERHEAD_STUDY, setup.name, series, rows, {}, setup.name
        )

    def study(self, setup: Setup, study: Study, results: list, beside: list, reference: Setup | None) -> None:
        result, published = results[-1], study.published_figures()
        figures, headlines = night_figures(study, results, published)  # (a headline's drop is a regression)
        rows, series, points, new = self.judge(setup.name, study.name, figures, result.race_id, result.es_version, counted=not beside)
        tonight = night_costs(results, figures)  # shown beside the rates, never judged: kept apart from the figures
        history.store(self.db, self.night, setup.name, study.name, tonight, result.race_id, result.es_version, history.COSTS)
        self.db.commit()
        costs = history.series(self.db, study.name, setup.name, history.COSTS)
        report, where = study.report(result), f"{study.name} on {setup.name}"
        ids = ", ".join(r.race_id for r in results)
        kept = (
            f"Tonight's figures: the median of {len(results)} races ({ids}); the report below is the last one's.\n\n"
            if len(results) > 1
            else ""
        )
        if beside:
            kept += (
                "With a reference raced beside it, these figures are shown and not judged: they carry the machine's "
                "shift from night to night, which the ratio to the reference (below) cancels.\n\n"
            )
        measured_here = "" if beside else self.rates_here(setup.name, "", result.race.get("track") or study.name, figures)
        self.sections.append(
            sections.history_table(where, rows)
            + "\n"
            + self.options_moved(setup.name, study.name, java_options_of(result.race))
            + sections.change_point_lines(where, points, new)
            + sections.cost_table(where, costs, self.night)
            + measured_here
            + kept
            + report.markdown
        )
        self.charts += [(f"{where}: {caption}", png) for caption, png in report.charts]
        line = f"{machine.one_line()}; {engine_name(result.race)} {result.es_version}"
        marks = {k: h.published for k, h in headlines.items()}
        every = {**series, **costs}
        self.trend(
            f"{where}: trends over the nights", study.name, setup.name, every, rows, points, setup.name, marks, line, frozenset(costs)
        )
        self.races[f"{setup.name}/{study.name}"] = [r.race_id for r in results] if len(results) > 1 else result.race_id
        if beside:
            self.beside(setup, study, figures, beside, reference, published, result)

    def options_moved(self, setup: str, study: str, options: str | None) -> str:
        """A sentence while the nights ``setup``'s ``study`` is judged against include some whose nodes ran with other extra
        JVM options than tonight's (None: not known tonight, nothing kept)."""
        moved = history.node_options(self.db, setup, study, self.night, options) if options else None
        return sections.options_moved(options, *moved) if moved else ""

    def rates_here(self, setup: str, reference: str, track: str, figures: dict) -> str:
        """What the rules judging tonight's ``figures`` were measured to do here, task by task, in the night's configuration."""
        tasks = [t for t in figures if not t.startswith(history.HEADLINE)]
        if not tasks:
            return ""
        lines = [
            measured.quote(
                measured.Basis(track, task, tag_value(setup), reference, self.sizing.full_size, self.sizing.repeat),
                self.margin,
                self.night,
                len(tasks),
            )
            for task in tasks
        ]
        return (
            "What these rules were measured to do on this machine (`python -m devtools.bench changepoints`):\n\n"
            + "".join(f"- {line}\n" for line in lines)
            + "\n"
        )

    def beside(self, setup: Setup, study: Study, figures: dict, beside: list, reference: Setup, published: dict, last) -> None:
        """The setup's figures over the reference's raced beside it tonight: the series the night judges."""
        name = f"{setup.name}{BESIDE}{reference_label(reference)}"
        theirs, _ = night_figures(study, beside, published)
        ratio = beside_figures(figures, theirs)
        was, now = history.last_version(self.db, study.name, name, self.night), beside[-1].es_version
        moved = bool(was and now and was != now)  # a running cluster's version changed: its earlier nights are over another
        if moved and (self.night, f"reference {reference.name}: {was} → {now}") not in history.annotations(self.db, name):
            history.annotate(self.db, self.night, f"reference {reference.name}: {was} → {now}", name)
        rows, series, points, new = self.judge(name, study.name, ratio, beside[-1].race_id, now, counted=not moved)
        options = java_options_of(last.race), java_options_of(beside[-1].race)
        both = f"the setup's {options[0]}, the reference's {options[1]}" if all(options) else None
        where = f"{study.name} on {name}"
        self.sections.append(
            sections.history_table(where, rows, " (the setup's figure over the reference's)")
            + "\n"
            + (
                f"The reference {reference.name} is {now} tonight; the last night before it was {was}: the nights before "
                "tonight are over another reference, so tonight's ratio is shown and not counted in the night's verdict.\n\n"
                if moved
                else ""
            )
            + self.options_moved(name, study.name, both)
            + sections.change_point_lines(where, points, new)
            + self.rates_here(setup.name, beside[-1].es_version or "an unknown version", beside[-1].race.get("track") or study.name, ratio)
            + f"The reference's races tonight, each beside one of the setup's: {', '.join(r.race_id for r in beside)}.\n"
        )
        self.trend(f"{where}: trends over the nights", study.name, name, series, rows, points, (setup.name, name))
        self.races[f"{name}/{study.name}"] = [r.race_id for r in beside]


def run(
    studies: list[Study],
    target: racing.Target | None = None,
    history_file: Path | None = None,
    margin: float | None = None,
    version: str | None = None,
    setups: list[Setup] | None = None,
    overhead: Callable[[str, str, Callable], dict] | None = None,
    repeat: int = 1,
    log=print,
    reference: Setup | None = None,
    full_size: bool = False,
    include_tasks: str | None = None,
) -> int:
    """The night (see the module's text); ``reference``: a setup raced beside each setup, race by race, and the night
    judged on the setup's figures over the reference's (``nightly --reference``); ``full_size``, ``include_tasks``: see
    ``races.Sizing``; ``overhead``: what measures the pack's cost on each setup's cluster, ``(hosts, url, log)`` → pack ÷
    minimal client per task, kept and judged in the history as the study ``overhead`` (None: not measured)."""
    sizing = Sizing(repeat, full_size, include_tasks)
    tonight = _Night(time.strftime("%Y-%m-%dT%H%M%S"), history.open_history(history_file or history.history_path()), margin, log, sizing)
    night = tonight.night
    setups = [sizing.named(s) for s in setups or [Setup(version=version)]]
    for setup in setups:
        results, costs, beside = race_setup(setup, studies, target, night, overhead, sizing, log, reference)
        if costs:
            tonight.cost(setup, costs)
        for study in studies:
            tonight.study(setup, study, results[study.name], beside.get(study.name, []), reference)
    regressing = [s for s in tonight.shifts if s["change"] < 0 and not s["task"].startswith(history.HEADLINE)]
    verdict = sections.verdict(tonight.found, tonight.missing, regressing)
    judged = (
        f" Judged on each setup's figures over those of the reference {reference.name}, raced beside it race by race." if reference else ""
    )
    text = (
        f"# ingestlab nightly {night}\n\n{verdict}{judged}\n\nThis machine: {machine.one_line()}. Setups: "
        + ", ".join(s.name for s in setups)
        + f"; each study raced {sizing.what()}, {repeat} time(s).\n\n"
        + "\n".join(tonight.sections)
    )
    out = writer.write(
        paths.results_dir() / "nightly" / night,
        f"ingestlab nightly {night}",
        text,
        tonight.charts,
        {
            "night": night,
            "races": tonight.races,
            "regressions": [_plain(r) for r in tonight.found],
            "missing": [_plain(r) for r in tonight.missing],
            "change_points_new": tonight.shifts,
            "reference": reference.name if reference else None,
        },
    )
    log(text)
    log(f"[ingestlab] nightly report: {out}/report.html; history: {history_file or history.history_path()}")
    return 1 if tonight.found or tonight.missing or regressing else 0


def change_points(db, setup: str, study: str, series: dict, night: str, log) -> tuple[dict, list[dict]]:
    """Every change point of each task's series (task → [(night, change, p-value)]), and those new tonight."""
    values = {task: [v for _, v in points] for task, points in series.items()}
    found = changepoints.detect(values, log=log)
    points, new = {}, []
    for task, cps in found.items():
        nights = [n for n, _ in series[task]]
        rows = [(nights[cp.index], cp.change, cp.pvalue) for cp in cps if cp.index < len(nights)]
        if rows:
            points[task] = rows
        for n, change, pvalue in history.record_change_points(db, setup, study, task, rows, night, nights):
            new.append({"setup": setup, "study": study, "task": task, "night": n, "change": change, "pvalue": pvalue})
    db.commit()
    return points, new


def _plain(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "history"}
