"""``ingestlab ledger``: the measured runs the docs quote (:mod:`ingestlab.ledger`): list them, or add a figure measured
outside the pack (e.g. how long ``make test`` took on a clean clone)."""

from __future__ import annotations

import re

from ingestlab import ledger, machine
from ingestlab.errors import IngestlabError

FIGURE = re.compile(r"(?P<name>[a-z0-9][a-z0-9_.-]*)=(?P<value>-?[0-9.]+)(?::(?P<unit>[^:]*))?(?::(?P<label>.*))?$")


def figure(text: str) -> tuple[str, ledger.Figure]:
    m = FIGURE.match(text)
    if not m:
        raise IngestlabError(f"--figure {text!r}: expected NAME=VALUE[:UNIT[:LABEL]], e.g. minutes=28.5:min:make test on a clean clone")
    return m["name"], ledger.Figure(float(m["value"]), m["unit"] or "", m["label"] or "")


def cmd_ledger(args) -> int:
    if args.action == "list":
        seen = set()
        for entry in ledger.load_all().values():
            if entry.run in seen:
                continue
            seen.add(entry.run)
            figures = ", ".join(f"{k} {f.value:g}{f.unit}" if f.value is not None else f"{k} —" for k, f in entry.figures.items())
            print(f"{entry.short}  {entry.date[:10]}  {entry.commit or '?'}  {entry.kind}: {figures}")
        return 0
    figures = dict(figure(f) for f in args.figure)
    source = args.source or "measured outside the pack; added with `ingestlab ledger add`"
    where = ledger.target() or ledger.directory()
    out = ledger.record(args.run, args.kind, args.command, figures, conditions=args.conditions or "", where=where, source=source)
    print(f"[ingestlab] ledger entry {out} ({machine.one_line()})")
    return 0


def add(sub) -> None:
    lg = sub.add_parser("ledger", help="the measured runs the docs quote (ledger/): list them, or add one measured outside the pack")
    lsub = lg.add_subparsers(dest="action", required=True)
    lsub.add_parser("list", help="every run in the ledger, a line each").set_defaults(func=cmd_ledger)
    a = lsub.add_parser("add", help="add a run's figures measured outside the pack (this machine, commit and date are recorded)")
    a.add_argument("--run", required=True, help="its id: a stamp such as 2026-11-27T0412-make-test")
    a.add_argument("--kind", required=True, help="what was measured, e.g. 'make test'")
    a.add_argument("--command", required=True, help="the command that was measured, as a user would type it")
    a.add_argument("--figure", action="append", required=True, metavar="NAME=VALUE[:UNIT[:LABEL]]", help="repeatable")
    a.add_argument("--conditions", help="what a reader needs to read the figures right (a clean clone, no node running, ...)")
    a.add_argument("--source", help="where the figures were read")
    a.set_defaults(func=cmd_ledger)
