"""``python -m devtools.bench dose``: a real change of known cause, and how often ``compare`` finds it here.

The node runs on a core of its own (the load driver on the others, as in every calibration) inside a CPU group of
its own (cgroup v1, ``ingestlab-calibrate-dose/node``). Each dose is that group's CPU quota: the first the node's whole
core (no throttling), each other a share of it (``0.9``: 90 ms of every 100 ms). The doses are raced in blocks, each
block every dose once in a seeded random order, so drift during the session falls on every dose alike; each node
process is warmed at the whole core first, and the races spread over ``processes`` node processes (the node restarted
and warmed again for each: a node restarted before every race would measure its warm-up, several-fold here).

What a quota does to the throughput is measured, not assumed (an earlier calibration's "10 % change" of the quota made
the node 3.3 % slower): each dose's change against the whole core, with Welch's interval over all its races; then
``compare``'s default rule judges disjoint comparisons of 1, 3 and more races a side (A/A within a dose, whole core
against each dose) by :func:`dose_response`. The group is taken away when the races end,
also after a failure; one a crashed run left is taken away before the next starts.
"""

from __future__ import annotations

import random
import shlex
import statistics
import time
from contextlib import contextmanager, suppress

from devtools import ledger
from devtools.ledger import runs
from ingestlab import calibrate, cgroup_v1
from ingestlab.errors import IngestlabError
from ingestlab.verdicts import calibration, stats
from ingestlab.verdicts.noise import calibration_dir
from ingestlab.warmup import warm_up

PREFIX = "calibrate-dose"


def check_doses(doses: list[float]) -> list[float]:
    """The doses as given, the whole core first; a dose outside (0, 1] or given twice is refused in one line."""
    for d in doses:
        if not 0 < d <= 1:
            raise IngestlabError(f"--dose {d:g}: a share of the node's core, above 0 and at most 1 (0.9: 90 % of it)")
    if len(set(doses)) != len(doses):
        raise IngestlabError(f"--dose {', '.join(f'{d:g}' for d in doses)}: a dose given twice")
    return [1.0] + [d for d in doses if d != 1.0]


def order(doses: list[float], blocks: int, seed: str) -> list[float]:
    """``blocks`` blocks, each every dose once in a random order (seeded: the same stamp races the same order)."""
    rng = random.Random(seed)
    out = []
    for _ in range(blocks):
        block = list(doses)
        rng.shuffle(block)
        out += block
    return out


@contextmanager
def node_group(cluster):
    """The cluster's nodes in a CPU group of their own for the length of the block; back in the groups they were in
    after it, and the group taken away."""
    from ingestlab.hosts import cgroups

    reason = cgroups.unavailable_reason()
    if reason:
        raise IngestlabError(f"--dose: {reason}")
    cgroups.remove(PREFIX)  # one a crashed run left
    group = cgroups.Group(PREFIX, "node")
    homes = {n.pid: cgroup_v1.groups_of(n.pid) for n in cluster.nodes}
    try:
        group.create(cpus=None, memory_bytes=None)
        for pid in homes:  # every thread of it, in every controller; a refused write named as the pack names it
            for f in group.procs_files:
                cgroups._write(f, pid)
        yield group
    finally:
        for pid, home in homes.items():  # back in the groups it was in, if it lives
            for controller in set(home) & set(cgroups.CONTROLLERS):
                with suppress(OSError):
                    (cgroups.mounts()[controller] / home[controller].lstrip("/") / "cgroup.procs").write_text(str(pid))
        cgroups.remove(PREFIX)


def _command(races, doses, setup, agree, tolerance, most_warmup, processes, version) -> str:
    words = [
        "python",
        "-m",
        "devtools.bench",
        "dose",
        "--races",
        str(races),
        "--dose",
        ",".join(f"{d:g}" for d in doses[1:]),
        "--agree",
        str(agree),
        "--tolerance",
        f"{tolerance * 100:g}",
        "--most-warm-up",
        str(most_warmup),
        "--track",
        setup["track"],
        "--challenge",
        setup["challenge"],
        "--task",
        setup["task"],
    ]
    words += [w for k, v in setup["params"].items() for w in ("--track-param", f"{k}={v}")]
    words += ["--node-processes", str(processes)] + (["--version", version] if version else [])
    return shlex.join(words)


