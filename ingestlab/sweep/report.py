"""A sweep's report: one table per reported task (median, min and max docs/s over the repetitions, their CV,
error rate, service-time p50/p90/p99), a heat map for two swept keys or lines for one, the best cell and the
cells within the noise margin of it; failed runs and tasks whose samples all fell inside their warm-up are
rows that say so, never a 0 or a blank."""

from __future__ import annotations

import statistics

from ingestlab import compare, machine
from ingestlab.models import recommend
from ingestlab.report import writer
from ingestlab.report.common import fmt
from ingestlab.sweep.grid import Grid, cell_id, show
from ingestlab.sweep.state import sweeps_dir

UNREPORTED = ("delete-index", "create-index", "cluster-health", "refresh")  # operation types with no figure to report
WARMUP_FIX = "every sample fell inside its warm-up (warmup-time-period {0:g} s): use a larger corpus, or a smaller warmup_time_period"


def headline_figure(record: dict) -> str:
    for task, f in (record.get("figures") or {}).items():
        if task.startswith(compare.SETUP_PREFIXES):
            continue
        if f.get("warmup_only"):
            return f"{task}: no figure — " + WARMUP_FIX.format(f["warmup_time_period"])
        if f.get("median") is not None and f.get("operation_type") not in UNREPORTED:
            return f"{task} {f['median']:,.1f} {f.get('unit') or ''} (median)".rstrip()
    return "done"


def reported_tasks(state: dict) -> list[str]:
    tasks: list[str] = []
    for run in state["runs"]:
        for task, f in (run.get("figures") or {}).items():
            if task not in tasks and not task.startswith(compare.SETUP_PREFIXES) and f.get("operation_type") not in UNREPORTED:
                tasks.append(task)
    return tasks


def cells(state: dict) -> list[str]:
    return [cell_id(c) for c in Grid(state["grid"], state["cluster_grid"]).cells()]


def summarize(state: dict, task: str) -> dict[str, dict]:
    """cell id → its runs' figures for ``task``: aggregate, failures, warm-up-only runs."""
    out: dict[str, dict] = {c: {"runs": 0, "failed": [], "warmup_only": None, "figures": []} for c in cells(state)}
    for run in state["runs"]:
        entry = out.setdefault(run["cell_id"], {"runs": 0, "failed": [], "warmup_only": None, "figures": []})
        entry["runs"] += 1
        if run["status"] == "failed":
            entry["failed"].append(run["error"])
            continue
        f = (run.get("figures") or {}).get(task)
        if f and f.get("warmup_only"):
            entry["warmup_only"] = f["warmup_time_period"]
        elif f and f.get("median") is not None:
            entry["figures"].append(f)
    for entry in out.values():
        figs = entry["figures"]
        if figs:
            samples = [
                (f["min"], f["max"]) if f.get("max") is not None and f.get("min") is not None and f["max"] > f["min"] else None
                for f in figs
            ]
            entry["aggregate"] = compare.Aggregate.of([f["median"] for f in figs], samples)
            entry["error_rate"] = max(f.get("error_rate") or 0 for f in figs)
            entry["unit"] = figs[0].get("unit")
            for p in ("p50", "p90", "p99"):
                values = [f[p] for f in figs if f.get(p) is not None]
                entry[p] = statistics.median(values) if values else None
            entry["load_side"] = sorted({f["load_side"] for f in figs if f.get("load_side")})
            entry["limit"] = sorted({f["limit"] for f in figs if f.get("limit")})
    return out


def best_and_close(summary: dict) -> tuple[str | None, list[str], dict]:
    """The best cell (highest median), the cells within the noise margin of it, and each cell's verdict."""
    measured = {c: e["aggregate"] for c, e in summary.items() if "aggregate" in e}
    if not measured:
        return None, [], {}
    best = max(measured, key=lambda c: measured[c].median)
    verdicts, close = {}, []
    for c, agg in measured.items():
        if c == best:
            continue
        d = compare.difference(c, measured[best], agg)
        verdicts[c] = d.verdict
        if d.verdict == "within noise":
            close.append(c)
    return best, close, verdicts


