"""``make docs``: every block of the docs (:mod:`.blocks`) rendered from its data; ``--check`` changes nothing and names
each file that is not current (what CI runs).

    python -m ingestlab.docs.render [--check]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ingestlab import paths
from ingestlab.docs import blocks, matrix
from ingestlab.errors import IngestlabError

RENDERERS = {"ci-matrix": matrix.table, "ci-versions": matrix.versions}


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ingestlab.docs.render", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 naming each file that is not current")
    args = parser.parse_args(argv)
    try:
        if args.check:
            behind = stale()
            for p in behind:
                print(f"{p.relative_to(paths.REPO_ROOT)}: not current; run `make docs`", file=sys.stderr)
            return 1 if behind else 0
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
