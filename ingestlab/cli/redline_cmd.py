"""``ingestlab redline``: the highest indexing rate a cluster sustains under a latency target (see :mod:`ingestlab.redline`)."""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from pathlib import Path

from ingestlab import paths, racing, studies
from ingestlab.cli import options
from ingestlab.cluster import lifecycle
from ingestlab.errors import IngestlabError
from ingestlab.report import writer

SHAPE = {"name": "ingestlab-redline", "http_port": 29480, "transport_port": 29580}


def target_for(args, study, shape: dict, stack: ExitStack) -> racing.Target:
    """The cluster a search races: --target-hosts or a lab (--hosts), else one node the pack provisions with ``shape``
    (the study's version unless --version), stopped when ``stack`` closes."""
    if getattr(args, "target_hosts", None) or getattr(args, "hosts", None):
        return options.target(args)
    version = options.engine_version(args, study.default_version if study else None)
    heap = lifecycle.validate_heap(args.heap)
    chosen = lifecycle.Shape(**shape, nodes=getattr(args, "nodes", 1), version=version, heap=heap, engine=args.engine)
    cluster = stack.enter_context(lifecycle.running(chosen))
    return racing.Target(hosts=cluster.hosts, client_options=cluster.client_options(), engine=cluster.engine)


def cmd_redline(args, argv: list[str] | None = None) -> int:
    from ingestlab.redline import report, run, target  # heavy: matplotlib and scipy; the CLI starts without them

    if args.report:
        return _report_again(args.report)
    if bool(args.track_path) == bool(args.study):
        raise IngestlabError("redline takes a study name or --track-path DIR (one of them)")
    if not args.latency:
        raise IngestlabError("redline needs --latency pNN<=DURATION, e.g. --latency 'p99<=200ms' (or --report STAMP)")
    study = studies.get(args.study) if args.study else None
    track = Path(args.track_path) if args.track_path else study.track
    latency = target.parse(args.latency)
    errors = target.error_rate(args.error_rate)
    if not 0 < args.resolution <= 100:
        raise IngestlabError(f"--resolution {args.resolution}: a percentage above 0, at most 100")
    if args.probes < 1 or args.clients < 1 or args.agree < 1 or args.max_probes < args.probes or args.max_clients < 1:
        raise IngestlabError("--probes, --clients, --max-clients and --agree: at least 1; --max-probes: at least --probes")
    with ExitStack() as stack:
        where = target_for(args, study, SHAPE, stack)
        common = dict(
            challenge=args.challenge,
            params=options.track_params(args),
            error_rate=errors,
            resolution=args.resolution / 100.0,
            probes_per_step=args.probes,
            clients=args.clients,
            most=args.max_probes,
            agree=args.agree,
            tolerance=args.tolerance / 100.0,
            label=study.name if study else None,
            command=writer.command_line(argv or sys.argv[1:]),
        )
        if args.over == "rate":
            result = run.run(track, latency, where, **common)
        else:
            from ingestlab.redline import over  # heavy: matplotlib and scipy; the CLI starts without them

            result = over.run(track, latency, where, args.over, most_clients=args.max_clients, **common)
    chart = report.write(result)
    print("\n".join(report.lines(result)))
    print(f"\n[ingestlab] redline {result['stamp']}: {result['dir']}/redline.json, {chart}")
    return 0 if result.get("rate") is not None else 1


def _report_again(stamp: str) -> int:
    """A stored search's report printed again (its ``redline.json`` under results/redline/STAMP, or that file's path)."""
    from ingestlab.redline import report  # heavy: matplotlib; the CLI starts without it

    found = Path(stamp) if Path(stamp).suffix == ".json" else paths.results_dir() / "redline" / stamp / "redline.json"
    if not found.is_file():
        raise IngestlabError(f"--report {stamp}: no stored search at {found}")
    result = json.loads(found.read_text())
    print("\n".join(report.lines(result)))
    return 0 if result.get("rate") is not None else 1


def add(sub) -> None:
    p = sub.add_parser("redline", help="the highest indexing rate a cluster sustains while a latency percentile stays under a target")
    p.add_argument("study", nargs="?", help="a study's track (or --track-path)")
    p.add_argument("--report", metavar="STAMP", help="print a stored search's report again (results/redline/STAMP)")
    p.add_argument("--track-path", help="any track with a redline challenge (a bulk task paced by the track parameter target_throughput)")
    p.add_argument("--challenge", default="redline", help="the challenge whose paced task the search offers rates to (default redline)")
    p.add_argument(
        "--over",
        choices=["rate", "clients", "bulk_size"],
        default="rate",
        help="what the search varies: the offered rate (default), or at full speed the clients or the bulk size (the "
        "highest that keeps the target; over clients, the USL fitted beside it)",
    )
    p.add_argument("--max-clients", type=int, default=32, help="--over clients: the most clients the climb offers (default 32)")
    p.add_argument(
        "--latency",
        metavar="pNN<=DURATION",
        help="the target, e.g. p99<=200ms or p90<=1.5s (Rally's latency: from each request's scheduled time); required but with --report",
    )
    p.add_argument(
        "--error-rate",
        default="0",
        metavar="SHARE",
        help="the largest share of failed requests a step may have (default 0: the first failed request fails the step, named)",
    )
    p.add_argument(
        "--resolution",
        type=float,
        default=5.0,
        metavar="PERCENT",
        help="the search stops when the failed step is within this much above the sustained one (default 5)",
    )
    p.add_argument(
        "--probes", type=int, default=3, help="probes (races) the sustained step needs, all passing, spread over the search (default 3)"
    )
    p.add_argument("--max-probes", type=int, default=40, help="races the search may spend at most (default 40)")
    p.add_argument(
        "--clients",
        type=int,
        default=8,
        help="clients of the full-speed races, and the fewest a probe has (more when the "
        "offered rate needs them; default 8, as rally-tracks' bulk_indexing_clients)",
    )
    p.add_argument(
        "--agree",
        type=int,
        default=2,
        help="warm-up: full-speed races in a row that agree before the search starts (default 2; their median is the full-speed rate)",
    )
    p.add_argument("--tolerance", type=float, default=15.0, metavar="PERCENT", help="warm-up: how closely they agree (default 15)")
    p.add_argument("--track-param", action="append", metavar="KEY=VALUE", help="e.g. bulk_size=1000, redline_time_period=30")
    p.add_argument("--target-hosts", help="search this running cluster instead of one the pack provisions")
    p.add_argument("--client-options", help="with --target-hosts (never printed)")
    p.add_argument("--hosts", help="a lab of test hosts (ingestlab hosts up): the nodes on emulated hardware")
    p.add_argument("--one-driver", action="store_true", help="with --hosts: one load driver outside the hosts")
    options.add_shape(p, version=None)
    p.set_defaults(func=cmd_redline)