def _row(cell: str, e: dict, verdict: str | None) -> str:
    if e["runs"] == 0:
        return f"| {cell} | 0 | not raced yet | | | | | | | | | |"
    if "aggregate" not in e:
        why = (
            ("failed: " + e["failed"][0][:200])
            if e["failed"]
            else ("no figure: " + WARMUP_FIX.format(e["warmup_only"]))
            if e["warmup_only"]
            else "no figure"
        )
        return f"| {cell} | {e['runs']} | {why} | | | | | | | | | |"
    a = e["aggregate"]
    failed = f" ({len(e['failed'])} failed)" if e["failed"] else ""
    return (
        f"| {cell} | {e['runs']}{failed} | {a.median:,.1f} | {a.minimum:,.1f} | {a.maximum:,.1f} | {fmt(a.cv, '.1%')} "
        f"| {e['error_rate']:.1%} | {fmt(e.get('p50'), ',.1f')} | {fmt(e.get('p90'), ',.1f')} | {fmt(e.get('p99'), ',.1f')} "
        f"| {verdict or 'best'} | {' / '.join(e.get('load_side') or ['—'])}"
        + (f"; limit: {', '.join(e['limit'])} |" if e.get("limit") else " |")
    )


def markdown(state: dict) -> str:
    total = len(cells(state)) * state["repeat"]
    done = sum(1 for r in state["runs"] if r["status"] == "done")
    failed = sum(1 for r in state["runs"] if r["status"] == "failed")
    keys = [*state["cluster_grid"], *state["grid"]]
    lines = [
        f"# Sweep {state['id']}: {state['track']}",
        "",
        f"Challenge `{state['challenge']}`; grid "
        + (", ".join(f"`{k}` = {v}" for k, v in {**state["cluster_grid"], **state["grid"]}.items()) or "none")
        + (f"; fixed {state['fixed']}" if state["fixed"] else "")
        + f"; {state['repeat']} repetition(s) per cell"
        + ("; test mode" if state["test_mode"] else "")
        + ".",
        f"Runs: {done} done, {failed} failed, {total - done - failed} not raced of {total}. This machine: {machine.one_line()}.",
        "",
    ]
    for task in reported_tasks(state):
        summary = summarize(state, task)
        best, close, verdicts = best_and_close(summary)
        unit = next((e.get("unit") for e in summary.values() if e.get("unit")), "")
        lines += [
            f"## {task}",
            "",
            f"| cell ({', '.join(keys) or 'defaults'}) | runs | median {unit} | min | max | CV | error rate "
            "| service p50 ms | p90 | p99 | against the best | load side |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
        ]
        lines += [_row(c, e, verdicts.get(c)) for c, e in summary.items()]
        if best:
            lines += ["", f"- Best cell: **{best}**; within the noise margin of it: {', '.join(close) or 'none'}."]
        lines += [f"- {r}" for r in recommendations(state, summary, unit)]
        lines.append("")
    lines.append(
        "Each figure is Rally's median throughput of the task in one race; median, min and max are over the repetitions. "
        "A cell is within noise of the best when the difference is inside the margin `ingestlab compare` uses "
        "(twice the larger CV with several repetitions; with one, the cells' samples must not overlap). "
        "Load side: which side was at its CPU limit in the cell's races (a cell that was load driver bound measured "
        "the load driver, not the cluster)."
    )
    return "\n".join(lines) + "\n"


def _is(key: str, kind: str) -> bool:
    return {"bulk": key.endswith("bulk_size") or key == "bulk-size", "clients": key.endswith("clients")}[kind]


