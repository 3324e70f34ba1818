"""What a study is: one track folder (``tracks/<name>/``) and one module here whose ``STUDY`` (a :class:`Study`)
turns a race of that track, as rendered for it, into tables and charts beside the published figures.

Only ``markdown(result, published, load_side)`` is required. ``small_params``: a small race (the nightly);
``headline_params``: the smallest race that measures the headlines (default ``small_params``); ``headlines``: the
study's headline ratios; ``published``: its data file in :mod:`ingestlab.published`; ``default_version``: the
Elasticsearch it provisions; ``full_size``/``full_size_heap``: the race at the article's own size (``--full-size``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ingestlab import paths
from ingestlab import published as published_data
from ingestlab.cluster.versions import DEFAULT_VERSION
from ingestlab.corpus.files import TEST_MODE_DOCS
from ingestlab.rally import trackinfo
from ingestlab.rally.results import RaceResult
from ingestlab.report.common import limit_lines, tables_apart


@dataclass(frozen=True)
class Report:
    title: str
    markdown: str
    charts: list = field(default_factory=list)  # (caption, PNG bytes)


@dataclass(frozen=True)
class Headline:
    """One ratio a study is known for, made the way the article made its own (e.g. bulk 1000 ÷ single)."""

    key: str
    label: str
    here: float | None
    published: float | None = None
    note: str | None = None  # why ``here`` is missing, where that is known (e.g. the API is not in this distribution)
    unit: str = "×"  # a ratio; a cost model's fitted parameter has its own unit (" ms", " µs")

    @property
    def is_ratio(self) -> bool:
        return self.unit == "×"


def fitted_headlines(here, there, terms: dict[str, tuple[str, float, str]]) -> list[Headline]:
    """A cost model's fitted parameters as headlines: ``terms`` maps a term to (label, scale, unit), e.g.
    ``{"request": ("cost per request", 1e3, " ms")}``; ``here``/``there`` the fits on this race and on the article's
    figures (None where the cells do not determine one: shown as missing)."""

    def value(fit, term, scale):
        parameter = fit.per(term) if fit else None
        return parameter.value * scale if parameter else None

    why = None if here else "too few cells for the model"
    return [
        Headline(f"fitted-{term}", f"fitted {label} ({unit.strip()})", value(here, term, scale), value(there, term, scale), why, unit=unit)
        for term, (label, scale, unit) in terms.items()
    ]


class Study:
    name: str = ""
    title: str = ""
    published: str | None = None
    small_params: dict = {}
    small_challenge: str | None = None
    headline_params: dict | None = None
    headline_challenge: str | None = None  # the challenge that measures the headlines (None: the track's default)
    default_version: str = DEFAULT_VERSION
    full_size: dict = {}  # the article's own size: the track's defaults unless the study says otherwise
    full_size_heap: str = "1g"
    full_size_settings: dict = {}  # node settings a node the pack provisions for the article's size needs

    @property
    def track(self) -> Path:
        return paths.TRACKS_DIR / self.name

    def trackinfo(self, params: dict | None = None) -> trackinfo.TrackInfo:
        return trackinfo.load(self.track, params)

    def published_figures(self) -> dict | None:
        return published_data.load(self.published) if self.published else None

    def markdown(self, result: RaceResult, published: dict | None, load_side: dict | None = None) -> str:
        raise NotImplementedError

    def charts(self, result: RaceResult, published: dict | None) -> list:
        return []

    def headlines(self, result: RaceResult, published: dict | None) -> list[Headline]:
        return []

    def report(self, result: RaceResult, load_side: dict | None = None, charts: bool = True) -> Report:
        from ingestlab.studies import warmth  # heavy: numpy (scipy where a test is computed); the CLI starts without them

        figures = self.published_figures()
        text = self.markdown(result, figures, load_side).rstrip("\n") + "\n" + warmth.line(result) + "\n" + limit_lines(result)
        return Report(f"ingestlab: {self.title}", tables_apart(text), self.charts(result, figures) if charts else [])


def corpus_documents(result: RaceResult, corpus: str | None = None) -> int | None:
    """Documents in the race's corpus as the track declared it, as Rally's test mode cut it."""
    if result.track is None:
        return None
    for c in result.track.rendered.get("corpora", []):
        if corpus in (None, c.get("name")):
            docs = sum(d.get("document-count", 0) for d in c.get("documents", []))
            return min(docs, TEST_MODE_DOCS) if result.test_mode else docs
    return None


def documents_written(result: RaceResult, operation: str | None = None, method: str = "fresh-index-load") -> int | None:
    """What each run of an operation (any, when None) wrote, as the pack's runner recorded it; None when its records
    are missing (a race plain esrally ran without the pack's runner stats) or the runs wrote different counts."""
    counted = {s["docs"] for s in result.runner_stats if s.get("method") == method and "docs" in s and operation in (None, s.get("task"))}
    return counted.pop() if len(counted) == 1 else None


def iterations(result: RaceResult, task_name: str, warmup: bool = False) -> int | None:
    """How often each client ran a task (``warmup``: its warm-up iterations): as the track declared them, or in
    Rally's test mode at most as many as the task has clients (Rally's own cut)."""
    task = next((t for t in result.schedule if t.name == task_name), None)
    declared = task and (task.warmup_iterations if warmup else task.iterations)
    if declared is None:
        return None
    return min(int(declared), task.clients) if result.test_mode else int(declared)


def task_calls(result: RaceResult, task: str, method: str = "corpus-load") -> list[dict]:
    """The writer's records of one task's calls. A record names the task's operation (a parameter source knows no
    more), which several tasks may share (DVF: one per bulk size, raced with 1, 4, 8 and 16 clients): those tasks run
    one after the other, so their records are told apart at the largest gaps between calls, in schedule order."""
    names = [t.name for t in result.schedule]
    mine = next((t for t in result.schedule if t.name == task), None)
    operation = mine.operation.get("name") if mine else task
    sharing = [t.name for t in result.schedule if t.operation.get("name") == operation] or [task]
    calls = sorted(
        (s for s in result.runner_stats if s.get("task") in (operation, task) and s.get("method") == method and "start" in s),
        key=lambda s: s["start"],
    )
    if len(sharing) == 1 or not calls or task not in names:
        return calls
    end, gaps = calls[0]["end"], []
    for i in range(1, len(calls)):
        gaps.append((calls[i]["start"] - end, i))
        end = max(end, calls[i]["end"])
    cuts = sorted(i for _, i in sorted(gaps, reverse=True)[: len(sharing) - 1])
    groups = [calls[a:b] for a, b in zip([0, *cuts], [*cuts, len(calls)])]
    return groups[sharing.index(task)] if len(groups) == len(sharing) else []


def whole_task_rate(result: RaceResult, task: str, method: str = "corpus-load") -> float | None:
    """A task's documents ÷ the time from its first request's start to its last request's end, from the records
    the pack's writer keeps of every call; None without them (a race plain esrally ran). Unlike Rally's median of
    one-second buckets it holds for a task of one or two seconds too, ramp-up and tail included."""
    calls = task_calls(result, task, method)
    if not calls:
        return None
    span = max(c["end"] for c in calls) - min(c["start"] for c in calls)
    return sum(c["acknowledged"] for c in calls) / span if span > 0 else None
