"""``ingestlab sweep``: a grid of track parameters (and of cluster setups) over any Rally track or study."""

from __future__ import annotations

from pathlib import Path

from ingestlab import racing, studies
from ingestlab.cli import options
from ingestlab.errors import IngestlabError
from ingestlab.sweep import state as sweep_state


def cmd_sweep(args) -> int:
    from ingestlab.sweep import grid, report, run  # heavy: numpy (scipy where a test is computed); the CLI starts without them

    if args.report:
        state = sweep_state.load(args.report)
    else:
        engine = getattr(args, "engine", "elasticsearch")
        if args.resume is not None:
            state = sweep_state.load(args.resume or None)
        else:
            if bool(args.track_path) == bool(args.study):
                raise IngestlabError("sweep takes a study name or --track-path DIR (one of them)")
            study = studies.get(args.study) if args.study else None
            track = Path(args.track_path) if args.track_path else study.track
            provisioned = not args.target_hosts
            cluster = (
                {
                    "version": options.engine_version(args) if engine != "elasticsearch" else args.version,
                    "heap": options.lifecycle.validate_heap(args.heap),
                    "nodes": args.nodes,
                    **({"engine": engine} if engine != "elasticsearch" else {}),
                    **({"driver_cpus": args.driver_cpus} if args.driver_cpus is not None else {}),
                    **({"scale": args.scale} if args.scale else {}),
                }
                if provisioned
                else None
            )
            state = sweep_state.new(
                track,
                grid.parse(args.grid),
                options.track_params(args),
                args.challenge,
                args.repeat,
                args.test_mode,
                provisioned,
                cluster,
                args.on_error,
                study.name if study else None,
            )
            print(f"[ingestlab] sweep {state['id']}: {len(sweep_state.planned(state))} runs over {state['track']}")
        target = racing.Target(hosts=args.target_hosts, client_options=args.client_options, engine=engine) if args.target_hosts else None
        if target is None and state.get("cluster") is None:
            raise IngestlabError(
                f"sweep {state['id']} raced against given hosts, which a sweep does not store "
                f"(client options may hold credentials): resume it with --target-hosts (and --client-options)"
            )
        run.execute(state, target)
    out, text = report.write(state)
    print(text)
    print(f"[ingestlab] sweep report: {out}/report.md, report.html and results.json")
    return 1 if any(r["status"] == "failed" for r in state["runs"]) else 0


def add(sub) -> None:
    sw = sub.add_parser(
        "sweep",
        help="a grid of track parameters (and cluster setups) over any Rally track: one race per cell "
        "and repetition, resumable, one table per task with a chart",
    )
    sw.add_argument("study", nargs="?", help="a study of the pack (or give --track-path)")
    sw.add_argument("--track-path", help="any Rally track's directory (a track.json in it)")
    sw.add_argument(
        "--grid",
        action="append",
        metavar="KEY=V1,V2",
        help="a track parameter and its values, repeatable; version=, nodes=, heap= choose the provisioned cluster, "
        "cpus=, memory=, disk=, link= each node's emulated host (e.g. disk=hdd,raid0:4xhdd), replicas= is number_of_replicas",
    )
    sw.add_argument("--repeat", type=int, default=1, help="races per cell (default 1)")
    sw.add_argument("--challenge")
    sw.add_argument("--track-param", action="append", metavar="KEY=VALUE", help="a fixed track parameter for every cell, repeatable")
    sw.add_argument("--test-mode", action="store_true", help="Rally's test mode for every race")
    sw.add_argument("--on-error", choices=["abort", "continue", "continue-on-network"], default="abort")
    sw.add_argument("--target-hosts", help="race against this cluster (default: the pack provisions one per cluster setup)")
    sw.add_argument("--client-options", help="with --target-hosts: passed to esrally (never printed)")
    options.add_shape(sw)
    sw.add_argument("--driver-cpus", type=float, help="with hardware keys: the load driver's CPU share (cores)")
    sw.add_argument("--scale", choices=["study5", "study4"], help="with cpus=: memory, disk and link scaled from the study's machines")
    sw.add_argument("--resume", nargs="?", const="", metavar="SWEEP_ID", help="continue a stopped sweep (default: the newest)")
    sw.add_argument("--report", metavar="SWEEP_ID", help="only write the report of a sweep again")
    sw.set_defaults(func=cmd_sweep)
