"""``ingestlab compare`` and ``ab``: verdicts on stored races, and A/B races in one command (``calibrate``, which
measures what the verdicts lean on, is :mod:`ingestlab.cli.calibrate_cmd`)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ingestlab import studies
from ingestlab.cli import options
from ingestlab.errors import IngestlabError
from ingestlab.rally import results
from ingestlab.rally.side_words import driver_bound
from ingestlab.redline import compare as searches


def _races(selector: str, study: str | None, test_mode: bool, notes: list[str], home: Path | None = None) -> tuple[str, list[dict]]:
    """``RACE_ID`` or ``key:value`` (every stored race with that tag, of the study if given), without the races that
    do not belong in an aggregate, each named in ``notes``; ``home``: a Rally home whose races to read."""
    from ingestlab import compare  # heavy: numpy (scipy where a test is computed); the CLI starts without them

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
        raise IngestlabError(
            f"{selector}: no race left to compare: "
            + "; ".join(left)
            + ("" if test_mode else " (compare test-mode races with --test-mode)")
        )
    mixed = sorted({f"{r.get('track')}/{r.get('challenge')}" for r in kept})
    if len(mixed) > 1:
        raise IngestlabError(
            f"{selector}: its races are of different tracks or challenges ({', '.join(mixed)}); a side must repeat one setup"
        )
    return selector, kept


def _compare_redline(args) -> int:
    """Redline searches (stamps, their directories or redline.json files) on every side: their brackets side by side."""
    if not all(searches.is_redline(s) for s in (args.baseline, *args.contender)):
        raise IngestlabError("compare takes races on every side or redline searches on every side, not both")
    if args.format not in ("markdown", "json"):
        raise IngestlabError(f"--format {args.format}: redline searches compare as markdown or json")
    base, others = searches.load(args.baseline), [searches.load(c) for c in args.contender]
    text = json.dumps(searches.as_json(base, others), indent=2) if args.format == "json" else "\n".join(searches.lines(base, others))
    return _output(args, text, "\n")


def _output(args, text: str, tail: str = "") -> int:
    """The comparison printed, or written to ``--output`` (``tail`` after it)."""
    if args.output:
        Path(args.output).write_text(text + tail)
        print(f"[ingestlab] comparison written to {args.output} ({args.format})")
    else:
        print(text)
    return 0


def cmd_compare(args) -> int:
    from ingestlab import compare  # heavy: numpy (scipy where a test is computed); the CLI starts without them
    from ingestlab.report import comparison
    from ingestlab.verdicts import noise  # heavy: numpy (scipy where a test is computed); the CLI starts without them

    if any(searches.is_redline(s) for s in (args.baseline, *args.contender)):
        return _compare_redline(args)
    notes: list[str] = []
    name, baseline = _races(args.baseline, args.study, args.test_mode, notes, args.rally_home)
    contenders = [_races(c, args.study, args.test_mode, notes, args.rally_home) for c in args.contender]
    margin = args.margin / 100.0 if args.margin is not None else None
    first = baseline[0]
    setup = (first.get("track"), first.get("challenge"), (first.get("cluster") or {}).get("distribution-version"))
    found, left = noise.judged_against(*setup, Path(args.calibration) if args.calibration else None, params=first.get("track-params") or {})
    calibration = found[0] if found else None  # the newest's rates go in the footnote
    notes += left
    notes += _driver_bound_notes([(name, baseline), *contenders])
    notes += _java_options_notes([(name, baseline), *contenders])
    base = compare.aggregate(baseline)
    floors = _floors(found, base)
    if floors:  # the floor is of the baseline's work: a contender doing other work is judged as if its races spread alike
        notes += [
            f"{n}: its races ran with {differ[1]}, the noise floor's with {differ[0]}: the floor judges it as if its races spread alike"
            for n, races in contenders
            if (differ := noise.other_work(found[0], races[0].get("track-params") or {}))
        ]
    text = comparison.render(
        args.format,
        f"{name} ({len(baseline)} race{'s' if len(baseline) != 1 else ''})",
        base,
        [(f"{n} ({len(r)} race{'s' if len(r) != 1 else ''})", compare.aggregate(r)) for n, r in contenders],
        margin=margin,
        notes=notes + (["test-mode races only: one sample per task, not a measurement"] if args.test_mode else []),
        method=args.method,
        calibration=calibration,
        floors=floors,
    )
    return _output(args, text)


def _floors(found: list[dict], tasks) -> dict:
    """Each task's noise floor for sides of one or two races from the calibrations ``found`` (newest first)."""
    from ingestlab.verdicts import noise  # heavy: numpy (scipy where a test is computed); the CLI starts without them

    return {task: noise.floor_across(found, task, "this machine") for task in tasks} if found else {}


