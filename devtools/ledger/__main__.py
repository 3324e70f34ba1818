"""``python -m devtools.ledger``: the measured runs the docs quote (:mod:`devtools.ledger`).

python -m devtools.ledger list                 every run in the ledger, a line each
python -m devtools.ledger record KIND ID       a command's run as an entry, from what the command stored
python -m devtools.ledger add --run ... --kind ... --command ... --figure NAME=VALUE[:UNIT[:LABEL]] ...
                                               a figure measured outside the pack (e.g. how long make test took)
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from devtools import ledger
from devtools.ledger import runs
from ingestlab import machine
from ingestlab.errors import IngestlabError

PROG = "python -m devtools.ledger"
FIGURE = re.compile(r"(?P<name>[a-z0-9][a-z0-9_.-]*)=(?P<value>-?[0-9.]+)(?::(?P<unit>[^:]*))?(?::(?P<label>.*))?$")


def figure(text: str) -> tuple[str, ledger.Figure]:
    m = FIGURE.match(text)
    if not m:
        raise IngestlabError(f"--figure {text!r}: expected NAME=VALUE[:UNIT[:LABEL]], e.g. minutes=28.5:min:make test on a clean clone")
    return m["name"], ledger.Figure(float(m["value"]), m["unit"] or "", m["label"] or "")


def cmd_list(args) -> int:
    seen = set()
    for entry in ledger.load_all().values():
        if entry.run in seen:
            continue
        seen.add(entry.run)
        figures = ", ".join(f"{k} {f.value:g}{f.unit}" if f.value is not None else f"{k} —" for k, f in entry.figures.items())
        print(f"{entry.short}  {entry.date[:10]}  {entry.commit or '?'}  {entry.kind}: {figures}")
    return 0


def cmd_add(args) -> int:
    figures = dict(figure(f) for f in args.figure)
    source = args.source or f"measured outside the pack; added with `{PROG} add`"
    where = ledger.target() or ledger.directory()
    out = ledger.record(args.run, args.kind, args.command, figures, conditions=args.conditions or "", where=where, source=source)
    print(f"[ingestlab] ledger entry {out} ({machine.one_line()})")
    return 0


def cmd_record(args) -> int:
    out = runs.record(args.kind, args.id, args.command, replace=args.replace)
    print(f"[ingestlab] ledger entry {out}")
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog=PROG, description="The measured runs the docs quote (ledger/): list them, record a run, add one.")
    actions = top.add_subparsers(dest="action", required=True)
    actions.add_parser("list", help="every run in the ledger, a line each").set_defaults(func=cmd_list)
    r = actions.add_parser("record", help="a command's run as a ledger entry, made from what the command stored")
    r.add_argument(
        "kind",
        metavar="KIND",
        choices=list(runs.KINDS),
        help="study (`ingestlab race` or `demo`: ID is the race id), calibrate, redline, wikipedia-hosts (`ingestlab scale-out`) "
        "or corpora-hardware (`ingestlab corpora --emulated`): ID is the run's stamp",
    )
    r.add_argument("id", metavar="ID", help="the race id or stamp the command printed")
    r.add_argument("--command", help="the command line that ran it, where its results do not keep it (a run made before they did)")
    r.add_argument("--replace", action="store_true", help="write a run that is in the ledger already again (same file)")
    r.set_defaults(func=cmd_record)
    a = actions.add_parser("add", help="add a run's figures measured outside the pack (this machine, commit and date are recorded)")
    a.add_argument("--run", required=True, help="its id: a stamp such as 2026-11-27T0412-make-test")
    a.add_argument("--kind", required=True, help="what was measured, e.g. 'make test'")
    a.add_argument("--command", required=True, help="the command that was measured, as a user would type it")
    a.add_argument("--figure", action="append", required=True, metavar="NAME=VALUE[:UNIT[:LABEL]]", help="repeatable")
    a.add_argument("--conditions", help="what a reader needs to read the figures right (a clean clone, no node running, ...)")
    a.add_argument("--source", help="where the figures were read")
    a.set_defaults(func=cmd_add)
    return top


def main(argv: list[str] | None = None) -> int:
    from ingestlab import cli

    try:
        return cli.run(parser().parse_args(argv), "devtools.ledger")
    except BrokenPipeError:  # `| head` read what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
