"""``ingestlab race``, ``demo``, ``report`` and ``compare``: race a study and report it beside the published
figures; report or compare stored races."""
from __future__ import annotations

import sys
from pathlib import Path

from ingestlab import ledger, racing, studies
from ingestlab.cli import options
from ingestlab.cluster import lifecycle
from ingestlab.cluster.versions import DEFAULT_VERSION
from ingestlab.errors import IngestlabError
from ingestlab.rally import results
from ingestlab.report import writer


def present(study, result, load_side: dict | None = None, measured: bool = False) -> None:
    """The study's report of a race: written (Markdown, HTML with charts, results.json) and printed; ``measured``: the
    race was run just now, and its headlines go into the ledger (outside test mode)."""
    print("[ingestlab] drawing the charts ...", flush=True)
    report = study.report(result, load_side)
    out = writer.write_race(study.name, result, report, {"load_side": load_side})
    print()
    print(report.markdown)
    print(f"[ingestlab] report written to {out}/report.md and {out}/report.html ({len(report.charts)} charts)")
    if measured and not result.test_mode:
        entry = _to_ledger(study, result, out)
        if entry:
            print(f"[ingestlab] ledger entry {entry}")


def _to_ledger(study, result, out: Path) -> Path | None:
    """The race's headlines as a ledger entry (:mod:`ingestlab.ledger`)."""
    figures = {h.key: ledger.Figure(h.here, h.unit.strip(), h.label, h.published) for h in study.headlines(result, study.published_figures())}
    if not figures:
        return None
    given = result.race.get("track-params", {}) or {}
    conditions = "; ".join(filter(None, [f"challenge {result.challenge}" if result.challenge else "",
                                         ", ".join(f"{k}={v}" for k, v in sorted(given.items()))]))
    versions = {"engine": result.tags.get("engine", "elasticsearch"), "version": result.es_version, "rally": result.race.get("rally-version")}
    return ledger.record(result.race_id, f"{study.name} study", "ingestlab " + " ".join(sys.argv[1:]), figures, versions, conditions,
                         source=f"report {out.relative_to(out.parents[2]) if len(out.parents) > 2 else out}/results.json")


def cmd_race(args) -> int:
    study = studies.get(args.study)
    result = racing.race(study.track, options.target(args), options.race_options(args, study).tagged(study=study.name))
    present(study, result, measured=True)
    return 0


def cmd_demo(args) -> int:
    study = studies.get(args.study)  # an unknown study fails before a cluster starts
    heap = args.heap or (study.full_size_heap if args.full_size else "1g")
    settings = study.full_size_settings if args.full_size else {}
    shape = options.shape(args, name=args.cluster, version=options.engine_version(args, study.default_version), heap=heap, settings=settings)
    with lifecycle.running(shape, keep=args.keep_cluster) as cluster:
        target = racing.Target(hosts=cluster.hosts, client_options=args.client_options, engine=cluster.engine)
        result = racing.race(study.track, target, options.race_options(args, study).tagged(study=study.name))
    load_side = None
    if study.load_bench:
        print("[ingestlab] measuring the load side alone (no cluster) ...")
        load_side = study.load_bench()
    present(study, result, load_side, measured=True)
    return 0


def cmd_report(args) -> int:
    if args.race_id and not args.study:  # any stored race, whoever ran it
        from ingestlab.report import generic

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


def _races(selector: str, study: str | None, test_mode: bool, notes: list[str], home: Path | None = None) -> tuple[str, list[dict]]:
    """``RACE_ID`` or ``key:value`` (every stored race with that tag, of the study if given), without the races
    that do not belong in an aggregate (failed requests; test mode, unless ``test_mode``), each named in ``notes``.
    ``home``: a Rally home whose races to read (its own rally.ini says where: files, or an Elasticsearch metrics store)."""
    from ingestlab import compare

    if ":" in selector:
        key, value = selector.split(":", 1)
        tags = {key: value, **({"study": study} if study else {})}
        races = results.races_with_tags(tags, home)
        if not races:
            raise IngestlabError(f"no stored race tagged {selector}" + (f" of study {study}" if study else ""))
    else:
        races = [results.load_race(selector, home)[0]]
    kept, left = compare.select(races, test_mode)
    notes += [f"{selector}: {n}" for n in left]
    if not kept:
        raise IngestlabError(f"{selector}: no race left to compare: " + "; ".join(left)
                             + ("" if test_mode else " (compare test-mode races with --test-mode)"))
    mixed = sorted({f"{r.get('track')}/{r.get('challenge')}" for r in kept})
    if len(mixed) > 1:
        raise IngestlabError(f"{selector}: its races are of different tracks or challenges ({', '.join(mixed)}); a side must repeat one setup")
    return selector, kept


