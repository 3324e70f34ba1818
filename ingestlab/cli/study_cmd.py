"""``ingestlab nightly``, ``corpora`` (study 5 on 1 and 3 nodes) and ``versions`` (the studies across Elasticsearch versions)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ingestlab import racing, studies, versions
from ingestlab.cli import options
from ingestlab.cluster.versions import DEFAULT_VERSION, DISTRIBUTIONS, key_of, resolve
from ingestlab.errors import IngestlabError
from ingestlab.studies import corpora, corpora_hardware, corpora_scaling, wikipedia_hosts
from ingestlab.studies import wikipedia_hosts as wh


def cmd_nightly(args, overhead=None) -> int:
    """``overhead``: what measures the pack's cost on each setup's cluster (see :func:`ingestlab.nightly.run`)."""
    from ingestlab import nightly  # heavy: numpy (scipy where a test is computed); the CLI starts without them

    history = Path(args.history) if args.history else None
    if args.action == "annotate":
        if not args.night or not args.text:
            raise IngestlabError("nightly annotate needs --night (as the report names it, e.g. 2026-11-23T023000) and --text")
        nightly.annotate(nightly.open_history(history or nightly.history_path()), args.night, args.text, args.setup_name)
        print(f"[ingestlab] night {args.night}: annotated {args.text!r}")
        return 0
    chosen = [studies.get(s.strip()) for s in args.studies.split(",") if s.strip()]
    target = racing.Target(hosts=args.target_hosts, client_options=args.client_options) if args.target_hosts else None
    setups = [nightly.Setup.parse(s) for s in args.setup or []]
    if setups and target is not None:
        raise IngestlabError("--setup chooses clusters the pack provisions; it does not go with --target-hosts")
    if args.repeat < 1:
        raise IngestlabError(f"--repeat {args.repeat}: at least 1 race of each study a night")
    reference = nightly.Setup.parse(args.reference) if args.reference else None
    if reference and not reference.hosts and reference.version is None:
        reference = dataclasses.replace(reference, version=args.version)
    return nightly.run(
        chosen,
        target=target,
        history_file=history,
        margin=args.margin / 100.0 if args.margin is not None else None,
        version=args.version,
        setups=setups,
        overhead=overhead,
        repeat=args.repeat,
        reference=reference,
        full_size=args.full_size,
        include_tasks=args.include_tasks,
    )


def cmd_corpora(args) -> int:
    chosen = [studies.get(t.strip()) for t in args.tracks.split(",") if t.strip()]
    stamps = [s.strip() for s in (args.report or "").split(",") if s.strip()]
    if args.report and args.emulated:
        for stamp in stamps:
            corpora_hardware.report(stamp, chosen)
        return 0
    if args.report:
        corpora_scaling.report(stamps, chosen)
        return 0
    extra: dict = {}
    for key, value in options.pairs(args.track_param, "=", "track param").items():
        track, _, name = key.partition(".")
        if not name or track not in {t.name for t in corpora.TRACKS}:
            raise IngestlabError(f"track param {key!r} must look like <track>.<param>, e.g. eventdata.eventdata_docs=50000")
        extra.setdefault(track, {})[name] = options.parse_value(value)
    if args.emulated:
        corpora_hardware.run(
            chosen, cpus=args.cpus, driver_cpus=args.driver_cpus, extra_params=extra, version=args.version, test_mode=args.test_mode
        )
        return 0
    corpora_scaling.scaling(
        chosen,
        test_mode=args.test_mode,
        extra_params=extra,
        clients=args.clients,
        version=args.version,
        full_size=args.full_size,
        shapes=tuple(int(n) for n in args.nodes.split(",")),
        skip_disk_check=args.skip_disk_check,
    )
    return 0


def cmd_scale_out(args) -> int:
    if args.report:
        wikipedia_hosts.report(args.report)
        return 0
    try:
        counts = sorted({int(n) for n in args.hosts.split(",") if n.strip()})
    except ValueError:
        raise IngestlabError(f"--hosts {args.hosts!r}: host counts separated by commas, e.g. 1,2,4") from None
    if not counts or counts[0] < 1:
        raise IngestlabError(f"--hosts {args.hosts!r}: at least one host count, each 1 or more")
    extra = {k: options.parse_value(v) for k, v in options.pairs(args.track_param, "=", "track param").items()}
    wikipedia_hosts.run(
        counts,
        cpus=args.cpus,
        driver_cpus=args.driver_cpus,
        memory=args.memory,
        params=extra,
        version=args.version,
        test_mode=args.test_mode,
    )
    return 0


def cmd_versions(args) -> int:
    if args.report:
        versions.again(args.report, studies.ALL)
        return 0
    chosen = [studies.get(s.strip()) for s in args.studies.split(",") if s.strip()]
    wanted = [key_of(resolve(v.strip())) for v in args.versions.split(",") if v.strip()]
    versions.run(chosen, wanted, full=args.full, test_mode=args.test_mode)
    return 0


def add(sub) -> None:
    add_nightly(sub)
    _add_across_setups(sub)


def add_nightly(sub):
    """The ``nightly`` command's parser, added to ``sub``."""
    nt = sub.add_parser(
        "nightly", help="race the studies small, compare with previous nights and the published studies; exit 1 on a regression"
    )
    nt.add_argument(
        "action", nargs="?", choices=["run", "annotate"], default="run", help="annotate: a note on a night, shown on the trend charts"
    )
    nt.add_argument("--night", help="annotate: the night, as the report names it")
    nt.add_argument("--text", help="annotate: the note")
    nt.add_argument("--setup-name", help="annotate: only this setup's charts (default: all)")
    nt.add_argument(
        "--setup",
        action="append",
        metavar="SETUP",
        help="a cluster to race on, repeatable, side by side: a version (9.2.0) or version=9.2.0;nodes=3;heap=512m",
    )
    nt.add_argument("--studies", default="posts,refresh,dvf,wikipedia")
    nt.add_argument("--history", help="SQLite history file (default: results/nightly/history.sqlite)")
    nt.add_argument(
        "--margin",
        type=float,
        metavar="PERCENT",
        help="the smallest drop called a regression (default 5 %%); it must also fall below the previous nights' 95 %% "
        "one-sided prediction bound, Holm over a study's tasks, from 3 previous nights",
    )
    nt.add_argument("--target-hosts", help="race against this cluster instead of provisioning one")
    nt.add_argument("--client-options", help="with --target-hosts: passed to esrally --client-options (never printed)")
    nt.add_argument("--version", default=DEFAULT_VERSION, choices=options.VERSIONS, help="Elasticsearch of the provisioned node")
    nt.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="races of each study a night; each task's figure is their median (the race "
        "is the unit: a night's figure scatters less, and change points come sooner)",
    )
    nt.add_argument(
        "--reference",
        metavar="SETUP",
        help="a cluster raced beside each setup, race by race (the order alternating), and the night judged on the setup's "
        "figures over the reference's, which cancels the machine's shift from night to night: a version, "
        "version=7.17.29;name=ref, or hosts=HOST:PORT;name=ref for a running one. See docs/nightly.md",
    )
    nt.add_argument(
        "--full-size",
        action="store_true",
        help="race each study at its article's own size (its full-size parameters, not "
        "test mode; a provisioned node gets the heap they need), kept in the history as a setup of its own: "
        "'<setup> (full size)'. What it finds beside a --reference: docs/nightly.md",
    )
    nt.add_argument(
        "--include-tasks",
        metavar="TASKS",
        help="only these tasks of each study's challenge (Rally's --include-tasks), e.g. bulk-1000 to race posts at full size in seconds",
    )
    nt.set_defaults(func=cmd_nightly)
    return nt