def _driver_bound_notes(sides: list[tuple[str, list[dict]]]) -> list[str]:
    """A note for each side whose races were load driver bound in a task (ingestlab.rally.load_side); a race judged whole
    counts for its one rated task, as in the comparison's rows."""
    from ingestlab import compare  # heavy: numpy; loaded already by the comparison this notes

    rated = lambda race: list(compare.task_figures(race))  # noqa: E731
    return [
        f"{name}: load driver bound in {task} ({bound} of {seen} races): its figures there measure the load driver, not the cluster"
        for name, races in sides
        for task, (bound, seen) in sorted(driver_bound(races, rated).items())
    ]


def _java_options_notes(sides: list[tuple[str, list[dict]]]) -> list[str]:
    """One note when the races compared ran on nodes with different extra JVM options (``INGESTLAB_NODE_JAVA_OPTS``, kept
    in their ``node-java-options`` tag), or some with options and some not known: they are judged all the same."""
    unknown = "not known"
    counted = [(name, Counter(results.java_options_of(race) or unknown for race in races)) for name, races in sides]
    seen = {options for _, count in counted for options in count}
    known = seen - {unknown}
    if len(known) < 2 and not (unknown in seen and known - {results.NO_JAVA_OPTIONS}):
        return []
    each = "; ".join(
        f"{name}: " + ", ".join(f"{options} ({n} race{'s' if n != 1 else ''})" for options, n in sorted(count.items()))
        for name, count in counted
    )
    return [
        f"the nodes' extra JVM options (INGESTLAB_NODE_JAVA_OPTS, as the tag {results.JAVA_OPTIONS_TAG} keeps them) differ "
        f"between the races{', or are not known' if unknown in seen else ''}; they are judged all the same, so a difference "
        f"may be the options': {each}"
    ]


def cmd_ab(args) -> int:
    from ingestlab import ab, compare  # heavy: numpy (scipy where a test is computed); the CLI starts without them
    from ingestlab.report import comparison
    from ingestlab.verdicts import noise  # heavy: numpy (scipy where a test is computed); the CLI starts without them

    options.check_agree(args)
    study = studies.get(args.study)
    track = study.trackinfo()
    challenge = args.challenge or track.default_challenge
    task = args.task or next((t.name for t in track.challenge(challenge).schedule if not t.name.startswith(compare.SETUP_PREFIXES)), None)
    if task is None:
        raise IngestlabError(f"challenge {challenge} of {study.name} has no measured task; name one with --task")
    base, cont = ab.side("baseline", args.baseline, track, challenge), ab.side("contender", args.contender, track, challenge)
    if base == ab.Side("baseline", cont.params, cont.cluster):
        raise IngestlabError("--baseline and --contender are the same setup")
    given = Path(args.calibration) if args.calibration else None
    tolerance = args.tolerance / 100.0 if args.tolerance else None
    stamp, found, notes = ab.run(
        study.track, challenge, task, base, cont, args.races, args.seed, args.agree, given, args.target_hosts, tolerance
    )
    sides, left = [], []
    for name in ("baseline", "contender"):  # as compare takes them: a race with failed requests is left out and named
        kept, out = compare.select(results.races_with_tags({"ab": f"{stamp}-{name}"}))
        sides.append(kept)
        left += out
    base_agg = compare.aggregate(sides[0])
    every, _ = noise.judged_against(study.track.name, challenge, base.cluster.get("version") or None, given, params=base.params)
    floors = _floors(every, base_agg)
    print(
        comparison.render(
            "markdown",
            f"{args.baseline} (tag ab:{stamp}-baseline, {len(sides[0])} races)",
            base_agg,
            [(f"{args.contender} (tag ab:{stamp}-contender, {len(sides[1])} races)", compare.aggregate(sides[1]))],
            notes=notes + left + [f"races in random pairs, seed {args.seed}; warm-up races (tag ab:{stamp}-warm-up) left out"],
            calibration=found,
            floors=floors,
        )
    )
    return 0


