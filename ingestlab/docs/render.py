"""``make docs``: every block of the docs (:mod:`.blocks`) rendered from its data; ``--check`` changes nothing and names
each file that is not current (what CI runs).

    python -m ingestlab.docs.render [--check]
"""
from __future__ import annotations

import argparse
import sys
import re
from pathlib import Path

from ingestlab import paths
from ingestlab.docs import blocks, cli_flags, figures, matrix, rates, redline
from ingestlab.errors import IngestlabError

RENDERERS = {"ci-matrix": matrix.table, "ci-versions": matrix.versions, "cli-flags": cli_flags.table, **figures.RENDERERS, **rates.RENDERERS, **redline.RENDERERS}
# the documents whose every measured figure comes from the ledger (the rest are being moved there, page by page)
FROM_LEDGER_ONLY = ["README.md"]
# a figure with a unit, outside any block; and the figures that are no measurement (a confidence level, a target)
FIGURE = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?\s?(?:×|%|ms\b|µs\b|s\b|min\b|docs/s|MB/s|rows/s|pages/s|GB\b|GiB\b|MiB\b|KB\b)")
NOT_MEASURED = re.compile(r"95 % (?:interval|confidence)|(?:near|at most|below|under|≤) \d+ %|exact \d+ %(?: and (?:a )?\d+ %)? change")


def documents() -> list[Path]:
    """Every Markdown file of the repository that a reader meets: the README, docs/, each track's README, the car configs'."""
    root = paths.REPO_ROOT
    return [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted(root.glob("tracks/*/README.md")),
            *sorted(root.glob("car-configs/**/*.md"))]


def rendered(path: Path) -> str:
    return blocks.render_text(path.read_text(), str(path.relative_to(paths.REPO_ROOT)), RENDERERS)


def stale() -> list[Path]:
    """The documents whose blocks are not what the data renders now."""
    return [p for p in documents() if rendered(p) != p.read_text()]


def unledgered(path: Path) -> list[str]:
    """Figures ``path`` states outside a ledger block (``file:line: figure``): in the documents that take every measured
    figure from the ledger, a published figure is a ``published`` block too."""
    text = blocks.BLOCK.sub("", path.read_text())
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        line = NOT_MEASURED.sub("", line)
        found += [f"{path.relative_to(paths.REPO_ROOT)}:{number}: {m.group()}" for m in FIGURE.finditer(line)]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ingestlab.docs.render", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 naming each file that is not current")
    args = parser.parse_args(argv)
    try:
        if args.check:
            behind = stale()
            for p in behind:
                print(f"{p.relative_to(paths.REPO_ROOT)}: not current; run `make docs`", file=sys.stderr)
            loose = [f for name in FROM_LEDGER_ONLY for f in unledgered(paths.REPO_ROOT / name)]
            for f in loose:
                print(f"{f}: a figure typed by hand; take it from the ledger (a figure or published block)", file=sys.stderr)
            return 1 if behind or loose else 0
        for p in documents():
            made = rendered(p)
            if made != p.read_text():
                p.write_text(made)
                print(f"rendered {p.relative_to(paths.REPO_ROOT)}")
    except IngestlabError as e:
        print(f"ingestlab docs: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