def recommendations(state: dict, summary: dict, unit: str) -> list[str]:
    """What the cost models recommend from the swept bulk sizes and clients, for each setting of the other keys: the
    smallest bulk size within 5 % of the modelled maximum, the clients' peak; or why the points cannot carry a fit."""
    if not unit.startswith("docs"):
        return []
    grid = {**state["cluster_grid"], **state["grid"]}
    out = []
    for key, kind, fit in [
        (k, kind, f) for k in grid for kind, f in (("bulk", recommend.bulk_size), ("clients", recommend.clients)) if _is(k, kind)
    ]:
        others = {k: v for k, v in grid.items() if k != key}
        for fixed in Grid(others, {}).cells() if others else [{}]:
            points = []
            for value in grid[key]:
                e = summary.get(cell_id({k: ({**fixed, key: value}).get(k) for k in grid}), {})
                if "aggregate" in e and isinstance(value, (int, float)):
                    points.append((float(value), e["aggregate"].median))
            at = ", ".join(f"{k}={v}" for k, v in fixed.items())
            out.append(
                f"Recommendation from `{key}`" + (f" at {at}" if at else "") + f" ({len(points)} point(s), medians): {fit(points).text}."
            )
    return out


def _spread(entry: dict) -> str | None:
    """A cell's spread as its heat-map cell shows it: the CV over repetitions, else the range of Rally's samples."""
    agg = entry.get("aggregate")
    if agg is None:
        return "failed" if entry.get("failed") else None
    if agg.cv is not None:
        return f"CV {agg.cv:.0%}, n={agg.n}"
    return f"±{agg.spread:.0%}" if agg.spread else "one sample"


def charts(state: dict) -> list:
    """A heat map per task for two swept keys, lines for one, bars for none (each cell's median)."""
    from ingestlab.report import plot  # heavy: matplotlib, only when drawing charts

    keys = [*state["cluster_grid"], *state["grid"]]
    grid = {**state["cluster_grid"], **state["grid"]}
    out = []
    for task in reported_tasks(state)[:6]:
        summary = summarize(state, task)

        def median(cell: dict):
            e = summary.get(cell_id(cell), {})
            return e["aggregate"].median if "aggregate" in e else None

        unit = next((e.get("unit") for e in summary.values() if e.get("unit")), "")
        caption = f"sweep {state['id']}, {state['repeat']} repetition(s) per cell; {machine.one_line()}"
        shown = {"caption_here": caption, "caption_published": None}
        if len(keys) == 2:
            (ky, ys), (kx, xs) = list(grid.items())
            rows = [[median({ky: y, kx: x}) for x in xs] for y in ys]
            best, close, _ = best_and_close(summary)
            notes = [[_spread(summary.get(cell_id({ky: y, kx: x}), {})) for x in xs] for y in ys]
            framed = [(i, j) for i, y in enumerate(ys) for j, x in enumerate(xs) if cell_id({ky: y, kx: x}) in [best, *close]]
            panel = (f"median {unit} (framed: the best cell and those within noise of it)", rows)
            xticks, yticks = [show(x) for x in xs], [show(y) for y in ys]
            image = plot.heat_maps(
                [panel], xticks, yticks, xlabel=kx, ylabel=ky, title=task, cell_format="{:,.0f}", notes=[notes], framed=[framed], **shown
            )
        elif len(keys) == 1:
            ((k, values),) = grid.items()
            panel = (task, {"median": [(i, median({k: v})) for i, v in enumerate(values)]})
            image = plot.line_panels(
                [panel], xlabel=k, ylabel=f"median {unit}", title=f"{task} by {k}", xticks=[show(v) for v in values], **shown
            )
        else:
            medians = {"median": [median(c) for c in Grid(state["grid"], state["cluster_grid"]).cells()]}
            image = plot.grouped_bars(cells(state), medians, ylabel=f"median {unit}", title=task, **shown)
        out.append((f"{task}: median {unit} per cell", image))
    return out


def write(state: dict):
    text = markdown(state)
    summaries = {
        task: {
            c: {k: (v.__dict__ if k == "aggregate" else v) for k, v in e.items() if k != "figures"}
            for c, e in summarize(state, task).items()
        }
        for task in reported_tasks(state)
    }
    out = writer.write(
        sweeps_dir() / state["id"], f"ingestlab sweep {state['id']}", text, charts(state), {"sweep": state, "tasks": summaries}
    )
    return out, text
