"""``ingestlab``: provision a local cluster, prepare corpora, race studies and any Rally track, report them.

Each command group is one module here with an ``add(subparsers)``; this module only assembles them."""

from __future__ import annotations

import argparse
import signal
import sys

from ingestlab.cli import calibrate_cmd, cluster_cmd, corpus_cmd, osb_cmd, race_cmd, redline_cmd, study_cmd, sweep_cmd, verdict_cmd
from ingestlab.errors import IngestlabError


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="ingestlab", description=__doc__.splitlines()[0])
    sub = top.add_subparsers(dest="command", required=True)
    for module in (cluster_cmd, corpus_cmd, race_cmd, verdict_cmd, calibrate_cmd, study_cmd, sweep_cmd, redline_cmd, osb_cmd):
        module.add(sub)
    return top


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the pack is: everything it set up is taken down as after Ctrl-C."""


def _terminated(signum, frame):
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    return run(parser().parse_args(argv))


def run(args, name: str = "ingestlab") -> int:
    """Run the command ``args`` names (``args.func``): an error the pack names is one line on stderr and exit 2; SIGTERM
    and Ctrl-C take down what it set up. ``name`` begins those lines."""
    if hasattr(sys.stdout, "reconfigure"):  # a line at a time in a pipe too (`| tee`), as on a terminal
        sys.stdout.reconfigure(line_buffering=True)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:  # an inherited "ignore" stays
        signal.signal(signal.SIGTERM, _terminated)
    try:
        return args.func(args)
    except IngestlabError as e:
        print(f"{name}: error: {e}", file=sys.stderr)
        return 2
    except Terminated:
        print(f"{name}: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
