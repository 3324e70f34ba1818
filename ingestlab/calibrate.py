"""``ingestlab calibrate``: how often ``compare`` is wrong here, from identical races of one setup on a warm node.

The node (on a core of its own where there are two) is warmed up by races not kept, then ``races`` races are kept
over node processes and :mod:`ingestlab.verdicts.calibration` measures each task's noise floor, false-alarm and
detection rates on them; the result is a calibration file that ``compare`` reads. ``floor_of``:
earlier calibrations whose races judge the small comparisons instead of the pool's own (rates out of sample)."""

from __future__ import annotations

import itertools
import os
import shlex
import time
from contextlib import contextmanager
from pathlib import Path

from ingestlab import compare, machine, paths, racing
from ingestlab.cluster import lifecycle
from ingestlab.cluster.versions import DEFAULT_VERSION
from ingestlab.errors import IngestlabError
from ingestlab.racing import Target
from ingestlab.rally import results
from ingestlab.report import writer
from ingestlab.verdicts import calibration, noise, stats
from ingestlab.verdicts.noise import calibration_dir
from ingestlab.warmup import warm_up

SHAPE = {"name": "ingestlab-calibrate", "http_port": 29470, "transport_port": 29570, "heap": "1g"}
DEFAULT = {
    "track": "eventdata",
    "challenge": "append-no-conflicts-index-only",
    "task": "index-append",
    "params": {"eventdata_docs": 50_000, "bulk_indexing_clients": 2, "bulk_size": 1000, "index_name": "calibration"},
}


