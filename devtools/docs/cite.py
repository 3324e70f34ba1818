"""Figures cited in a short form. A hand-written page declares the runs it cites once, on a line of its own, and cites
each figure by the run's alias and the figure's name; the value between the marks is what ``make docs`` writes from the
ledger (its unit and digits too):

    <!-- runs: demo=a7008a44 ci=2026-11-29T0546-make-test -->
    … bulk 1000 ran <!--demo.bulk1000-over-single-->49.5×<!----> the index API
    (the article: <!--demo.bulk1000-over-single.published-->24.3×<!---->), and make test took <!--ci.duration-->23 min 39 s<!---->.

``.published`` takes the article's figure of the same name; ``:N`` after the name sets the decimals
(``<!--demo.change:0-->``). A figure the run did not measure reads ``—``. Each alias links to its run in the measurement
record (:mod:`.record`), which holds the command, machine and commit."""

from __future__ import annotations

import re

from devtools import ledger
from devtools.docs import figures
from ingestlab.errors import IngestlabError

RUNS = re.compile(r"^<!-- runs: (?P<pairs>[^>]*?) -->$", re.M)
CITATION = re.compile(
    r"<!--(?P<alias>[a-z][\w]*)\.(?P<name>[\w-]+?)(?P<published>\.published)?(?::(?P<digits>\d))?-->(?P<value>.*?)<!---->"
)


def aliases(text: str, where: str) -> dict[str, str]:
    """The page's run aliases (alias → run id), from its ``runs:`` lines."""
    found: dict[str, str] = {}
    for line in RUNS.finditer(text):
        for word in line.group("pairs").split():
            alias, sep, run = word.partition("=")
            if not sep or not alias or not run:
                raise IngestlabError(f"{where}: a runs: line takes alias=run words, not {word!r}")
            found[alias] = run
    return found


def render_text(text: str, where: str) -> str:
    """``text`` with every cited figure written anew from the ledger."""
    runs = aliases(text, where)

    def one(m: re.Match) -> str:
        alias = m.group("alias")
        if alias not in runs:
            raise IngestlabError(f"{where}: the figure {m.group(0)[:60]!r} cites run alias {alias!r}, which no runs: line declares")
        f = figures.entry_of({"run": runs[alias]}).figure(m.group("name"))
        value = f.published if m.group("published") else f.value
        made = figures.number(value, f.unit, m.group("digits"))
        return m.group(0).replace(f"-->{m.group('value')}<!---->", f"-->{made}<!---->")

    return CITATION.sub(one, text)


def blanked(text: str) -> str:
    """``text`` with every citation's value blanked (the check for figures typed by hand skips them)."""
    return CITATION.sub("", text)


def check_runs(text: str, where: str) -> list[str]:
    """Aliases declared for runs the ledger does not hold."""
    entries = ledger.load_all()
    return [f"{where}: runs: {a}={r} is not in the ledger" for a, r in aliases(text, where).items() if r not in entries]