def run(
    races: int,
    doses: list[float],
    setup: dict,
    agree: int = 3,
    tolerance: float = 0.05,
    most_warmup: int = 15,
    version: str | None = None,
    processes: int = 2,
    log=print,
) -> dict:
    """Race ``races`` kept races (a whole number of blocks) over ``processes`` node processes; write and record the
    calibration (its floor and false alarms from the whole core's races, as ``calibrate`` writes them, and the doses')."""
    from ingestlab.cluster import lifecycle
    from ingestlab.racing import Target
    from ingestlab.report import writer

    doses = check_doses(doses)
    if races % len(doses):
        raise IngestlabError(f"--races {races}: a multiple of the {len(doses)} doses (each block races every dose once)")
    blocks = races // len(doses)
    if processes > blocks:
        raise IngestlabError(
            f"--node-processes {processes}: at most the {blocks} blocks of {len(doses)} races (each node process races whole blocks)"
        )
    stamp, started = time.strftime("%Y-%m-%dT%H%M%S"), time.monotonic()
    plan = order(doses, blocks, stamp)
    cuts = [round(blocks * i / processes) * len(doses) for i in range(processes + 1)]  # whole blocks per node process
    kept: list[tuple[float, dict, dict]] = []  # (dose, race, the node group's CPU figures over it)
    warmups, placement = [], ""
    for lo, hi in zip(cuts, cuts[1:]):
        shape = lifecycle.Shape(**calibrate.SHAPE, **({"version": version} if version else {}))
        with (
            lifecycle.running(shape, drop_data=True, log=log) as cluster,
            calibrate.cores_apart(cluster, log) as cores_placement,
            node_group(cluster) as group,
        ):
            placement = cores_placement
            target = Target(hosts=cluster.hosts)
            warmups.append(
                warm_up(
                    lambda: calibrate._figure(calibrate._race(target, setup, stamp, "warm-up"), setup["task"]),
                    agree,
                    tolerance,
                    "calibration",
                    log,
                    most_warmup,
                )
            )
            for dose in plan[lo:hi]:
                group.set_cpus(None if dose == 1.0 else dose)
                before = group.stats()
                race = calibrate._race(target, setup, stamp, f"kept-{dose:g}")
                after = group.stats()
                kept.append((dose, race, {k: after[k] - before[k] for k in ("usage_ns", "nr_periods", "nr_throttled")}))
                rate = calibrate._figure(race, setup["task"])
                log(
                    f"[ingestlab] calibration race {len(kept)}/{races}, node quota {dose:g} core: "
                    + (f"{rate:,.0f} docs/s" if rate is not None else "no throughput (missing)")
                    + f", throttled in {kept[-1][2]['nr_throttled']} of {kept[-1][2]['nr_periods']} periods"
                )
    base = [race for dose, race, _ in kept if dose == 1.0]
    placement += f"; the node in a CPU group of its own, its quota per race: {', '.join(f'{d:g}' for d in doses)} core, in random blocks"
    data = calibrate.analyse(base, setup, stamp, warmups, placement, time.monotonic() - started)
    data["conditions"] = data["conditions"].replace(
        f"{len(base)} identical races", f"{len(base)} identical races (whole core) of {len(kept)}"
    )
    data["command"] = _command(races, doses, setup, agree, tolerance, most_warmup, processes, version)
    data["dose"] = analyse(kept, setup["task"], doses)
    out = writer.write(calibration_dir() / stamp, "ingestlab compare calibration", calibrate.markdown(data) + markdown(data), [], data)
    log(calibrate.markdown(data) + markdown(data))
    log(f"[ingestlab] calibration written to {out}/results.json")
    to_ledger(data)
    return data


def analyse(kept: list[tuple[float, dict, dict]], task: str, doses: list[float]) -> dict:
    """Each dose's race medians (in race order), the node group's CPU use and throttling, and the rates."""
    values = {f"{d:g}": [v for dose, race, _ in kept if dose == d and (v := calibrate._figure(race, task)) is not None] for d in doses}
    cpu = {}
    for d in doses:
        got = [c for dose, _, c in kept if dose == d]
        periods = sum(c["nr_periods"] for c in got)
        cpu[f"{d:g}"] = {
            "cpu_seconds": sum(c["usage_ns"] for c in got) / 1e9 / max(len(got), 1),
            "throttled": sum(c["nr_throttled"] for c in got) / periods if periods else None,
        }
    return {
        "doses": [f"{d:g}" for d in doses],
        "medians": values,
        "cpu": cpu,
        "races": [{"dose": f"{d:g}", "race_id": race.get("race-id")} for d, race, _ in kept],
        **dose_response(values),
    }