def add(sub) -> None:
    cmp = sub.add_parser(
        "compare",
        help="compare a baseline with contenders: race ids, or tags aggregating repeated races; or redline "
        "searches (their stamps, comma-separated for repeats of one setup)",
    )
    cmp.add_argument("--baseline", required=True, metavar="RACE_ID|TAG:VALUE|REDLINE_STAMP[,STAMP]")
    cmp.add_argument("--contender", required=True, action="append", metavar="RACE_ID|TAG:VALUE|REDLINE_STAMP[,STAMP]", help="repeatable")
    cmp.add_argument("--study", help="only races of this study (with tags)")
    cmp.add_argument("--margin", type=float, metavar="PERCENT", help="a fixed noise margin (the margin rule with it)")
    cmp.add_argument(
        "--calibration",
        metavar="FILE",
        help="the noise floor and error rates to judge by: a calibration's results.json "
        "(default: the floor spanning every calibration of the baseline's track "
        "on this machine and version, the newest's rates)",
    )
    cmp.add_argument(
        "--method",
        choices=["t", "margin"],
        default="t",
        help="t (default): the race as the unit: Welch's test on log race medians with 3 races a side (Holm across tasks), "
        "fewer only against a measured noise floor; margin: the earlier rule (2x CV of sides of several races)",
    )
    cmp.add_argument("--format", choices=["markdown", "csv", "json", "html"], default="markdown")
    cmp.add_argument("--output", help="write the comparison to this file instead of printing it")
    cmp.add_argument(
        "--rally-home",
        type=Path,
        help="read the races of this Rally home (default: the pack's, then $RALLY_HOME or ~); "
        "its rally.ini says where they are: files, or an Elasticsearch metrics store",
    )
    cmp.add_argument(
        "--test-mode", action="store_true", help="compare test-mode races (left out otherwise, as are races with failed requests)"
    )
    cmp.set_defaults(func=cmd_compare)
    ab_ = sub.add_parser("ab", help="race a baseline and a contender setup in random pairs on warm clusters, then compare them")
    ab_.add_argument("study", help="the study's track")
    ab_.add_argument(
        "--baseline",
        required=True,
        metavar="K=V;K=V",
        help="track params and cluster keys (version, nodes, heap), e.g. 'bulk_size=1000' or 'version=9.2.0'",
    )
    ab_.add_argument("--contender", required=True, metavar="K=V;K=V")
    ab_.add_argument("--challenge")
    ab_.add_argument("--task", help="the task that decides warm-up and the number of races (default: the challenge's first measured one)")
    ab_.add_argument("--races", type=int, help="races a side (default: what the track's calibration here needs for a 10 %% change)")
    ab_.add_argument("--seed", type=int, default=1, help="of the random order of each pair")
    ab_.add_argument("--agree", type=int, default=3, help="warm-up: races in a row that agree within the noise floor (default 3)")
    ab_.add_argument(
        "--tolerance", type=float, metavar="PERCENT", help="warm-up: how closely they agree (default: 2 σ of the calibration, at least 5)"
    )
    ab_.add_argument("--calibration", metavar="FILE", help="the calibration to judge by (default: the newest of the track here)")
    ab_.add_argument("--target-hosts", help="race a running cluster (sides differing in track parameters only)")
    ab_.set_defaults(func=cmd_ab)
