"""Move a table of a page's hand-typed figures into the ledger: its measured cells become figures of one run's entry
(added to it when the run has one, else a new entry that says it was transcribed), and the page's cells become the
blocks that render them — the same text, now from the ledger. A published column paired with a measured one
(``--pair 5=2``) becomes that figure's published value. A cell that is no figure (a name, a dash) is left as it is.

    python -m ingestlab.docs.transcribe docs/studies.md --line 35 --run ed8b4486 --date 2026-11-23 \\
        --command 'make demo' --source 'transcribed from docs/studies.md at <commit>' --pair 5=2
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from ingestlab import ledger, machine, paths
from ingestlab.errors import IngestlabError

CELL = re.compile(
    r"^(?P<lead>\*{0,2})(?P<num>\d[\d,]*(?:\.\d+)?)(?P<unit>×| ?(?:%|ms|µs|s|min|docs/s|MB/s|rows/s|pages/s|GB|GiB|MiB|KB))?"
    r"(?P<rest>\*{0,2}(?:[\s,;].*)?)$"
)
SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    return SLUG.sub("-", re.sub(r"<!--.*?-->|`|\*", "", text).lower()).strip("-")[:40] or "x"


def table_at(lines: list[str], line: int) -> tuple[int, int]:
    """The first and last index (0-based) of the Markdown table that holds 1-based ``line``."""
    at = line - 1
    if not (0 <= at < len(lines)) or not lines[at].lstrip().startswith("|"):
        raise IngestlabError(f"line {line} is not a row of a table")
    first, last = at, at
    while first > 0 and lines[first - 1].lstrip().startswith("|"):
        first -= 1
    while last + 1 < len(lines) and lines[last + 1].lstrip().startswith("|"):
        last += 1
    return first, last


def cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


DURATION = re.compile(r"^(?P<lead>\*{0,2})(?P<min>\d+) min (?P<sec>\d+) s(?P<rest>\*{0,2}(?:[\s,;].*)?)$")


def parse(text: str) -> tuple[float, str, str | None, str, str] | None:
    """(value, unit, digits, lead, rest) of a cell that starts with a figure; None otherwise. ``M min S s`` is a
    duration in seconds (digits None: it renders the same way)."""
    d = DURATION.match(text)
    if d:
        return float(int(d.group("min")) * 60 + int(d.group("sec"))), "s", None, d.group("lead"), d.group("rest")
    m = CELL.match(text)
    if not m:
        return None
    num = m.group("num")
    digits = str(len(num.split(".")[1])) if "." in num else "0"
    return float(num.replace(",", "")), (m.group("unit") or "").strip(), digits, m.group("lead"), m.group("rest")


def block(kind: str, run: str, name: str, unit: str, digits: str | None) -> str:
    bare = "" if unit else " bare=yes"
    places = "" if digits is None else f" digits={digits}"
    return f"<!-- ingestlab:{kind} run={run} name={name}{places}{bare} --><!-- /ingestlab:{kind} -->"


def _put(figures: dict, run: str, name: str, got: tuple, label: str, published: float | None = None) -> str:
    """Record the parsed cell text ``got`` as figure ``name``; the text that renders it (its lead and rest kept)."""
    value, unit, digits, lead, rest = got
    figures[name] = ledger.Figure(value, unit, label, published)
    return lead + block("figure", run, name, unit, digits) + rest


def _slashed(text: str, run: str, name: str, label: str, slash: str, figures: dict) -> str | None:
    """A cell of figures split by `` / ``: ``slash`` ``published`` (this run's figure / the article's) or the parts' names
    (``p50,p90,p99``); None when the cell is not such a cell."""
    parts = [x.strip() for x in text.split(" / ")]
    got = [parse(x) for x in parts]
    if len(parts) < 2 or not all(got):
        return None
    if slash == "published":
        if len(parts) != 2:
            return None
        here, pub = got
        return f"{_put(figures, run, name, here[:4] + ('',), label, pub[0])} / {block('published', run, name, pub[1], pub[2])}{pub[4]}"
    names = slash.split(",")
    if len(names) != len(parts):
        return None
    return " / ".join(_put(figures, run, f"{name}-{part}", one, f"{label}, {part}") for part, one in zip(names, got))


PAREN = re.compile(r"^(?P<main>\S+) \((?P<inner>.+)\)$")


def _bracketed(text: str, run: str, name: str, label: str, paren: str, figures: dict) -> str | None:
    """A cell ``X (Y / Z)``: the figure X, and Y and Z named by ``paren`` (``p90,p99``); a part that is no figure (a dash)
    stays as it is."""
    m = PAREN.match(text)
    main = m and parse(m.group("main"))
    inner = m.group("inner") if m else ""
    parts = inner.split(" / ") if " / " in inner else inner.split("–")
    names = paren.split(",")
    if not main or len(parts) != len(names):
        return None
    out = []
    for part, text_of in zip(names, parts):
        got = parse(text_of.strip())
        out.append(_put(figures, run, f"{name}-{part}", got, f"{label}, {part}") if got else text_of)
    return f"{_put(figures, run, name, main, label)} (" + (" / " if " / " in inner else "–").join(out) + ")"


RANGE = re.compile(r"^(?P<low>\d[\d,]*(?:\.\d+)?)–(?P<high>\d[\d,]*(?:\.\d+)?)$")


def _range(text: str, run: str, name: str, label: str, figures: dict) -> str | None:
    """A cell ``A–B`` (an interval, a span): two figures, ``name-low`` and ``name-high``."""
    m = RANGE.match(text)
    if not m:
        return None
    return "–".join(_put(figures, run, f"{name}-{part}", parse(m.group(part)), f"{label}, {part}") for part in ("low", "high"))


def transcribe(
    lines: list[str],
    line: int,
    run: str,
    pairs: dict[int, int],
    key: int = 0,
    prefix: str = "",
    slash: str | None = None,
    rows: set[int] | None = None,
    paren: str | None = None,
) -> tuple[list[str], dict]:
    """The table's lines with blocks in its figure cells, and the figures (name → ledger.Figure)."""
    first, last = table_at(lines, line)
    header = []
    for h in cells(
        lines[first]
    ):  # a header named twice (client CPU: pack | minimal | node CPU: pack | minimal): the second gets its column
        header.append(slug(h) if slug(h) not in header else f"{slug(h)}-{len(header)}")
    figures: dict[str, ledger.Figure] = {}
    out = list(lines)
    published_of = {m: p for p, m in pairs.items()}
    for i in range(first + 2, last + 1):
        if rows and i + 1 not in rows:
            continue  # another run's row (--rows: the 1-based lines of this run's rows)
        row = cells(lines[i])
        name_of = f"{prefix}{slug(row[key])}"
        new = list(row)
        for j, text in enumerate(row):
            if j == key or j in pairs:
                continue
            name = f"{name_of}-{header[j] if j < len(header) else j}"
            if RANGE.match(text):
                new[j] = _range(text, run, name, f"{row[key]}: {cells(lines[first])[j]}", figures)
                continue
            if paren and "(" in text:
                made = _bracketed(text, run, name, f"{row[key]}: {cells(lines[first])[j]}", paren, figures)
                if made is not None:
                    new[j] = made
                    continue
            if slash and " / " in text:
                made = _slashed(text, run, name, f"{row[key]}: {cells(lines[first])[j]}", slash, figures)
                if made is not None:
                    new[j] = made
                    continue
            got = parse(text)
            if not got:
                continue
            if name in figures:
                raise IngestlabError(f"line {i + 1}: two cells named {name}; give --key the column that tells the rows apart")
            published = None
            if j in published_of and published_of[j] < len(row):
                pub = parse(row[published_of[j]])
                if pub:
                    published = pub[0]
                    new[published_of[j]] = pub[3] + block("published", run, name, pub[1], pub[2]) + pub[4]
            new[j] = _put(figures, run, name, got, f"{row[key]}: {cells(lines[first])[j]}", published)
        out[i] = "| " + " | ".join(new) + " |"
    return out, figures


