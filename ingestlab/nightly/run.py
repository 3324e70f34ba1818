"""One night: each setup (a provisioned cluster: version, node count, heap; or the given hosts) in turn, every
study raced small in test mode on it (``repeat`` times: each task's figure is then the median of its races), its figures and headline ratios stored, judged against the previous
nights of the same setup, and one report with trend charts written."""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ingestlab import compare, machine, paths, racing
from ingestlab.report.common import engine_name
from ingestlab.nightly import changepoints, history, trends
from ingestlab.studies import Study

DEFAULT_STUDIES = ("posts", "refresh", "dvf", "wikipedia")
PORTS = {"http_port": 29250, "transport_port": 29350}


@dataclass(frozen=True)
class Setup:
    """A cluster the night races on: ``name`` is what the history files its figures under."""

    name: str = "default"
    version: str | None = None
    nodes: int = 1
    heap: str = "1g"

    @classmethod
    def parse(cls, text: str) -> "Setup":
        """``9.2.0`` or ``version=9.2.0;nodes=3;heap=512m``."""
        from ingestlab.errors import IngestlabError

        if "=" not in text:
            return cls(name=text, version=text)
        fields = dict(part.split("=", 1) for part in text.split(";") if part)
        unknown = set(fields) - {"version", "nodes", "heap", "name"}
        if unknown:
            raise IngestlabError(f"--setup {text!r}: unknown {', '.join(sorted(unknown))}; it takes version, nodes, heap, name")
        return cls(name=fields.get("name", text), version=fields.get("version"), nodes=int(fields.get("nodes", 1)),
                   heap=fields.get("heap", "1g"))


OVERHEAD = {"rounds": 1, "runs": 2, "scale": 0.2, "tasks": "posts-index,posts-bulk-1000", "warmup_rounds": 0}  # small: a trend, not the benchmark
OVERHEAD_STUDY = "overhead"  # the history files the pack's cost under this name: pack ÷ minimal per task


def _race_setup(setup: Setup, studies: list[Study], target: racing.Target | None, night: str, overhead: bool, repeat: int,
                log) -> tuple[dict, dict]:
    """The night's races on one setup, ``repeat`` of each study (and the pack's overhead measured there, when asked)."""
    from ingestlab.cluster import lifecycle

    results, costs = {}, {}

    def race_all(t: racing.Target, url: str) -> None:
        for study in studies:
            results[study.name] = []
            for n in range(1, repeat + 1):
                log(f"[ingestlab] nightly {night} ({setup.name}): racing {study.name} (test mode)" + (f", race {n}/{repeat}" if repeat > 1 else ""))
                results[study.name].append(racing.race(study.track, t, racing.Options(
                    challenge=study.small_challenge, params=study.small_params, tags={"study": study.name, "nightly": night}, test_mode=True),
                    log=log))
        if overhead:
            from ingestlab.bench import overhead as bench

            log(f"[ingestlab] nightly {night} ({setup.name}): the pack's overhead beside a minimal client")
            _, data = bench.run(t.hosts, url, log=log, **OVERHEAD)
            costs.update({task: d["ratio"][1] for task, d in data.items() if d["ratio"][1] is not None})

    if target is not None:
        race_all(target, f"http://{target.hosts.split(',')[0]}")
    else:
        shape = lifecycle.Shape(nodes=setup.nodes, version=setup.version or lifecycle.DEFAULT_VERSION, heap=setup.heap,
                                name="ingestlab-nightly", **PORTS)
        with lifecycle.running(shape, log=log) as cluster:
            race_all(racing.Target(hosts=cluster.hosts), cluster.url)
    return results, costs


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