def _add_across_setups(sub) -> None:
    """The commands that race the studies across cluster shapes, hosts and versions: corpora, versions, scale-out."""
    cs = sub.add_parser(
        "corpora", help="study 5: eventdata, geonames, pmc on 1 node, then 3 nodes with 0 and 1 replica; ratios beside the study"
    )
    cs.add_argument("--tracks", default="eventdata,geonames,pmc")
    cs.add_argument("--test-mode", action="store_true")
    cs.add_argument(
        "--nodes",
        default="1,3",
        choices=["1,3", "1", "3"],
        metavar="{1,3 | 1 | 3}",
        help="which clusters: 1 node, 3 nodes (0 and 1 replica), or both (default) — e.g. to size each apart",
    )
    cs.add_argument(
        "--emulated",
        action="store_true",
        help="on test hosts with the article's hardware scaled to this machine: 1 node on one disk and on RAID0 of 4, "
        "3 nodes on RAID0 with 0 and 1 replica, each race with its fidelity verdict (root; a few minutes per race)",
    )
    cs.add_argument("--cpus", type=float, default=0.45, help="--emulated: cores per host, which set the scale (default 0.45)")
    cs.add_argument("--driver-cpus", type=float, default=0.5, help="--emulated: the load driver's cores (default 0.5)")
    cs.add_argument(
        "--full-size",
        action="store_true",
        help="Rally's own corpus sizes (eventdata 20 M, geonames 11.4 M, pmc 574 k "
        "docs), 120 s warm-up, 2 GB heaps; --track-param still overrides",
    )
    cs.add_argument(
        "--skip-disk-check",
        action="store_true",
        help="race even when the indices and corpus files the sizes asked for would not fit on the disk, as "
        "estimated from the pack's own full-size races (checked before any node starts)",
    )
    cs.add_argument("--clients", type=int, help="bulk_indexing_clients (default: the tracks' 8)")
    cs.add_argument(
        "--version",
        choices=options.VERSIONS,
        help="Elasticsearch of both clusters (default: the study's own, see tracks/eventdata/README.md)",
    )
    cs.add_argument("--track-param", action="append", metavar="TRACK.KEY=VALUE", help="e.g. geonames.geonames_docs=234908, repeatable")
    cs.add_argument(
        "--report",
        metavar="STAMP[,STAMP]",
        help="one table from the stored races of earlier runs (their corpora:STAMP "
        "tags), e.g. a 1-node and a 3-node full-size run made apart; with "
        "--emulated, an emulated run's report again (corpora-hardware:STAMP)",
    )
    cs.set_defaults(func=cmd_corpora)

    _add_scale_out(sub)
    vs = sub.add_parser(
        "versions", help="race the studies on each Elasticsearch version in turn; one report of their headline ratios per version"
    )
    vs.add_argument("--studies", default="posts,refresh,dvf,wikipedia")
    vs.add_argument(
        "--versions",
        default="6.8.23,7.17.29,8.19.7,9.2.0",
        help=f"any of {', '.join(options.VERSIONS)}; OpenSearch as opensearch:2.19.0 (or 3.0.0, 3.2.0), raced through opensearch-benchmark",
    )
    vs.add_argument("--full", action="store_true", help="the studies at full size (default: each study's small parameters)")
    vs.add_argument("--test-mode", action="store_true", help="Rally's test mode on top (a smoke run: 1,000 docs, one run per task)")
    vs.add_argument("--report", metavar="STAMP", help="write the report of an earlier run again from its stored races")
    vs.set_defaults(func=cmd_versions)


