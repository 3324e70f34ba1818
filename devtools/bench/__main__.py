"""``python -m devtools.bench``: the pack's measurements of itself, run from a checkout.

    python -m devtools.bench overhead     the pack's Rally race beside a minimal client, interleaved, on one node
    python -m devtools.bench load         the load side alone: generators, converters, body preparation
    python -m devtools.bench changepoints the nightly's change-point and drop rules by simulation with this machine's noise
    python -m devtools.bench redline      the redline search against a dense scan of the same setup on one warm node
    python -m devtools.bench dose         a calibration with a real change of known cause: the node's CPU quota
    python -m devtools.bench sessions     several calibration sessions' rates summed
    python -m devtools.bench nightly      the nightly, with the pack's cost beside a minimal client (--overhead)
    python -m devtools.bench blocks       compare's rule on sides raced one block after the other, simulated
    python -m devtools.bench sampling     what the load side's sampling during a race costs, on and off in pairs
    python -m devtools.bench limits       the limit verdicts docs/limits.md quotes, a known bottleneck a race

Each writes its ledger entry (:mod:`devtools.ledger`), unless ``INGESTLAB_LEDGER=off``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from devtools.bench import loadbench
from ingestlab.cli import options
from ingestlab.errors import IngestlabError

PROG = "python -m devtools.bench"
LOADS = tuple(loadbench.STUDIES)
SHAPE = {"name": "ingestlab-bench", "http_port": 29270, "transport_port": 29370}
REDLINE_SHAPE = {"name": "ingestlab-bench-redline", "http_port": 29475, "transport_port": 29575}


def command_line(argv: list[str] | None = None) -> str:
    """The command as run (``argv``: default this process's arguments), for a report or a ledger entry."""
    return " ".join([PROG, *(sys.argv[1:] if argv is None else argv)])


def cmd_overhead(args) -> int:
    from devtools.bench import overhead
    from ingestlab.cluster import lifecycle

    def measure(hosts: str, url: str, data_note: str | None = None) -> None:
        text, data = overhead.run(
            hosts,
            url,
            rounds=args.rounds,
            runs=args.runs,
            scale=args.scale,
            tasks=args.tasks,
            warmup_rounds=args.warmup_rounds,
            data_note=data_note,
            max_rounds=args.max_rounds,
            width=args.width,
        )
        from devtools.bench import overhead_report

        out = overhead.write(text, data)
        print(text)
        print(f"[ingestlab] overhead report: {out}/report.md and results.json")
        overhead_report.to_ledger(data, out.name, command_line(), data_note)

    overhead.chosen_tasks(args.runs, args.scale, args.tasks)  # an unknown task is named before a node starts
    _check_rounds(args)
    if args.target_hosts:
        measure(args.target_hosts, f"http://{args.target_hosts.split(',')[0]}")
        return 0
    in_memory = None if args.data_dir else overhead.in_memory_data_dir()
    data_dir = args.data_dir or in_memory
    note = (
        f"The node kept its data in memory ({in_memory}, a tmpfs), so no side's figures carry the disk's fsync times "
        "(`--data-dir` puts it on a disk)."
        if in_memory
        else f"The node kept its data in {data_dir or 'INGESTLAB_HOME'}."
    )
    try:
        with lifecycle.running(options.shape(args, **SHAPE, data_dir=str(data_dir) if data_dir else None)) as cluster:
            measure(cluster.hosts, cluster.url, note)
    finally:
        if in_memory:  # memory, not disk: give it back now, also after an error or Ctrl-C
            shutil.rmtree(in_memory, ignore_errors=True)
    return 0


def cmd_sampling(args) -> int:
    from devtools.bench import sampling
    from ingestlab.cluster import lifecycle

    def measure(hosts: str) -> None:
        data = sampling.run(hosts, args.pairs)
        text = sampling.report(data)
        out = sampling.write(text, data)
        print(text)
        print(f"[ingestlab] sampling report: {out}/report.md and results.json")
        sampling.to_ledger(data, out.name, command_line())

    if 0 < args.pairs < 6 or args.pairs < 0:
        raise IngestlabError(f"--pairs {args.pairs}: at least 6, the fewest with a 95% interval of the median (0: the CPU a look only)")
    if args.target_hosts:
        measure(args.target_hosts)
        return 0
    with lifecycle.running(options.shape(args, **SHAPE)) as cluster:
        measure(cluster.hosts)
    return 0


def cmd_limits(args) -> int:
    import time

    from devtools.bench import limits_cases

    data = limits_cases.run()
    limits_cases.to_ledger(data, time.strftime("%Y-%m-%dT%H%M", time.gmtime()), command_line())
    return 0


def _check_rounds(args) -> None:
    for name, value in (("--rounds", args.rounds), ("--runs", args.runs)):
        if value < 1:
            raise IngestlabError(f"{name} {value}: at least 1")
    if not args.width > 0:
        raise IngestlabError(f"--width {args.width}: an interval's width, more than 0 (0.10: a 5% cost told from none)")


def cmd_load(args) -> int:
    chosen = LOADS if args.study == "all" else (args.study,)
    figures = {s: loadbench.STUDIES[s](args.docs, args.bulk_size) for s in chosen}
    if args.memory:
        from devtools.bench import memory

        peaks = memory.measure(
            [k for k in [*memory.KINDS, *memory.WORKERS] if k.split("-")[0] in chosen],
            scale=args.memory,
            base=args.docs,
            worker_scale=args.worker_scale,
        )
        for s in chosen:
            figures[s]["peak_rss"] = {k: v for k, v in peaks.items() if k.split("-")[0] == s}
    print(json.dumps(figures if args.study == "all" else figures[args.study], indent=2))
    entry = _to_ledger(figures, args)
    if entry:
        print(f"[ingestlab] ledger entry {entry}")
    return 0


UNITS = {
    "rows_per_s": "rows/s",
    "docs_per_s": "docs/s",
    "pages_per_s": "pages/s",
    "mb_per_s": "MB/s",
    "ratio": "×",
    "over_single_stream": "×",
}


def _to_ledger(figures: dict, args):
    """The rates the load bench measured, flattened (``dvf.etalab.rows_per_s``), as a ledger entry."""
    import time

    from devtools import ledger

    flat = {}

    def walk(prefix: str, value) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else k, v)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            unit = next((u for suffix, u in UNITS.items() if prefix.endswith(suffix) or f"{suffix}_" in prefix), None)
            if unit:
                flat[prefix] = ledger.Figure(round(float(value), 3), unit, prefix.replace("_", " "))

    walk("", figures)
    if not flat:
        return None
    measure = "; ".join(sorted({v["measure"] for v in figures.values() if isinstance(v, dict) and "measure" in v}))
    return ledger.record(time.strftime("%Y-%m-%dT%H%M%S") + "-load", "bench load", command_line(), flat, conditions=measure)