def _figures(data: dict) -> dict:
    out = runs.calibration_figures(data)
    dose = data["dose"]
    for d in dose["doses"]:
        key = f"dose{round(float(d) * 100)}"
        got = dose["by_dose"][d]
        out[f"{key}-races"] = ledger.Figure(got["races"], "races", f"races at a node quota of {d} core")
        out[f"{key}-median"] = ledger.Figure(round(got["median"]) if got["median"] else None, "docs/s", f"median race, node quota {d} core")
        throttled = dose["cpu"][d]["throttled"]
        out[f"{key}-throttled"] = ledger.Figure(
            None if throttled is None else round(100 * throttled, 1), "%", f"CFS periods the node was throttled in, quota {d} core"
        )
        if "change" in got:
            for part in ("change", "low", "high"):
                v = got["change"][part]
                out[f"{key}-{part}"] = ledger.Figure(
                    None if v is None else round(100 * v, 2), "%", f"quota {d} against the whole core: {part} (Welch, 95 %, all races)"
                )
        for size, counts in got["rates"].items():
            for what, (k, n) in counts.items():
                out.update(runs.rate_figures(f"{key}-{size}-{what}", f"quota {d}, {size} race(s) a side: {what.replace('_', ' ')}", k, n))
    for size in dose["sizes"]:  # the A/A comparisons of every quota together: disjoint, each within one quota
        counts = [dose["by_dose"][d]["rates"][size]["false_alarms"] for d in dose["doses"] if size in dose["by_dose"][d]["rates"]]
        out.update(
            runs.rate_figures(
                f"dose-all-{size}-false_alarms",
                f"every quota, {size} race(s) a side: false alarms (A/A within a quota)",
                sum(k for k, _ in counts),
                sum(n for _, n in counts),
            )
        )
    return out


def to_ledger(data: dict) -> None:
    ledger.record(**runs.calibration(data, _figures))


def markdown(data: dict) -> str:
    dose = data["dose"]
    lines = [
        "",
        "### A real change: the node's CPU quota",
        "",
        "| node quota (core) | races | median race (docs/s) | throttled periods | change against the whole core (95 %) |",
        "|---:|---:|---:|---:|---:|",
    ]
    for d in dose["doses"]:
        got, cpu = dose["by_dose"][d], dose["cpu"][d]
        change = got.get("change")
        said = (
            f"{change['change']:+.1%} ({change['low']:+.1%} to {change['high']:+.1%})" if change and change["change"] is not None else "—"
        )
        throttled = "—" if cpu["throttled"] is None else f"{cpu['throttled']:.0%}"
        median = f"{got['median']:,.0f}" if got["median"] else "missing"
        lines.append(f"| {d} | {got['races']} | {median} | {throttled} | {said} |")
    lines += [
        "",
        "| node quota | races a side | false alarms (A/A, this quota) | its change found (against the whole core) |",
        "|---:|---:|---:|---:|",
    ]
    for d in dose["doses"]:
        for size, counts in dose["by_dose"][d]["rates"].items():
            cells = [calibrate.rate_cell(*counts[what]) if what in counts else "—" for what in ("false_alarms", "found")]
            lines.append(f"| {d} | {size} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def dose_response(values: dict[str, list[float]], seed: int = 1) -> dict:
    """``values``: each dose's race medians, the baseline first. Per dose: its races, median, σ, false alarms among its
    own races, and (for the others) its change against the baseline (Welch) and how often disjoint comparisons find it."""
    doses = list(values)
    base = values[doses[0]]
    spread = calibration.sigma(base)
    chosen = calibration.sizes(calibration.races_a_side(spread, len(base)) if spread else {}, 2 * min(len(v) for v in values.values()))
    out = {}
    for dose in doses:
        own = values[dose]
        alarms = calibration.rates(own, tuple(s for s in chosen if 2 * s <= len(own)), seed)
        got = {
            "races": len(own),
            "median": statistics.median(own) if own else None,
            "sigma": calibration.sigma(own),
            "rates": {s: {"false_alarms": c["false_alarms"]} for s, c in alarms.items()},
        }
        if dose != doses[0]:
            w = stats.welch(base, own)
            got["change"] = {k: getattr(w, k) if w else None for k in ("change", "low", "high", "p")}
            for s in chosen:
                if s <= min(len(base), len(own)):
                    got["rates"].setdefault(str(s), {})["found"] = found(base, own, s, seed)
        out[dose] = got
    return {"by_dose": out, "sizes": [str(s) for s in chosen]}


def found(base: list[float], cont: list[float], size: int, seed: int = 1) -> list[int]:
    """[k, n]: disjoint comparisons of ``size`` baseline races against ``size`` contender races (each side's races
    shuffled once, seeded, and cut in turn) that the default rule calls slower; with fewer than 3 a side against the
    baseline's races outside the comparison."""
    a_order, b_order = list(range(len(base))), list(range(len(cont)))
    random.Random(seed).shuffle(a_order)
    random.Random(seed + 1).shuffle(b_order)
    k = n = 0
    for i in range(0, min(len(base), len(cont)) - size + 1, size):
        a, b = a_order[i : i + size], b_order[i : i + size]
        rest = [base[j] for j in range(len(base)) if j not in a]
        k += calibration._call([base[j] for j in a], [cont[j] for j in b], calibration._floor(rest, size)) == "slower"
        n += 1
    return [k, n]
