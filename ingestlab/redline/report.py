"""A redline result as text (the sustainable rate, the full-speed rate beside it, every step's probes) and as a chart:
latency percentiles against the offered rate, the target, the redline and the full-speed rate (the hockey stick).
A value a probe did not measure is shown as missing, never as 0."""

from __future__ import annotations

import statistics
from pathlib import Path

from matplotlib.ticker import FuncFormatter

from ingestlab.errors import IngestlabError
from ingestlab.rally import results
from ingestlab.report import plot

MISSING = plot.MISSING


def _n(v, digits: int = 0) -> str:
    return MISSING if v is None else f"{v:,.{digits}f}"


def steps(result: dict) -> list[tuple[float, list[dict]]]:
    out: dict[float, list[dict]] = {}
    for p in result["probes"]:
        out.setdefault(p["rate"], []).append(p)
    return sorted(out.items())


def _median(values: list) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.median(kept) if kept else None


STEP_NAMES = {None: "offered docs/s", "clients": "clients", "bulk_size": "docs a bulk"}  # a step, as a column names it
STEP_UNITS = {None: "docs/s", "clients": "clients", "bulk_size": "docs a bulk"}  # after a step's value
AXIS_NAMES = {
    None: "offered rate (documents per second)",
    "clients": "clients (full speed)",
    "bulk_size": "bulk size (documents, full speed)",
}


def _over_lines(result: dict) -> list[str]:
    """The answer of a search over clients or bulk size at full speed, and the USL beside it (clients)."""
    what = STEP_NAMES[result["over"]]
    value, above = result.get("rate"), result.get("failed_above")
    at = [p for p in result["probes"] if p["rate"] == value]
    if value is None:
        out = [f"- highest {what} that met the target at full speed: not found (see why the search stopped)"]
    else:
        through = _median([p.get("throughput") for p in at])
        out = [
            f"- highest {what} that met the target at full speed: {_n(value)} (all {len(at)} of its probes; {_n(through)} docs/s); "
            + (f"{_n(above)} failed" if above else "nothing above it failed")
        ]
    fit = result.get("usl")
    if fit is not None:
        if fit.get("fitted"):
            interval = fit.get("peak_interval")
            peak = (
                "it predicts no peak (more clients only flatten the curve)"
                if fit.get("peak") is None
                else f"its N* {fit['peak']:,.1f}" + (f" (95 % {interval[0]:,.1f}–{interval[1]:,.1f})" if interval else "")
            )
            out.append(
                f"- the USL over the client counts probed (median throughput of each): {fit['describe']}; {peak}, beside "
                f"the measured {_n(value)} clients that kept the target"
            )
        else:
            out.append(f"- the USL over the client counts probed: not fitted ({fit.get('why')})")
    return out


def _held(race_id: str | None) -> bool | None:
    """The fidelity monitor's verdict kept beside a stored race (a search stored before its probes carried it)."""
    if not race_id:
        return None
    try:
        return (results.load_race(race_id)[0].get(results.EMULATION_KEY) or {}).get("held")
    except IngestlabError:
        return None


def emulation_lines(result: dict) -> list[str]:
    """On emulated hosts, whether the fidelity monitor found the emulation held over each probe and full-speed race."""
    probes = [p["emulation"] if "emulation" in p else _held(p.get("race_id")) for p in result["probes"]]
    full = result["full_speed"].get("emulation") or [_held(r) for r in result["full_speed"].get("races", [])]
    if all(v is None for v in probes + full):
        return []
    broken = [f"{_n(p['rate'])} ({p['race_id'][:8]})" for p, held in zip(result["probes"], probes) if held is False]
    return [
        f"- emulated hardware: the emulation held in {sum(v is True for v in probes)} of {len(probes)} probes and "
        f"{sum(v is True for v in full)} of {len(full)} full-speed races"
        + (f"; not in the probes at {', '.join(broken)}: their figures are this machine's, not the profile's" if broken else "")
    ]