def _add_load(p) -> None:
    p.add_argument("study", nargs="?", default="posts", choices=[*LOADS, "all"])
    p.add_argument(
        "--docs", type=int, help="documents (posts, default 100000; eventdata 200000), rows (dvf, 100000) or pages (wikipedia, 20000)"
    )
    p.add_argument("--bulk-size", type=int, default=1000)
    p.add_argument(
        "--memory",
        type=int,
        nargs="?",
        const=10,
        default=None,
        metavar="SCALE",
        help="also the peak RSS of each generator and converter at 1x and SCALE x (default 10) its input, "
        "and of a load-driver worker's writers at 1x and --worker-scale x their corpus, "
        "each in a child process of its own (a few minutes)",
    )
    p.add_argument(
        "--worker-scale",
        type=int,
        default=100,
        metavar="SCALE",
        help=f"with --memory: a worker's corpus at 1x ({20_000:,} docs) and SCALE x (default 100)",
    )
    p.set_defaults(func=cmd_load)


def cmd_changepoints(args) -> int:
    from devtools.bench import simulate as changepoint_sim
    from devtools.bench import sources
    from ingestlab.nightly import measured
    from ingestlab.verdicts import noise

    sigma = args.sigma / 100.0 if args.sigma else None
    source, races, sessions, pairs = "--sigma", (), (), ()
    paired = "--ab" if args.ab else "--nightly" if args.nightly else None
    if paired and (args.sessions or args.sigma or args.calibration or args.normal or (args.ab and args.nightly)):
        raise IngestlabError(
            f"{paired} draws nights from the sessions named: not with --sessions, --sigma, --calibration, --normal "
            f"or {'--nightly' if args.ab else '--ab'}"
        )
    if args.unpaired and not paired:
        raise IngestlabError("--unpaired takes one side of the --ab sessions or --nightly nights: name them")
    if paired:
        sigma, source, pairs = (
            sources.ab_sessions(args.ab, args.track, args.task)
            if args.ab
            else sources.nightly_sessions(args.nightly, args.track, args.task)
        )
        if args.unpaired:  # the same sessions as a nightly without a reference would see them: ab's baseline, the night's setup
            side = 1 if args.nightly else 0
            sessions, pairs = tuple(tuple(p[side] for p in s) for s in pairs), ()
            source, sigma = ("the setup's side of " if args.nightly else "the baseline side of ") + source, sources.sigma_around(sessions)
    elif args.sessions:
        if args.sigma or args.calibration or args.normal:
            raise IngestlabError(
                "--sessions draws from every calibration session of --track/--task here: not with --sigma, --calibration or --normal"
            )
        sigma, source, sessions = sources.calibration_sessions(args.track, args.task)
    if sigma is None:
        found, _ = noise.find(args.track, None, None, Path(args.calibration) if args.calibration else None)
        if not found or args.task not in found.get("tasks", {}):
            raise IngestlabError(
                f"no calibration of {args.track}/{args.task} on this machine for its noise: give --sigma PERCENT, or run "
                f"`ingestlab calibrate` first"
            )
        floor = noise.floor_of(found, args.task, "this machine")
        sigma, source, races = floor.sigma, f"calibration {found['stamp']}", () if args.normal else floor.logs
    basis = None
    if args.nightly:
        setup, full_size, reference = sources.nightly_kind(args.nightly, args.track)
        basis = measured.Basis(args.track, args.task, setup, "" if args.unpaired else reference, full_size, args.repeat)
    if args.series < 10 or args.nights < 6:
        raise IngestlabError("--series at least 10 and --nights at least 6")
    if args.repeat < 1:
        raise IngestlabError(f"--repeat {args.repeat}: at least 1 race a night")
    fewest = min((len(s) for s in pairs or sessions), default=None)
    if fewest is not None and args.repeat > fewest:
        raise IngestlabError(
            f"--repeat {args.repeat}: the sessions drawn from had as few as {fewest} {'pairs' if pairs else 'races'}; a simulated night "
            "draws no more than a real one had"
        )
    if not 1 <= args.per_report <= args.series:
        raise IngestlabError(f"--per-report {args.per_report}: from 1 to --series ({args.series})")
    data = changepoint_sim.simulate(
        sigma,
        args.series,
        args.nights,
        args.step / 100.0,
        args.after,
        repeat=args.repeat,
        races=races,
        sessions=sessions,
        pairs=pairs,
        per_report=args.per_report,
    )
    print(changepoint_sim.markdown(data, source) + f"- σ from {source}.")
    command = command_line()
    run = changepoint_sim.to_ledger(data, command, source, tuple(args.nightly or ()))
    if basis:  # kept for the nights raced as these were, whose reports quote it
        print(f"- kept for nights of {basis.what()}: {measured.save(run, basis, data, command, args.nightly)}")
    return 0