def run(studies: list[Study], target: racing.Target | None = None, history_file: Path | None = None, margin: float | None = None,
        version: str | None = None, setups: list[Setup] | None = None, overhead: bool = False, repeat: int = 1, log=print) -> int:
    from ingestlab.report import writer

    night = time.strftime("%Y-%m-%dT%H%M%S")
    db = history.open_history(history_file or history.history_path())
    setups = setups or [Setup(version=version)]
    sections, charts, found, missing, races, shifts = [], [], [], [], {}, []
    for setup in setups:
        results, costs = _race_setup(setup, studies, target, night, overhead, repeat, log)
        if costs:
            rows = history.regressions(db, OVERHEAD_STUDY, night, costs, margin, setup.name)
            found += [r for r in rows if r["regression"]]
            missing += [r for r in rows if r["missing"]]
            sections.append(_history_table(f"the pack's cost on {setup.name} (pack ÷ minimal client, docs/s)", rows))
            history.store(db, night, setup.name, OVERHEAD_STUDY, costs, "", None)
            db.commit()
            charts.append((f"the pack's cost on {setup.name}: pack ÷ minimal over the nights", trends.chart(
                OVERHEAD_STUDY, setup.name, history.series(db, OVERHEAD_STUDY, setup.name), history.annotations(db, setup.name), {},
                [r["task"] for r in rows if r["missing"]], machine.one_line())))
        for study in studies:
            result = results[study.name][-1]
            published = study.published_figures()
            figures, headlines = night_figures(study, results[study.name], published)  # (a headline's drop is a regression)
            rows = history.regressions(db, study.name, night, figures, margin, setup.name)
            found += [r for r in rows if r["regression"]]
            missing += [r for r in rows if r["missing"]]
            report = study.report(result)
            where = f"{study.name} on {setup.name}"
            ids = ", ".join(r.race_id for r in results[study.name])
            kept = (f"Tonight's figures: the median of {len(results[study.name])} races ({ids}); the report below is the last one's.\n\n"
                    if repeat > 1 else "")
            sections.append(_history_table(where, rows) + "\n" + kept + report.markdown)
            charts += [(f"{where}: {caption}", png) for caption, png in report.charts]
            history.store(db, night, setup.name, study.name, figures, result.race_id, result.es_version)
            db.commit()
            series = history.series(db, study.name, setup.name)
            points, new = change_points(db, setup.name, study.name, series, night, log)
            shifts += new
            sections[-1] = sections[-1].replace("\n", "\n" + _change_point_lines(where, points, new), 1) if points else sections[-1]
            charts.append((f"{where}: trends over the nights", trends.chart(
                study.name, setup.name, series, history.annotations(db, setup.name),
                {k: h.published for k, h in headlines.items()}, [r["task"] for r in rows if r["missing"]],
                f"{machine.one_line()}; {engine_name(result.race)} {result.es_version}",
                {t: [(n, c) for n, c, _ in p] for t, p in points.items()})))
            races[f"{setup.name}/{study.name}"] = [r.race_id for r in results[study.name]] if repeat > 1 else result.race_id
    regressing = [s for s in shifts if s["change"] < 0 and not s["task"].startswith(history.HEADLINE)]
    verdict = _verdict(found, missing, regressing)
    text = (f"# ingestlab nightly {night}\n\n{verdict}\n\nThis machine: {machine.one_line()}. Setups: "
            + ", ".join(s.name for s in setups) + ".\n\n" + "\n".join(sections))
    out = writer.write(paths.results_dir() / "nightly" / night, f"ingestlab nightly {night}", text, charts,
                       {"night": night, "races": races, "regressions": [_plain(r) for r in found], "missing": [_plain(r) for r in missing],
                        "change_points_new": shifts})
    log(text)
    log(f"[ingestlab] nightly report: {out}/report.html; history: {history_file or history.history_path()}")
    return 1 if found or missing or regressing else 0


def _verdict(found: list[dict], missing: list[dict], regressing: list[dict]) -> str:
    rule = (f"below the previous nights' {1 - history.DROP_LEVEL:.0%} prediction bound, Holm over a study's tasks, and a drop of "
            f"{found[0]['margin']:.0%} or more" if found else "")
    verdict = (f"**{len(found)} regression(s)** ({rule}): " + ", ".join(f"{r['setup']}/{r['study']}/{r['task']} {r['change']:+.0%}" for r in found)
               + "." if found else "No regression against the previous nights.")
    if missing:
        verdict += (f" **{len(missing)} task(s) missing tonight** that earlier nights had: "
                    + ", ".join(f"{r['setup']}/{r['study']}/{r['task']}" for r in missing) + ".")
    rule = (f"Apache Otava's permutation test, p < {changepoints.MAX_PVALUE}, a change of {changepoints.MIN_MAGNITUDE:.0%} or more, "
            f"{changepoints.MIN_SEGMENT} nights or more each side")
    return verdict + (f" Change points ({rule}): **{len(regressing)} new regression(s)**: "
                      + ", ".join(f"{s['setup']}/{s['study']}/{s['task']} from {s['night']} {s['change']:+.1%}" for s in regressing) + "."
                      if regressing else f" No new regression among the change points ({rule}).")


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


def _change_point_lines(where: str, points: dict, new: list[dict]) -> str:
    fresh = {(s["task"], s["night"]) for s in new}
    return ("Change points over the nights (Apache Otava): " + "; ".join(
        f"{task} from {n} {c:+.1%} (p {p:.1e}){' **new**' if (task, n) in fresh else ''}" for task, rows in points.items() for n, c, p in rows)
        + "\n\n")


def _plain(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "history"}


def _history_table(where: str, rows: list[dict]) -> str:
    if not rows:
        return f"## {where}: against previous nights\n\nNo previous night in the history yet.\n"
    lines = [f"## {where}: against previous nights", "",
             f"A regression: below the previous nights' one-sided {1 - history.DROP_LEVEL:.0%} prediction bound (each night one "
             f"figure; t on log figures), after Holm's correction over the study's tasks, and a drop of {rows[0]['margin']:.0%} or "
             f"more; judged from {history.NIGHTS_NEEDED} previous nights.", "",
             "| task | tonight | previous nights: geometric mean (n) | change | lower bound (p) | |", "|---|---:|---:|---:|---:|---|"]
    for r in rows:
        if r["missing"]:
            lines.append(f"| {r['task']} | — | {r['centre']:,.1f} ({r['history'].n}) | | | **missing tonight** |")
            continue
        judged = f"{r['bound']:+.1%} (p {r['p']:.2g})" if r["p"] is not None else f"— ({r['why']})"
        lines.append(f"| {r['task']} | {r['tonight']:,.1f} | {r['centre']:,.1f} ({r['history'].n}) | {r['change']:+.1%} "
                     f"| {judged} | {'**regression**' if r['regression'] else ''} |")
    return "\n".join(lines) + "\n"
