"""``ingestlab osb export``: the studies' workloads for a user's own opensearch-benchmark, and their generated corpora
where that OSB looks for them."""

from __future__ import annotations

import os
from pathlib import Path

from ingestlab import studies
from ingestlab.cli import options
from ingestlab.osb import race, workloads


def cmd_export(args) -> int:
    names = [studies.get(n.strip()).name for n in args.tracks.split(",")] if args.tracks else None
    out = workloads.export(Path(args.out), names)
    print(
        f"[ingestlab] workloads in {out}: race one with opensearch-benchmark run --pipeline=benchmark-only --workload-path={out}/<name> ..."
    )
    if args.corpora:
        home = Path(os.environ.get("BENCHMARK_HOME") or Path.home())
        params = options.track_params(args)
        for name in names or sorted(p.name for p in out.iterdir()):
            race.make_corpora(studies.get(name).trackinfo(params), args.test_mode, cache=race.data_cache(home))
        print(f"[ingestlab] generated corpora in {race.data_cache(home)}" + (" (the -1k files of --test-mode)" if args.test_mode else ""))
    return 0


def add(sub) -> None:
    o = sub.add_parser("osb", help="the studies as opensearch-benchmark workloads, for your own OSB")
    osub = o.add_subparsers(dest="action", required=True)
    e = osub.add_parser("export", help="write the workloads (made from the tracks) and, with --corpora, their generated corpora")
    e.add_argument("out", help="directory: the workloads go into OUT/workloads/<name>")
    e.add_argument("--tracks", help="comma-separated (default: every study track)")
    e.add_argument(
        "--corpora",
        action="store_true",
        help="also make the generated corpora in OSB's data cache ($BENCHMARK_HOME/.osb, else ~/.osb): OSB's own "
        "environment lacks the pack's generators",
    )
    e.add_argument("--test-mode", action="store_true", help="with --corpora: only the -1k files OSB's --test-mode reads")
    e.add_argument("--track-param", action="append", metavar="KEY=VALUE", help="track parameter that sizes a corpus, repeatable")
    e.set_defaults(func=cmd_export)