def cmd_redline(args) -> int:
    """The redline search against a dense scan, on one node the pack provisions (or the given hosts)."""
    from contextlib import ExitStack

    from devtools.bench import redline_scan
    from ingestlab import studies
    from ingestlab.cli.redline_cmd import target_for
    from ingestlab.redline import target
    from ingestlab.report import writer

    study = studies.get(args.study)
    latency = target.parse(args.latency)
    if not 0 < args.resolution <= 100 or not 0 < args.low < 1 or args.probes < 1:
        raise IngestlabError(
            "--resolution: a percentage above 0, at most 100; --low: a share of full speed between 0 and 1; --probes: at least 1"
        )
    with ExitStack() as stack:
        where = target_for(args, study, REDLINE_SHAPE, stack)
        result = redline_scan.run(
            study.track,
            latency,
            where,
            params=options.track_params(args),
            resolution=args.resolution / 100.0,
            low=args.low,
            probes_per_step=args.probes,
            clients=args.clients,
            label=study.name,
            command=writer.command_line(sys.argv[1:], PROG),
        )
    print(redline_scan.markdown(result))
    print(f"[ingestlab] bench redline: {result['dir']}/result.json")
    return 0


def _add_changepoints(kinds) -> None:
    cp = kinds.add_parser(
        "changepoints",
        help="the nightly's change-point rule by simulation with this machine's noise: false change "
        "points in series with none, and how often a step is found within a few nights",
    )
    cp.add_argument("--sigma", type=float, metavar="PERCENT", help="σ of log race medians (default: the calibration's, --track/--task)")
    cp.add_argument("--track", default="eventdata")
    cp.add_argument("--task", default="index-append")
    cp.add_argument("--series", type=int, default=300, help="series of each kind (default 300)")
    cp.add_argument("--nights", type=int, default=30, help="nights before the step, and of a series with none (default 30)")
    cp.add_argument("--step", type=float, default=10.0, metavar="PERCENT", help="the drop (default 10)")
    cp.add_argument("--after", type=int, default=3, help="nights after the step by which it must be found (default 3)")
    cp.add_argument(
        "--per-report",
        type=int,
        default=6,
        metavar="N",
        help="series a night's report judges together, for the rate of reports that raise a false alert (default 6)",
    )
    cp.add_argument(
        "--repeat", type=int, default=1, help="races a night, the night's figure their median, as `nightly --repeat` (default 1)"
    )
    cp.add_argument("--calibration", metavar="FILE", help="the calibration whose races to draw from (default: the newest of --track here)")
    cp.add_argument(
        "--normal",
        action="store_true",
        help="normal draws at the calibration's σ instead of its own races (whose skew and slow races the default keeps)",
    )
    cp.add_argument(
        "--sessions",
        action="store_true",
        help="each night one of the calibration sessions of --track/--task here, drawn at "
        "random, its races drawn from that session alone: the shifts between "
        "sessions (a new node, another time) kept, as a night on a node of its own has them",
    )
    cp.add_argument(
        "--ab",
        action="append",
        metavar="STAMP",
        help="an `ingestlab ab` session of --track/--task (give two or more): each "
        "night one of them drawn at random, its pairs drawn from it, and the night's figure the contender's median over the "
        "baseline's, as `nightly --reference` judges a setup against a reference raced beside it",
    )
    cp.add_argument(
        "--nightly",
        action="append",
        metavar="NIGHT",
        help="a night raced by `nightly --reference --repeat N` (give two or "
        "more): as --ab, its races of the setup and the reference's beside them as the pairs, as the night raced "
        "them (test mode, or --full-size); the run is kept for the reports of nights raced the same way (setup, size, "
        "reference or --unpaired, --repeat), which quote its rates",
    )
    cp.add_argument(
        "--unpaired",
        action="store_true",
        help="with --ab or --nightly: nights drawn from one side alone (ab's baseline, the "
        "night's setup), as a nightly without a reference would see them (the same sessions, for a fair comparison)",
    )
    cp.set_defaults(func=cmd_changepoints)


