"""Two or more redline searches side by side: each side's sustainable rate as the bracket its search ended with (at or
above the highest rate whose probes all met the target, below the lowest above it that failed), and a verdict only
where the brackets do not overlap. A side of several searches of one setup takes the hull of their brackets; an open
end is shown as open, never as 0."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ingestlab import paths
from ingestlab.errors import IngestlabError

MISSING = "—"
STAMP = re.compile(r"^\d{8}T\d{6}$")


@dataclass(frozen=True)
class Side:
    name: str
    results: tuple[dict, ...]

    @property
    def low(self) -> float | None:
        """The bracket's lower end: the lowest sustained rate of the side's searches (None: one of them sustained none)."""
        rates = [r.get("rate") for r in self.results]
        return None if any(v is None for v in rates) else min(rates)

    @property
    def high(self) -> float | None:
        """The upper end: the highest rate that failed above the sustained one (None: one search never failed above it)."""
        above = [r.get("failed_above") for r in self.results]
        return None if any(v is None for v in above) else max(above)


def _file(word: str) -> Path:
    if STAMP.match(word):
        return paths.results_dir() / "redline" / word / "redline.json"
    path = Path(word)
    return path / "redline.json" if path.is_dir() else path


def is_redline(selector: str) -> bool:
    """Whether a compare selector names redline searches: stamps of ``results/redline/`` or their directories or files."""
    words = [w for w in selector.split(",") if w]
    return bool(words) and all(STAMP.match(w) or _file(w).name == "redline.json" and _file(w).is_file() for w in words)


def load(selector: str) -> Side:
    """A side: one search (its stamp, directory or redline.json) or several of one setup, comma-separated."""
    results = []
    for word in [w for w in selector.split(",") if w]:
        f = _file(word)
        if not f.is_file():
            raise IngestlabError(f"{word}: no redline search there (looked for {f})")
        try:
            result = json.loads(f.read_text())
        except (OSError, ValueError) as e:
            raise IngestlabError(f"{f}: not a redline result ({e})") from None
        if not isinstance(result, dict) or "latency_target" not in result or "probes" not in result:
            raise IngestlabError(f"{f}: not a redline result (no latency_target or probes)")
        results.append(result)
    setups = {_setup(r) for r in results}
    if len(setups) > 1:
        raise IngestlabError(f"{selector}: its searches are of different setups ({'; '.join(sorted(setups))}); a side repeats one")
    return Side(selector, tuple(results))


def _setup(result: dict) -> str:
    return f"{result.get('track')}/{result.get('challenge')}/{result.get('task')}, bulk size {result.get('bulk_size')}"


def _target(result: dict) -> str:
    t = result["latency_target"]
    return f"p{t['percentile']} <= {t['ms']:g} ms, error rate <= {result.get('error_rate', 0):.2%}"


def verdict(base: Side, other: Side) -> tuple[str, float | None, float | None]:
    """higher / lower / not told apart, and the ratio other ÷ base as far as the brackets bound it (None: open)."""
    low = other.low / base.high if other.low is not None and base.high else None
    high = other.high / base.low if other.high is not None and base.low else None
    if low is not None and low >= 1:
        return "higher", low, high
    if high is not None and high <= 1:
        return "lower", low, high
    return "not told apart (the brackets overlap)", low, high


def _rate(v: float | None, open_as: str) -> str:
    return open_as if v is None else f"{v:,.0f}"


def _ratio(low: float | None, high: float | None) -> str:
    if low is None and high is None:
        return MISSING
    if low is None:
        return f"≤ {high:.2f}×"
    if high is None:
        return f"≥ {low:.2f}×"
    return f"{low:.2f}–{high:.2f}×"


def check_comparable(sides: list[Side]) -> None:
    targets = {_target(r) for s in sides for r in s.results}
    if len(targets) > 1:
        raise IngestlabError(f"the searches held different targets ({'; '.join(sorted(targets))}): their rates answer different questions")


def lines(base: Side, others: list[Side]) -> list[str]:
    sides = [base, *others]
    check_comparable(sides)
    out = [
        f"Redline comparison, target {_target(base.results[0])}; baseline {base.name}:",
        "",
        "| side | searches | setup | engine, version | sustainable docs/s (bracket of the knee) | full speed docs/s | "
        "against the baseline |",
        "|---|---:|---|---|---|---|---|",
    ]
    for side in sides:
        knee = f"{_rate(side.low, 'not met (no lower end)')} – {_rate(side.high, 'open (never failed above it)')}"
        fulls = ", ".join(_rate((r.get("full_speed") or {}).get("rate"), MISSING) for r in side.results)
        engines = ", ".join(sorted({f"{r.get('engine') or 'elasticsearch'} {r.get('es_version') or MISSING}" for r in side.results}))
        if side is base:
            against = "(baseline)"
        else:
            word, low, high = verdict(base, side)
            against = f"{word}: {_ratio(low, high)}"
        out.append(f"| {side.name} | {len(side.results)} | {_setup(side.results[0])} | {engines} | {knee} | {fulls} | {against} |")
    out += [
        "",
        "Each bracket is where its search left the knee: at or above the highest offered rate whose probes all met the "
        "target, below the lowest that failed above it. A side of several searches takes the hull of their brackets. "
        "A verdict needs brackets that do not overlap; the ratio is bounded by their ends.",
    ]
    single = [s.name for s in sides if len(s.results) == 1]
    if single:
        out.append(
            f"One search a side ({', '.join(single)}): its bracket holds that search's resolution and probes, not how far "
            "a second search on a fresh node would move; repeat the search and give the side as STAMP,STAMP to include it."
        )
    stopped = [
        f"{s.name} ({r['stamp']}): {r['stopped']}"
        for s in sides
        for r in s.results
        if r.get("rate") is None or r.get("failed_above") is None
    ]
    if stopped:
        out += ["", "Open ends: " + "; ".join(stopped)]
    return out


def as_json(base: Side, others: list[Side]) -> dict:
    check_comparable([base, *others])
    rows = []
    for side in [base, *others]:
        row = {"side": side.name, "searches": [r["stamp"] for r in side.results], "low": side.low, "high": side.high}
        if side is not base:
            row["verdict"], row["ratio_low"], row["ratio_high"] = verdict(base, side)
        rows.append(row)
    return {"target": _target(base.results[0]), "rows": rows}
