"""``ingestlab calibrate``: compare's noise floor, false alarms and detection on this machine, measured from identical
races on a warm node."""

from __future__ import annotations

from ingestlab.cli import options
from ingestlab.errors import IngestlabError


def calibration_setup(args) -> dict:
    """The setup a calibration races (``--track``, ``--challenge``, ``--task``, ``--track-param``, else the default one)."""
    from ingestlab import calibrate  # heavy: numpy (scipy where a test is computed); the CLI starts without them

    options.check_agree(args)
    setup = dict(calibrate.DEFAULT)
    if args.track:
        setup = {"track": args.track, "challenge": args.challenge, "task": args.task, "params": {}}
        if not (args.challenge and args.task):
            raise IngestlabError("--track needs --challenge and --task (the task whose noise floor and error rates to measure)")
    setup["params"] = {**setup["params"], **options.track_params(args)}
    return setup


def check_races(args) -> None:
    """``--races``, ``--node-processes`` and ``--most-warm-up`` of a calibration, each refused in one line."""
    if 0 < args.races < 6 or args.races < 0:
        raise IngestlabError(
            f"--races {args.races}: at least 6 (3 against 3 once); 120 give 60 disjoint 1-vs-1 comparisons; 0 with --pool races none"
        )
    if args.races and (args.node_processes < 1 or args.node_processes > args.races):
        raise IngestlabError(f"--node-processes {args.node_processes}: from 1 to --races")
    if args.most_warm_up < args.agree:
        raise IngestlabError(f"--most-warm-up {args.most_warm_up}: at least --agree ({args.agree})")


def cmd_calibrate(args) -> int:
    from ingestlab import calibrate  # heavy: numpy (scipy where a test is computed); the CLI starts without them

    setup = calibration_setup(args)
    if args.races == 0 and not args.pool:
        raise IngestlabError("--races 0 judges earlier calibrations' races again (today's rule): name them with --pool STAMP")
    check_races(args)
    calibrate.run(
        races=args.races,
        agree=args.agree,
        tolerance=args.tolerance / 100.0,
        most_warmup=args.most_warm_up,
        version=args.version,
        setup=setup,
        processes=args.node_processes,
        target_hosts=args.target_hosts,
        pool_from=args.pool,
        floor_of=args.floor_of,
    )
    return 0


def add(sub) -> None:
    cal = sub.add_parser(
        "calibrate",
        help="measure compare's noise floor, false alarms and detection here, from identical races on a "
        "warm node (an exact 5 %% and 10 %% change applied to real races)",
    )
    add_calibration_flags(cal)
    cal.add_argument(
        "--pool",
        action="append",
        metavar="STAMP",
        help="repeatable: the kept races of an earlier calibration of the "
        "same setup here join this one's (one that was interrupted, or "
        "to reach more disjoint comparisons)",
    )
    cal.add_argument(
        "--floor-of",
        action="append",
        metavar="STAMP",
        help="repeatable: judge the comparisons of 1 and 2 races a side against the races of these earlier "
        "calibrations of the same setup here, as compare judges later races (the rates out of sample), not "
        "the pool's own; two or more: the floor spanning their sessions, as compare's default",
    )
    cal.set_defaults(func=cmd_calibrate)


def add_calibration_flags(cal, target_hosts: bool = True) -> None:
    """The flags of a calibration's races (see :func:`calibration_setup`); ``target_hosts``: also ``--target-hosts``."""
    cal.add_argument(
        "--races",
        type=int,
        default=120,
        help="races kept (default 120: 60 disjoint 1-vs-1 and 20 3-vs-3 comparisons); "
        "0 with --pool: race none, judge the pooled races again by today's rule",
    )
    cal.add_argument("--agree", type=int, default=3, help="warm-up: consecutive races that must agree before any is kept (default 3)")
    cal.add_argument("--tolerance", type=float, default=5.0, metavar="PERCENT", help="warm-up: how closely they agree (default 5)")
    cal.add_argument(
        "--most-warm-up",
        type=int,
        default=15,
        metavar="RACES",
        help="warm-up: give up (one line) when the node has not settled after this many races (default 15)",
    )
    cal.add_argument("--version", choices=options.VERSIONS, help="the node's Elasticsearch (default: the pack's)")
    cal.add_argument("--node-processes", type=int, default=2, help="node processes the races spread over, each warmed up (default 2)")
    if target_hosts:
        cal.add_argument(
            "--target-hosts",
            help="calibrate this running cluster (one node process; where it runs is its own) instead of one the pack provisions",
        )
    cal.add_argument("--track", help="a study track (default: eventdata, append-no-conflicts-index-only, index-append)")
    cal.add_argument("--challenge", help="with --track")
    cal.add_argument("--task", help="with --track: the task to calibrate")
    cal.add_argument("--track-param", action="append", metavar="KEY=VALUE", help="e.g. eventdata_docs=50000 (the default)")