def cmd_dose(args) -> int:
    from devtools.bench import dose
    from ingestlab.cli import calibrate_cmd

    setup = calibrate_cmd.calibration_setup(args)
    if args.races < 6:
        raise IngestlabError(
            f"--races {args.races}: at least 6, a multiple of the doses with the whole core (each block races every dose once)"
        )
    calibrate_cmd.check_races(args)
    dose.run(
        races=args.races,
        doses=_doses(args.dose),
        setup=setup,
        agree=args.agree,
        tolerance=args.tolerance / 100.0,
        most_warmup=args.most_warm_up,
        version=args.version,
        processes=args.node_processes,
    )
    return 0


def _doses(text: str) -> list[float]:
    try:
        return [float(w) for w in text.split(",")]
    except ValueError:
        raise IngestlabError(f"--dose {text}: shares of the node's core, comma-separated (e.g. 0.9 or 0.95,0.9)") from None


def cmd_sessions(args) -> int:
    from devtools.bench import sessions

    sessions.run(args.sum_of)
    return 0


def cmd_nightly(args) -> int:
    from devtools.bench import overhead
    from ingestlab.cli import study_cmd

    if args.overhead and args.client_options:
        raise IngestlabError("--overhead measures a minimal client beside the pack, which speaks plain HTTP: not with --client-options")
    return study_cmd.cmd_nightly(args, overhead=overhead.nightly_cost if args.overhead else None)