def add(run: str, figures: dict, meta: dict) -> Path:
    """Into the run's entry when it has one (its figures kept, a note of where the new ones came from added to its
    source); else a new entry, commit unknown."""
    where = paths.REPO_ROOT / "ledger"
    found = ledger.load_all(where).get(run)
    if found:
        path = next(p for p in where.glob("*.json") if json.loads(p.read_text()).get("run") == found.run)
        clash = sorted(set(found.figures) & set(figures))
        if clash:
            raise IngestlabError(f"run {run} already has figures {', '.join(clash)}; give --prefix")
        found.figures.update(figures)
        if meta.get("source") and meta["source"] not in found.source:
            found.source = f"{found.source}; {meta['source']}".strip("; ")
        entry = found
    else:
        for k in ("date", "command", "source", "kind"):
            if not meta.get(k):
                raise IngestlabError(f"run {run} has no ledger entry: a new one needs --{k}")
        entry = ledger.Entry(
            run=run,
            kind=meta["kind"],
            date=meta["date"],
            commit=None,
            machine=meta.get("machine") or machine.describe(),
            command=meta["command"],
            figures=figures,
            versions=meta.get("versions") or {},
            conditions=meta.get("conditions") or "",
            source=meta["source"],
        )
        path = where / f"{meta['date'][:10]}-{slug(meta['kind'])}-{run}.json"
    path.write_text(json.dumps(entry.to_json(), indent=2, ensure_ascii=False) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ingestlab.docs.transcribe", description=__doc__.split("\n\n")[0])
    p.add_argument("page")
    p.add_argument("--line", type=int, required=True, help="a line of the table")
    p.add_argument("--run", required=True)
    p.add_argument("--pair", action="append", default=[], metavar="PUBLISHED=MEASURED", help="0-based columns")
    p.add_argument("--key", type=int, default=0, help="the column that names a row (default 0)")
    p.add_argument("--prefix", default="", help="before every figure's name (a second table of one run)")
    p.add_argument("--rows", help="comma-separated 1-based line numbers: only these rows are this run's (a table of several runs)")
    p.add_argument("--paren", help="cells 'X (Y / Z)': the names of the bracketed parts (p90,p99)")
    p.add_argument("--slash", help="cells of figures split by ' / ': 'published' (here / the article's) or the parts' names (p50,p90,p99)")
    for k in ("kind", "date", "command", "conditions", "source"):
        p.add_argument(f"--{k}")
    p.add_argument("--version", help="ENGINE:VERSION of a new entry, e.g. elasticsearch:6.8.23")
    p.add_argument("--cpu", help="a new entry's machine CPU (default: this machine's)")
    args = p.parse_args(argv)
    page = Path(args.page)
    try:
        pairs = {int(a): int(b) for a, b in (x.split("=") for x in args.pair)}
        lines = page.read_text().split("\n")
        rows = {int(r) for r in args.rows.split(",")} if args.rows else None
        new, figures = transcribe(lines, args.line, args.run, pairs, args.key, args.prefix, args.slash, rows, args.paren)
        meta = {k: getattr(args, k) for k in ("kind", "date", "command", "conditions", "source")}
        if args.version:
            engine, _, version = args.version.partition(":")
            meta["versions"] = {"engine": engine, "version": version, "rally": "2.13.0"}
        if args.cpu:
            meta["machine"] = {**machine.describe(), "cpu": args.cpu}
        path = add(args.run, figures, meta)
        page.write_text("\n".join(new))
        print(f"{len(figures)} figures into {path.relative_to(paths.REPO_ROOT)}; {page} now renders them (run `make docs`)")
    except (IngestlabError, ValueError) as e:
        print(f"transcribe: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