@contextmanager
def cores_apart(cluster, log):
    """The node's threads on the last core, this process (and its Rally) on the others; undone after."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        yield "one core: node and load driver share it"
        return
    node, driver = {cores[-1]}, set(cores[:-1])
    for n in cluster.nodes:
        for task in Path(f"/proc/{n.pid}/task").iterdir():
            try:
                os.sched_setaffinity(int(task.name), node)
            except OSError:
                pass  # a thread that ended meanwhile
    os.sched_setaffinity(0, driver)
    try:
        yield f"node on core {cores[-1]}, load driver on core(s) {', '.join(map(str, sorted(driver)))}"
    finally:
        os.sched_setaffinity(0, set(cores))


def _race(target, setup: dict, stamp: str, kind: str) -> dict:
    return racing.race(
        paths.TRACKS_DIR / setup["track"],
        target,
        racing.Options(challenge=setup["challenge"], tags={"calibration": stamp, "kind": kind}, params=dict(setup["params"])),
        log=lambda *_: None,
        stream=False,
    ).race


def _figure(race: dict, task: str) -> float | None:
    return compare.task_figures(race).get(task)


@contextmanager
def _node(version: str | None, target_hosts: str | None, log):
    """(the race target, where the node runs): one the pack provisions on a core of its own, or the given hosts."""
    if target_hosts:
        yield Target(hosts=target_hosts), f"against {target_hosts}"
        return
    shape = lifecycle.Shape(**SHAPE, **({"version": version} if version else {}))
    with lifecycle.running(shape, drop_data=True, log=log) as cluster, cores_apart(cluster, log) as placement:
        yield Target(hosts=cluster.hosts), placement


def pooled(stamps: list[str], setup: dict, rally_home: Path | None = None) -> tuple[list[dict], list[list[float]]]:
    """The kept races and the warm-up series (one per node process that kept races) of earlier calibrations of the
    same setup; a race of another track, challenge or parameters is refused in one line, naming it."""
    kept, warmups = [], []
    for stamp in stamps:
        found = results.races_with_tags({"calibration": stamp, "kind": "kept"}, rally_home)
        if not found:
            raise IngestlabError(
                f"--pool {stamp}: no kept race of that calibration under {results.races_dir(rally_home or paths.rally_home())}"
            )
        for race in found:
            got = (race.get("track"), race.get("challenge"), dict(race.get("track-params") or {}))
            if got[:2] != (setup["track"], setup["challenge"]) or noise.as_text(got[2]) != noise.as_text(setup["params"]):
                raise IngestlabError(
                    f"--pool {stamp}: race {race.get('race-id')} ran {got[0]} / {got[1]} with {got[2]}, not this "
                    f"calibration's {setup['track']} / {setup['challenge']} with {setup['params']}"
                )
        kept += found
        # each node process's warm-up: a run of warm-up races, ended by the kept races that followed it
        series = sorted(
            found + results.races_with_tags({"calibration": stamp, "kind": "warm-up"}, rally_home), key=lambda r: r["race-timestamp"]
        )
        runs = [(was_kept, list(run_)) for was_kept, run_ in itertools.groupby(series, key=lambda r: r["user-tags"].get("kind") == "kept")]
        for i, (was_kept, run_) in enumerate(runs):
            if not was_kept and i + 1 < len(runs):  # a warm-up that no kept race followed: a node process that never settled
                warmups.append([w for w in (_figure(r, setup["task"]) for r in run_) if w is not None])
    return kept, warmups


def _command(races, setup, agree, tolerance, processes, target_hosts, version, pool_from, most_warmup=15, floor_of=()) -> str:
    """The command line that runs this calibration again, every setting given (with no race run, only the judging)."""
    words = ["ingestlab", "calibrate", "--races", str(races)]
    words += ["--agree", str(agree), "--tolerance", f"{tolerance * 100:g}", "--most-warm-up", str(most_warmup)] if races else []
    words += ["--track", setup["track"], "--challenge", setup["challenge"], "--task", setup["task"]]
    words += [w for k, v in setup["params"].items() for w in ("--track-param", f"{k}={v}")]
    if races:
        words += ["--target-hosts", target_hosts] if target_hosts else ["--node-processes", str(processes)]
        words += ["--version", version] if version else []
    words += [w for s in pool_from or [] for w in ("--pool", s)]
    words += [w for s in floor_of or () for w in ("--floor-of", s)]
    return shlex.join(words)


def earlier_floor(stamp: str, setup: dict, version: str | None) -> dict:
    """The calibration ``stamp`` whose races judge this one's small comparisons, refused in one line unless of the same
    setup on this machine (and ``version``, where known)."""
    path = calibration_dir() / stamp / "results.json"
    if not path.is_file():
        raise IngestlabError(f"--floor-of {stamp}: no calibration file {path}")
    data, _ = noise.find(setup["track"], None, version, path, params=setup["params"])  # refuses another machine, track, version or work
    why = next(
        (f"it calibrated {key} {data.get(key)}, this one {setup[key]}" for key in ("challenge", "task") if data.get(key) != setup[key]),
        None,
    )
    if why:
        raise IngestlabError(f"--floor-of {stamp}: not the same setup here: {why}")
    own = noise.own_medians(data)
    if len(own) < 3:
        raise IngestlabError(
            f"--floor-of {stamp}: it raced {len(own)} races of {setup['task']} of its own"
            + (" (it judged earlier calibrations' races again: give theirs)" if data.get("pooled") else "")
            + ", at least 3 are needed"
        )
    return data


def run(
    races: int = 120,
    agree: int = 3,
    tolerance: float = 0.05,
    most_warmup: int = 15,
    version: str | None = None,
    setup: dict | None = None,
    processes: int = 2,
    target_hosts: str | None = None,
    pool_from: list[str] | None = None,
    floor_of: list[str] | None = None,
    log=print,
) -> dict:
    """``target_hosts``: calibrate that cluster (one node process) instead of one the pack provisions. ``pool_from``:
    earlier calibrations whose kept races join the pool; ``floor_of``: earlier calibrations whose races judge the
    comparisons of fewer than 3 a side (:func:`ingestlab.verdicts.noise.floor_across`)."""
    setup = setup or DEFAULT
    floor_of = list(dict.fromkeys(floor_of or []))
    for stamp_ in floor_of:
        if stamp_ in (pool_from or []):
            raise IngestlabError(f"--floor-of {stamp_} and --pool {stamp_}: a floor judges races it did not race, not its own")
    floor = [earlier_floor(s, setup, None if target_hosts or not races else (version or DEFAULT_VERSION)) for s in floor_of]
    stamp, started = time.strftime("%Y-%m-%dT%H%M%S"), time.monotonic()
    pool, warmups = pooled(pool_from or [], setup)
    earlier = len(pool)
    if earlier:
        log(f"[ingestlab] calibration: {earlier} kept races of {', '.join(pool_from)} join the pool")
    placement = "no race run: the pooled races judged again by this commit's rule" if not races else ""
    processes = 1 if target_hosts else processes
    shares = [races // processes + (1 if i < races % processes else 0) for i in range(processes)] if races else []
    for half in shares:  # the races spread over node processes (the node restarted and warmed again for each)
        with _node(version, target_hosts, log) as (target, node_placement):
            placement = node_placement
            try:
                warmups.append(
                    warm_up(
                        lambda: _figure(_race(target, setup, stamp, "warm-up"), setup["task"]),
                        agree,
                        tolerance,
                        "calibration",
                        log,
                        most_warmup,
                    )
                )
            except IngestlabError as e:
                if len(pool) > earlier:  # a later node process did not settle: the races kept so far are not lost
                    again = " ".join(f"--pool {s}" for s in [*(pool_from or []), stamp])
                    raise IngestlabError(
                        f"{e}. The {len(pool) - earlier} races kept before it are stored: `ingestlab calibrate "
                        f"--races 0 --track {setup['track']} --challenge {setup['challenge']} --task {setup['task']} "
                        f"{again}` judges them"
                    ) from None
                raise
            for _ in range(half):
                race = _race(target, setup, stamp, "kept")
                pool.append(race)
                rate = _figure(race, setup["task"])
                log(
                    f"[ingestlab] calibration race {len(pool) - earlier}/{races}: "
                    + (f"{rate:,.0f} docs/s" if rate is not None else "no throughput (missing)")
                )
    data = analyse(pool, setup, stamp, warmups, placement, time.monotonic() - started, floor)
    data["command"] = _command(races, setup, agree, tolerance, processes, target_hosts, version, pool_from, most_warmup, floor_of)
    if pool_from:
        data["conditions"] += f"; {earlier} of the races kept by calibration(s) {', '.join(pool_from)} (same setup, " + (
            "earlier node processes)" if races else "their node processes)"
        )
        data["pooled"] = {"stamps": list(pool_from), "races": earlier}
    out = writer.write(calibration_dir() / stamp, "ingestlab compare calibration", markdown(data), [], data)
    log(markdown(data))
    log(f"[ingestlab] calibration written to {out}/results.json")
    return data


def analyse(
    pool: list[dict], setup: dict, stamp: str, warmups: list, placement: str, seconds: float, floor: list[dict] | None = None
) -> dict:
    """The calibration file's content from the kept races; ``floor``: as :func:`run`'s ``floor_of`` (else the pool's
    other races)."""
    per_task: dict[str, list[float]] = {}
    times: list[str] = []  # the calibrated task's races' starts
    for race in sorted(pool, key=lambda r: str(r.get("race-timestamp", ""))):
        for task, value in compare.task_figures(race).items():
            per_task.setdefault(task, []).append(value)
            if task == setup["task"]:
                times.append(str(race.get("race-timestamp", "")))
    main = per_task.get(setup["task"], [])
    spread = calibration.sigma(main)
    need = calibration.races_a_side(spread, len(main)) if spread else {}
    first = pool[0] if pool else {}
    version = (first.get("cluster") or {}).get("distribution-version")
    for earlier in floor or ():
        if version and earlier["versions"].get("version") != version:
            raise IngestlabError(
                f"--floor-of {earlier['stamp']}: measured on Elasticsearch {earlier['versions'].get('version')}, these "
                f"races on {version}; `ingestlab calibrate --races 0 --pool {stamp}` judges them against their own races"
            )
    given = noise.floor_across(sorted(floor, key=lambda d: d["stamp"], reverse=True), setup["task"], "this machine") if floor else None
    judged = ""
    if given:
        judged = f"; comparisons of 1 and 2 races a side judged against the noise floor of {given.source}, σ {given.sigma:.1%} "
        judged += "(out of sample), not the pool's own"
    return {
        "format": 2,
        "stamp": stamp,
        "track": setup["track"],
        "challenge": setup["challenge"],
        "task": setup["task"],
        "params": dict(first.get("track-params") or setup["params"]),  # the work its races did: a floor judges only races that did the same
        "command": "",  # the caller's: the command line that runs the calibration again
        "conditions": f"{len(pool)} identical races kept on a warm node, {len(warmups)} node process(es), {placement}{judged}",
        "tasks": {t: {"sigma": calibration.sigma(v), "races": len(v)} for t, v in per_task.items() if calibration.sigma(v)},
        "rates": calibration.rates(main, calibration.sizes(need, len(main)), floor=given, times=times if all(times) else None),
        "races_a_side": need,
        **({"floor_of": [d["stamp"] for d in floor], "floor_sigma": given.sigma} if given else {}),
        "machine": machine.describe(),
        "versions": {"engine": "elasticsearch", "version": version, "rally": first.get("rally-version")},
        "medians": main,
        "times": times,
        "warmups": warmups,
        "race_ids": [r.get("race-id") for r in pool],
        "seconds": seconds,
    }


def rate_cell(k: int, n: int) -> str:
    """A measured rate as a table cell: the count, the rate and its exact 95 % interval (— when nothing was counted)."""
    if not n:
        return "—"
    low, high = stats.clopper_pearson(k, n)
    return f"{k}/{n} ({k / n:.0%}; 95 % interval {low:.0%}–{high:.0%})"


def markdown(data: dict) -> str:
    m = data["tasks"].get(data["task"], {})
    lines = [
        f"## compare, calibrated on this machine ({data['stamp']})",
        "",
        f"`{data['command']}`: {data['conditions']}; Elasticsearch {data['versions']['version']}; {machine.one_line(data['machine'])}; "
        f"{data['seconds'] / 60:,.0f} minutes. Noise floor of {data['task']}: σ "
        + (f"{m['sigma']:.1%}" if m.get("sigma") else "missing")
        + f" of log race medians "
        f"over {m.get('races')} races. Warm-up races (not kept): "
        + "; ".join(f"{len(w)} ({calibration.drift_ratio(w):.2f}× first to last)" for w in data["warmups"])
        + ".",
        "",
        "| races a side | sides | comparisons (disjoint) | false alarms (A/A) | a 5 % change found | a 10 % change found |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for size, got in data["rates"].items():
        chosen = " (what `ab` races for a 10 % change)" if size not in ("1", "3") else ""
        for design, counts in (
            ("shuffled splits", got),
            ("blocks, one after the other", got.get("blocks")),
            ("pairs of consecutive races, as `ab` races", got.get("pairs")),
        ):
            if counts:
                cells = [rate_cell(*counts[key]) for key in ("false_alarms", "detect_5", "detect_10")]
                lines.append(f"| {size}{chosen} | {design} | {counts['false_alarms'][1]} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Races a side to find a change with ≥ 90 % power at a 5 % level (from σ):",
        "",
        "| change | against this noise floor | without one (Welch, 3 or more) |",
        "|---:|---:|---:|",
    ]
    for effect, need in data["races_a_side"].items():
        lines.append(f"| {effect} % | {need['with_floor'] or '> 100'} | {need['welch'] or '> 100'} |")
    return "\n".join(lines) + "\n"