def _add_calibrations(kinds) -> None:
    from ingestlab.cli import calibrate_cmd, study_cmd

    ds = kinds.add_parser(
        "dose",
        help="`ingestlab calibrate` with a real change of known cause as well: the node in a CPU group of its own (cgroup v1, "
        "as root), raced at its whole core and at each share of it, in random blocks; how often compare finds it here",
    )
    calibrate_cmd.add_calibration_flags(ds, target_hosts=False)
    ds.add_argument(
        "--dose",
        required=True,
        metavar="SHARE[,SHARE]",
        help="the shares of the node's core raced beside the whole core (e.g. 0.9 or 0.9,0.8); --races counts them all",
    )
    ds.set_defaults(func=cmd_dose)
    ss = kinds.add_parser(
        "sessions", help="several calibration sessions' counts added up (no race in two of them) into rates with exact intervals"
    )
    ss.add_argument(
        "--sum-of",
        action="append",
        required=True,
        metavar="STAMP",
        help="repeatable (two or more): a calibration of the same setup here; "
        "1 race a side only where all were judged against floors of one kind",
    )
    ss.set_defaults(func=cmd_sessions)
    nt = study_cmd.add_nightly(kinds)
    nt.add_argument(
        "--overhead",
        action="store_true",
        help="also measure the pack's cost beside a minimal client (a small `overhead`), kept and judged in the history like any figure",
    )
    nt.set_defaults(func=cmd_nightly)


