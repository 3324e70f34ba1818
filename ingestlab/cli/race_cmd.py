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
    return selector, kept


def cmd_compare(args) -> int:
    from ingestlab import compare

    notes: list[str] = []
    name, baseline = _races(args.baseline, args.study, args.test_mode, notes, args.rally_home)
    contenders = [_races(c, args.study, args.test_mode, notes, args.rally_home) for c in args.contender]
    margin = args.margin / 100.0 if args.margin is not None else None
    text = compare.render(args.format, f"{name} ({len(baseline)} race{'s' if len(baseline) != 1 else ''})", compare.aggregate(baseline),
                          [(f"{n} ({len(r)} race{'s' if len(r) != 1 else ''})", compare.aggregate(r)) for n, r in contenders], margin,
                          notes + (["test-mode races only: one sample per task, so most verdicts cannot be called"] if args.test_mode else []),
                          args.method, _measured_rates())
    if args.output:
        Path(args.output).write_text(text)
        print(f"[ingestlab] comparison written to {args.output} ({args.format})")
    else:
        print(text)
    return 0


def _measured_rates() -> str | None:
    """The rules' false-alarm and detection rates, as the newest `ingestlab calibrate` measured them here."""
    from ingestlab.bench import calibrate

    return calibrate.latest_summary()


def cmd_calibrate(args) -> int:
    from ingestlab.bench import calibrate

    calibrate.run(races=args.races, pairs=args.pairs, size=args.size, quota=args.quota, docs=args.docs)
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
    cmp.add_argument("--method", choices=["t", "margin"], default="t",
                     help="t (default): Welch's t-test on log throughput, a 95 %% interval (3 races a side, or one race a side with its "
                          "samples); margin: the earlier rule (2x CV, or non-overlapping min-max with one race a side)")
    cmp.add_argument("--format", choices=["markdown", "csv", "json", "html"], default="markdown")
    cmp.add_argument("--output", help="write the comparison to this file instead of printing it")
    cmp.add_argument("--rally-home", type=Path, help="read the races of this Rally home (default: the pack's, then $RALLY_HOME or ~); "
                                                     "its rally.ini says where they are: files, or an Elasticsearch metrics store")
    cmp.add_argument("--test-mode", action="store_true", help="compare test-mode races (left out otherwise, as are races with failed requests)")
    cmp.set_defaults(func=cmd_compare)
    cal = sub.add_parser("calibrate", help="measure compare's false-alarm and detection rates here: A/A pairs and pairs with a known "
                                           "change (the node's CPU quota 10 %% lower), judged by both rules")
    cal.add_argument("--races", type=int, default=24, help="races of each side (A, then B, interleaved; default 24)")
    cal.add_argument("--pairs", type=int, default=20, help="pairs of each kind drawn from them (default 20)")
    cal.add_argument("--size", type=int, default=3, help="races per side of a pair (default 3)")
    cal.add_argument("--quota", type=float, default=1.5, help="the node's CPU quota in cores on side A; B gets 10 %% less (default 1.5)")
    cal.add_argument("--docs", type=int, default=100_000, help="eventdata documents per race (default 100,000)")
    cal.set_defaults(func=cmd_calibrate)
