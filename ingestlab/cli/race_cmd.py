"""``ingestlab race``, ``demo`` and ``report``: race a study and report it beside the published figures; report stored races."""

from __future__ import annotations

from pathlib import Path

from ingestlab import racing, studies
from ingestlab.cli import options
from ingestlab.cluster import lifecycle
from ingestlab.cluster.versions import DEFAULT_VERSION
from ingestlab.errors import IngestlabError
from ingestlab.rally import results
from ingestlab.report import generic, writer


def present(study, result, load_side: dict | None = None, command: str | None = None) -> None:
    """The study's report of a race, written (Markdown, HTML, results.json keeping ``command``) and printed."""
    print("[ingestlab] drawing the charts ...", flush=True)
    report = study.report(result, load_side)
    out = writer.write_race(study.name, result, report, {"load_side": load_side, "command": command})
    print()
    print(report.markdown)
    print(f"[ingestlab] report written to {out}/report.md and {out}/report.html ({len(report.charts)} charts)")


def cmd_race(args) -> int:
    study = studies.get(args.study)
    result = racing.race(study.track, options.target(args), options.race_options(args, study).tagged(study=study.name))
    present(study, result, command=writer.command_line())
    return 0


def cmd_demo(args) -> int:
    study = studies.get(args.study)  # an unknown study fails before a cluster starts
    heap = args.heap or (study.full_size_heap if args.full_size else "1g")
    settings = study.full_size_settings if args.full_size else {}
    shape = options.shape(
        args, name=args.cluster, version=options.engine_version(args, study.default_version), heap=heap, settings=settings
    )
    with lifecycle.running(shape, keep=args.keep_cluster) as cluster:
        target = racing.Target(hosts=cluster.hosts, client_options=args.client_options, engine=cluster.engine)
        result = racing.race(study.track, target, options.race_options(args, study).tagged(study=study.name))
    present(study, result, command=writer.command_line())
    return 0


def cmd_report(args) -> int:
    if args.race_id and not args.study:  # any stored race, whoever ran it
        result = results.load(args.race_id, home=args.rally_home)
        text, charts = generic.markdown(result), generic.charts(result)
        out = writer.write(writer.race_dir("races", result), f"ingestlab: race {result.race_id}", text, charts, result.to_json())
        print(text)
        print(f"[ingestlab] report written to {out}/report.md and {out}/report.html ({len(charts)} charts, PNG files beside)")
        return 0
    study = studies.get(args.study or "posts")
    if args.race_id:
        result = results.load(args.race_id, home=args.rally_home, track_path=study.track)
    else:
        race = results.latest_race({"study": study.name})
        if race is None:
            raise IngestlabError(f"no stored race of study {study.name!r}; run `ingestlab race {study.name}` first")
        result = results.load(race["race-id"], track_path=study.track)
    present(study, result)
    return 0


def add(sub) -> None:
    r = sub.add_parser("race", help="race a study against a running cluster and report it")
    r.add_argument("study", nargs="?", default="posts", help="study to race (default: posts)")
    options.add_race(r)
    r.add_argument("--target-hosts", help="default: the pack's running local cluster")
    r.add_argument(
        "--engine",
        choices=["elasticsearch", "opensearch"],
        help="with --target-hosts: OpenSearch is raced by opensearch-benchmark (default: Elasticsearch, esrally); "
        "the pack's own cluster says which it is",
    )
    r.add_argument(
        "--hosts",
        nargs="?",
        const="ingl",
        metavar="PREFIX",
        help="race on a lab of test hosts (`ingestlab hosts up`): its cluster, with Rally's load drivers on its hosts",
    )
    r.add_argument(
        "--one-driver",
        action="store_true",
        help="with --hosts: one Rally load driver outside the hosts (the coordinator's share), not one per host",
    )
    r.add_argument(
        "--pipeline",
        choices=["benchmark-only", "from-distribution"],
        default="benchmark-only",
        help="from-distribution: Rally installs, starts and stops the node itself, with the car-configs team",
    )
    r.add_argument("--car", default="defaults", help="from-distribution: car and mixins of car-configs, e.g. defaults,4gheap,ssd")
    r.add_argument("--car-params", help="from-distribution: e.g. \"data_paths:'/mnt/raid0/es'\"")
    r.add_argument("--distribution-version", default=DEFAULT_VERSION, choices=options.VERSIONS)
    r.set_defaults(func=cmd_race)

    d = sub.add_parser("demo", help="provision a node, race a study, print it beside the published figures, stop the node")
    d.add_argument("study", nargs="?", default="posts", help="study to race (default: posts)")
    options.add_race(d)
    options.add_shape(d, version=None, heap=None)
    d.add_argument("--keep-cluster", action="store_true", help="leave the cluster running afterwards")
    d.set_defaults(func=cmd_demo)

    rep = sub.add_parser("report", help="report a stored race: any race (--race-id alone), or a study's beside the published figures")
    rep.add_argument("study", nargs="?", help="a study: its report (default with no --race-id: the newest posts race)")
    rep.add_argument("--race-id", help="a race of Rally's store; without a study, the report of any race, whoever ran it")
    rep.add_argument("--rally-home", type=Path, help="the Rally home holding the race (default: the pack's, then $RALLY_HOME or ~)")
    rep.set_defaults(func=cmd_report)