def cmd_blocks(args) -> int:
    from devtools.bench import blocks

    data = blocks.simulate(args.comparisons, args.sigma / 100.0, args.seed)
    print(blocks.markdown(data, args.sigma / 100.0))
    blocks.to_ledger(data, args.sigma / 100.0, command_line())
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog=PROG,
        description="The pack's measurements of itself, run from a checkout; each writes its ledger entry unless INGESTLAB_LEDGER=off.",
    )
    kinds = top.add_subparsers(dest="command", required=True)
    ov = kinds.add_parser(
        "overhead",
        help="the pack's Rally race of each task beside a minimal client doing the same work, interleaved, "
        "on one node; ends with one line per task: <task>: pack/minimal = 0.97x",
    )
    ov.add_argument(
        "--rounds",
        type=int,
        default=6,
        help="interleaved rounds every task gets (the order of the two sides alternates; "
        "default 6, the fewest with a 95%% interval of the median)",
    )
    ov.add_argument(
        "--max-rounds",
        type=int,
        default=12,
        help="more rounds, up to this many, for a task whose 95%% interval of the median "
        "ratio is wider than --width (default 12; --rounds or less: none)",
    )
    ov.add_argument(
        "--width",
        type=float,
        default=0.10,
        help="how wide that interval may be for a task to stop (default 0.10: a 5%% cost told from none)",
    )
    ov.add_argument("--runs", type=int, default=3, help="runs of each task per side and round")
    ov.add_argument("--warmup-rounds", type=int, default=1, help="rounds before the measured ones, not counted (default 1)")
    ov.add_argument("--scale", type=float, default=1.0, help="corpus sizes × this (1.0: posts 10,000 docs, wikipedia 20,000 pages)")
    ov.add_argument("--tasks", help="a comma-separated subset of: posts-index, posts-bulk-1000, posts-bulk-10000, refresh, reindex-raw")
    ov.add_argument("--target-hosts", help="measure on this node (default: the pack provisions one)")
    ov.add_argument(
        "--data-dir",
        help="where the provisioned node keeps its data (default: in memory, /dev/shm, when it has 4 GB "
        "free, so the disk's fsync noise stays out of both sides; else under INGESTLAB_HOME)",
    )
    options.add_shape(ov, nodes=False)
    ov.set_defaults(func=cmd_overhead)
    _add_load(kinds.add_parser("load", help="the load side alone, no cluster: generators, converters, request bodies"))
    _add_changepoints(kinds)
    rl = kinds.add_parser(
        "redline",
        help="the redline search against a dense scan of the same setup on one warm node: is it within one "
        "step of the scan's answer, in at most a third of its race time",
    )
    rl.add_argument("study", nargs="?", default="posts", help="a study's track with a redline challenge (default posts)")
    rl.add_argument("--latency", default="p99<=200ms", metavar="pNN<=DURATION", help="the target (default p99<=200ms)")
    rl.add_argument(
        "--resolution", type=float, default=5.0, metavar="PERCENT", help="the search's resolution and the scan's step (default 5)"
    )
    rl.add_argument("--low", type=float, default=0.5, metavar="SHARE", help="the scan goes down to this share of full speed (default 0.5)")
    rl.add_argument("--probes", type=int, default=3, help="probes a step: the search's answer and every step of the scan (default 3)")
    rl.add_argument("--clients", type=int, default=8, help="clients at full speed, and the fewest a probe has (default 8)")
    rl.add_argument("--track-param", action="append", metavar="KEY=VALUE")
    rl.add_argument("--target-hosts", help="run it on this cluster (default: the pack provisions one node of the study's version)")
    rl.add_argument("--client-options", help="with --target-hosts (never printed)")
    options.add_shape(rl, nodes=False, version=None)
    rl.set_defaults(func=cmd_redline)
    _add_calibrations(kinds)
    bl = kinds.add_parser("blocks", help="compare's rule on sides raced one block after the other, simulated with made-up races")
    bl.add_argument("--comparisons", type=int, default=1000, help="comparisons a case (default 1000)")
    bl.add_argument("--sigma", type=float, default=3.0, metavar="PERCENT", help="σ of a race's log median (default 3)")
    bl.add_argument("--seed", type=int, default=0)
    bl.set_defaults(func=cmd_blocks)
    sa = kinds.add_parser("sampling", help="what the load side's sampling during a race costs: the same race on and off, in pairs")
    sa.add_argument("--pairs", type=int, default=8, help="pairs a task (default 8; at least 6; 0: only the CPU a look takes)")
    sa.add_argument("--target-hosts", help="measure on this node (default: the pack provisions one)")
    options.add_shape(sa, nodes=False)
    sa.set_defaults(func=cmd_sampling)
    kinds.add_parser("limits", help="the limit verdicts docs/limits.md quotes: a race each with a known bottleneck").set_defaults(
        func=cmd_limits
    )
    return top


def main(argv: list[str] | None = None) -> int:
    from ingestlab import cli

    return cli.run(parser().parse_args(argv), PROG)


if __name__ == "__main__":
    sys.exit(main())
