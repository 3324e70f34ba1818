"""``make docs``: every block of the docs (:mod:`.blocks`) rendered from its data; ``--check`` changes nothing and names
each file that is not current (what CI runs).

    python -m devtools.docs.render [--check]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from devtools.docs import articles, blocks, cite, cli_flags, corpora_runs, figures, matrix, rates, record, redline, tables
from ingestlab import paths
from ingestlab.errors import IngestlabError

RENDERERS = {
    "ci-matrix": matrix.table,
    "ci-versions": matrix.versions,
    "cli-flags": cli_flags.table,
    **articles.RENDERERS,
    **corpora_runs.RENDERERS,
    **figures.RENDERERS,
    **rates.RENDERERS,
    **redline.RENDERERS,
    **tables.RENDERERS,
}
# a figure with a unit, outside any block (a ratio is written 24.3×; "4 × 4" is a grid); and the figures that are no
# measurement (a confidence level, a target)
FIGURE = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:×|\s?(?:%|ms\b|µs\b|s\b|min\b|docs/s|MB/s|rows/s|pages/s|GB\b|GiB\b|MiB\b|KB\b))")
CODE_SPAN = re.compile(r"`[^`]*`")
EXAMPLE = re.compile(r"^<!-- example: [\w-]+ -->\n.*?^<!-- /example -->$", re.S | re.M)
NOT_MEASURED = re.compile(
    r"95 % (?:interval|confidence)|(?:near|at most|below|under|≤) \d+ %|exact \d+ %(?: and (?:a )?\d+ %)? change"
    # a design's parameters, not measurements: a case's size, a target, a level, a simulation's σ
    r"|\b\d+ % (?:step|drift|change)\b|\b\d+ % of the time\b|\bat \d+ %|\bσ \d+ %\)"
)


def documents() -> list[Path]:
    """Every Markdown file of the repository that a reader meets: the README, docs/, each track's README, the car configs'."""
    root = paths.REPO_ROOT
    return [
        root / "README.md",
        *sorted((root / "docs").glob("*.md")),
        *sorted(root.glob("tracks/*/README.md")),
        *sorted(root.glob("car-configs/**/*.md")),
    ]


def rendered(path: Path) -> str:
    where = str(path.relative_to(paths.REPO_ROOT))
    return cite.render_text(blocks.render_text(path.read_text(), where, RENDERERS), where)


def record_dir() -> Path:
    return paths.REPO_ROOT / "docs" / "record"


def stale() -> list[Path]:
    """The documents whose blocks and citations are not what the data renders now, and the record's pages that are not
    what the ledger renders (or should not be there)."""
    behind = [p for p in documents() if rendered(p) != p.read_text()]
    pages = record.pages()
    behind += [record_dir() / n for n, text in pages.items() if not (record_dir() / n).is_file() or (record_dir() / n).read_text() != text]
    behind += [p for p in sorted(record_dir().glob("*.md")) if p.name not in pages]
    return behind


def prose(text: str) -> list[str]:
    """``text``'s lines with what is code blanked: fenced blocks, indented blocks (four spaces after a blank line) and
    inline code spans. A figure there is a command's argument or a setting (``--latency p99<=200ms``), not a figure
    the page states as measured."""
    out, fenced, indented, before = [], False, False, ""
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
        elif fenced:
            out.append("")
        else:
            indented = line.startswith("    ") and (indented or not before.strip())
            out.append("" if indented else line)
        before = line
    return CODE_SPAN.sub(lambda m: "\n" * m.group().count("\n"), "\n".join(out)).split("\n")


def unledgered(path: Path) -> list[str]:
    """Figures ``path`` states outside a ledger block (``file:line: figure``): in the documents that take every measured
    figure from the ledger, a published figure is a ``published`` or ``article`` block too."""
    text = cite.blanked(blocks.BLOCK.sub(lambda m: "\n" * m.group().count("\n"), path.read_text()))
    text = EXAMPLE.sub(lambda m: "\n" * m.group().count("\n"), text)  # a command's real output, held against it by tests
    found, name = [], path.relative_to(paths.REPO_ROOT) if path.is_relative_to(paths.REPO_ROOT) else path
    for number, line in enumerate(prose(text), 1):
        line = NOT_MEASURED.sub("", line)
        found += [f"{name}:{number}: {m.group()}" for m in FIGURE.finditer(line)]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.docs.render", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 naming each file that is not current")
    args = parser.parse_args(argv)
    try:
        if args.check:
            behind = stale()
            for p in behind:
                print(f"{p.relative_to(paths.REPO_ROOT)}: not current; run `make docs`", file=sys.stderr)
            loose = [f for p in documents() for f in unledgered(p)]  # every page takes every measured figure from the ledger
            for f in loose:
                print(f"{f}: a figure typed by hand; take it from the ledger (a figure or published block)", file=sys.stderr)
            return 1 if behind or loose else 0
        for p in documents():
            made = rendered(p)
            if made != p.read_text():
                p.write_text(made)
                print(f"rendered {p.relative_to(paths.REPO_ROOT)}")
        record_dir().mkdir(parents=True, exist_ok=True)
        pages = record.pages()
        for name, text in pages.items():
            page = record_dir() / name
            if not page.is_file() or page.read_text() != text:
                page.write_text(text)
                print(f"rendered {page.relative_to(paths.REPO_ROOT)}")
        for page in record_dir().glob("*.md"):
            if page.name not in pages:
                page.unlink()
                print(f"removed {page.relative_to(paths.REPO_ROOT)} (no ledger kind renders it)")
    except IngestlabError as e:
        print(f"ingestlab docs: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