def cmd_compare(args) -> int:
    from ingestlab import compare
    from ingestlab.verdicts import noise

    notes: list[str] = []
    name, baseline = _races(args.baseline, args.study, args.test_mode, notes, args.rally_home)
    contenders = [_races(c, args.study, args.test_mode, notes, args.rally_home) for c in args.contender]
    margin = args.margin / 100.0 if args.margin is not None else None
    first = baseline[0]
    calibration, left = noise.find(first.get("track"), first.get("challenge"), (first.get("cluster") or {}).get("distribution-version"),
                                   Path(args.calibration) if args.calibration else None)
    notes += left
    base = compare.aggregate(baseline)
    floors = {task: noise.floor_of(calibration, task, "this machine") for task in base} if calibration else {}
    text = compare.render(args.format, f"{name} ({len(baseline)} race{'s' if len(baseline) != 1 else ''})", base,
                          [(f"{n} ({len(r)} race{'s' if len(r) != 1 else ''})", compare.aggregate(r)) for n, r in contenders], margin,
                          notes + (["test-mode races only: one sample per task, not a measurement"] if args.test_mode else []),
                          args.method, calibration, floors)
    if args.output:
        Path(args.output).write_text(text)
        print(f"[ingestlab] comparison written to {args.output} ({args.format})")
    else:
        print(text)
    return 0


def cmd_calibrate(args) -> int:
    from ingestlab.bench import calibrate

    setup = dict(calibrate.DEFAULT)
    if args.track:
        setup = {"track": args.track, "challenge": args.challenge, "task": args.task, "params": {}}
        if not (args.challenge and args.task):
            raise IngestlabError("--track needs --challenge and --task (the task whose noise floor and error rates to measure)")
    setup["params"] = {**setup["params"], **options.track_params(args)}
    if args.races < 6:
        raise IngestlabError(f"--races {args.races}: at least 6 (3 against 3 once); 120 give 60 disjoint 1-vs-1 comparisons")
    calibrate.run(races=args.races, agree=args.agree, tolerance=args.tolerance / 100.0, version=args.version, setup=setup)
    return 0


def add(sub) -> None:
    r = sub.add_parser("race", help="race a study against a running cluster and report it")
    r.add_argument("study", nargs="?", default="posts", help="study to race (default: posts)")
    options.add_race(r)
    r.add_argument("--target-hosts", help="default: the pack's running local cluster")
    r.add_argument("--engine", choices=["elasticsearch", "opensearch"],
                   help="with --target-hosts: OpenSearch is raced by opensearch-benchmark (default: Elasticsearch, esrally); "
                        "the pack's own cluster says which it is")
    r.add_argument("--hosts", nargs="?", const="ingl", metavar="PREFIX",
                   help="race on a lab of test hosts (`ingestlab hosts up`): its cluster, with Rally's load drivers on its hosts")
    r.add_argument("--one-driver", action="store_true",
                   help="with --hosts: one Rally load driver outside the hosts (the coordinator's share), not one per host")
    r.add_argument("--pipeline", choices=["benchmark-only", "from-distribution"], default="benchmark-only",
                   help="from-distribution: Rally installs, starts and stops the node itself, with the car-configs team")
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

    cmp = sub.add_parser("compare", help="compare a baseline with contenders: race ids, or tags aggregating repeated races")
    cmp.add_argument("--baseline", required=True, metavar="RACE_ID|TAG:VALUE")
    cmp.add_argument("--contender", required=True, action="append", metavar="RACE_ID|TAG:VALUE", help="repeatable")
    cmp.add_argument("--study", help="only races of this study (with tags)")
    cmp.add_argument("--margin", type=float, metavar="PERCENT", help="a fixed noise margin (the margin rule with it)")
    cmp.add_argument("--calibration", metavar="FILE", help="the noise floor and error rates to judge by: a calibration's results.json "
                                                            "(default: the newest of the baseline's track on this machine and version)")
    cmp.add_argument("--method", choices=["t", "margin"], default="t",
                     help="t (default): the race as the unit: Welch's test on log race medians with 3 races a side (Holm across tasks), "
                          "fewer only against a measured noise floor; margin: the earlier rule (2x CV of sides of several races)")
    cmp.add_argument("--format", choices=["markdown", "csv", "json", "html"], default="markdown")
    cmp.add_argument("--output", help="write the comparison to this file instead of printing it")
    cmp.add_argument("--rally-home", type=Path, help="read the races of this Rally home (default: the pack's, then $RALLY_HOME or ~); "
                                                     "its rally.ini says where they are: files, or an Elasticsearch metrics store")
    cmp.add_argument("--test-mode", action="store_true", help="compare test-mode races (left out otherwise, as are races with failed requests)")
    cmp.set_defaults(func=cmd_compare)
    cal = sub.add_parser("calibrate", help="measure compare's noise floor, false alarms and detection here, from identical races on a "
                                           "warm node (an exact 5 %% and 10 %% change applied to real races)")
    cal.add_argument("--races", type=int, default=120, help="races kept (default 120: 60 disjoint 1-vs-1 and 20 3-vs-3 comparisons)")
    cal.add_argument("--agree", type=int, default=3, help="warm-up: consecutive races that must agree before any is kept (default 3)")
    cal.add_argument("--tolerance", type=float, default=5.0, metavar="PERCENT", help="warm-up: how closely they agree (default 5)")
    cal.add_argument("--version", choices=options.VERSIONS, help="the node's Elasticsearch (default: the pack's)")
    cal.add_argument("--track", help="a study track (default: eventdata, append-no-conflicts-index-only, index-append)")
    cal.add_argument("--challenge", help="with --track")
    cal.add_argument("--task", help="with --track: the task to calibrate")
    cal.add_argument("--track-param", action="append", metavar="KEY=VALUE", help="e.g. eventdata_docs=50000 (the default)")
    cal.set_defaults(func=cmd_calibrate)