def _add_scale_out(sub) -> None:
    so = sub.add_parser(
        "scale-out",
        help="study 4 on 1, 2 and 4 emulated hosts (root): one tool per node and _reindex over hosts, "
        "the Universal Scalability Law over them and its prediction at the article's 8 nodes",
    )
    so.add_argument("--hosts", default=",".join(map(str, wh.HOST_COUNTS)), help="host counts, one new lab each (default %(default)s)")
    so.add_argument("--cpus", type=float, default=wh.CPUS, help="cores per host's node, which set the scale (default %(default)s)")
    so.add_argument("--driver-cpus", type=float, default=wh.DRIVER_CPUS, help="cores per host's Rally load driver (default %(default)s)")
    so.add_argument("--memory", default=wh.MEMORY, help="memory per host's node (default %(default)s; the heap is half)")
    so.add_argument(
        "--version",
        default=wh.VERSION,
        choices=sorted(DISTRIBUTIONS, key=lambda v: tuple(map(int, v.split(".")))),
        help="Elasticsearch of the hosts (default %(default)s: the 8.19/9.x zips here have no _reindex)",
    )
    so.add_argument(
        "--track-param",
        action="append",
        metavar="KEY=VALUE",
        help="e.g. wiki_pages=40000 (default " + ", ".join(f"{k}={v}" for k, v in wh.PARAMS.items()) + ")",
    )
    so.add_argument("--test-mode", action="store_true")
    so.add_argument("--report", metavar="STAMP", help="write the report of an earlier run again from its stored races")
    so.set_defaults(func=cmd_scale_out)