def lines(result: dict) -> list[str]:
    key = f"p{result['latency_target']['percentile']}"
    target = f"{key} <= {result['latency_target']['ms']:g} ms, error rate <= {result['error_rate']:.2%}"
    full = result["full_speed"]
    over = result.get("over")
    out = [
        f"Redline of {result['track']} (challenge {result['challenge']}, task {result['task']}, bulk size {result['bulk_size']}"
        + (f", over {over.replace('_', ' ')} at full speed" if over else "")
        + f"), target {target}; search {result['stamp']}:"
    ]
    rate, above = result.get("rate"), result.get("failed_above")
    if over:
        out += _over_lines(result)
    elif rate is not None:
        share = f", {rate / full['rate']:.0%} of full speed" if full.get("rate") else ""
        out.append(
            f"- sustainable: {_n(rate)} docs/s offered: all {len([p for p in result['probes'] if p['rate'] == rate])} of its "
            f"probes met the target{share}; the knee lies between it and "
            + (f"{_n(above)} docs/s, which failed" if above else "the next step up (not probed)")
        )
    else:
        out.append("- sustainable: not found (see why the search stopped)")
    out.append(
        f"- full speed: {_n(full.get('rate'))} docs/s (median of the last {len(full.get('races', []))} warm races, "
        f"{full.get('clients')} client{'s' if full.get('clients') != 1 else ''}; races {', '.join(r[:8] for r in full.get('races', []))})"
    )
    out.append(f"- stopped: {result['stopped']}")
    out += emulation_lines(result)
    out += [
        "",
        f"| {STEP_NAMES[over]} | probes | passed | p50 ms | p90 ms | {key} ms (median, lowest–highest) "
        "| requests a probe | achieved docs/s | load side |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for rate_, ps in steps(result):
        ours = [p["latency_ms"].get(key) for p in ps]
        seen = [v for v in ours if v is not None]
        spread = f"{_n(_median(ours))} ({_n(min(seen))}–{_n(max(seen))})" if len(seen) > 1 else _n(_median(ours))
        verdicts = sorted({_side(p.get("load_side") or {}) for p in ps})
        p50, p90 = (_n(_median([p["latency_ms"].get(k) for p in ps])) for k in ("p50", "p90"))
        out.append(
            f"| {_n(rate_)} | {len(ps)} | {sum(p['outcome'] == 'pass' for p in ps)} | {p50} | {p90} | {spread} "
            f"| {_n(_median([p.get('requests') for p in ps]))} | {_n(_median([p['throughput'] for p in ps]))} | {', '.join(verdicts)} |"
        )
    tool = "opensearch-benchmark's" if result.get("engine") == "opensearch" else "Rally's"
    sent = (
        "at full speed, with no schedule to wait behind, that is each request's own time" if over else "from each request's scheduled send"
    )
    out += [
        "",
        f"Latency is {tool}, {sent}; a probe of fewer than 100 requests (the tool then reports no "
        f"p99) has its percentiles read by nearest rank of its own samples, so its {key} is one of its slowest requests.",
    ]
    failed = [p for p in result["probes"] if p["outcome"] != "pass"]
    if failed:
        out += [
            "",
            "Probes that did not pass: "
            + "; ".join(f"{_n(p['rate'])} {STEP_UNITS[over]}: {p['why']}" for p in failed[:8])
            + (f"; and {len(failed) - 8} more" if len(failed) > 8 else ""),
        ]
    return out


def chart(result: dict) -> bytes:
    """Latency percentiles (every probe a dot, each step's median joined) against the offered rate."""
    fig, ax = plot.new_figure(8.0, 5.0)
    rows = steps(result)
    key = f"p{result['latency_target']['percentile']}"
    for name, style in (("p50", ":"), ("p90", "--"), (key, "-")):
        dots = [(r, p["latency_ms"][name]) for r, ps in rows for p in ps if p["latency_ms"].get(name) is not None]
        if not dots:
            continue
        drawn = ax.scatter(*zip(*dots), s=14, alpha=0.6)
        medians = [(r, _median([p["latency_ms"].get(name) for p in ps])) for r, ps in rows]
        medians = [(r, m) for r, m in medians if m is not None]
        ax.plot(*zip(*medians), style, color=drawn.get_facecolor()[0], label=f"{name} latency (median of the probes)")
    ax.axhline(result["latency_target"]["ms"], color="red", linewidth=1, label=f"target {key} <= {result['latency_target']['ms']:g} ms")
    over = result.get("over")
    rate, full = result.get("rate"), result["full_speed"].get("rate")
    if rate is not None:
        said = f"highest that kept the target: {rate:,.0f} {STEP_UNITS[over]}" if over else f"sustainable {rate:,.0f} docs/s"
        ax.axvline(rate, color="green", linewidth=1.5, label=said)
    if full and not over:
        ax.axvline(full, color="grey", linestyle="--", linewidth=1, label=f"full speed {full:,.0f} docs/s")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if str(f"{v:g}")[0] in "25" else ""))
    ax.set_xlabel(AXIS_NAMES[over])
    ax.set_ylabel("latency (ms, Rally's: from the scheduled send)")
    ax.set_title(f"Redline: {result['track']}, bulk size {result['bulk_size']}, search {result['stamp']}")
    ax.legend(fontsize=8)
    plot.caption(fig, result.get("machine_line") or MISSING, None)
    return plot.png(fig)


def write(result: dict) -> Path:
    """The chart beside ``redline.json`` and the text as ``redline.md``; the chart's path."""
    out = Path(result["dir"])
    (out / "redline.md").write_text("\n".join(lines(result)) + "\n\n![latency against offered rate](redline.png)\n")
    (out / "redline.png").write_bytes(chart(result))
    return out / "redline.png"


def _side(side: dict) -> str:
    """A probe's load side and what limited its rate (:mod:`ingestlab.rally.limits`), where they were seen."""
    limit = (side.get("limit") or {}).get("resource")
    return (side.get("verdict") or MISSING) + (f" ({limit})" if limit else "")
