"""What keeps the hand-written pages readable: how long a page is as a reader sees it (markers stripped), and how much
of it is markup a reader never sees (HTML comments: the blocks' and citations' markers, the runs: lines). The
measurement record (docs/record/) is generated and not held to these limits.

    README.md          at most 120 lines as rendered, markup at most 10 % of its characters
    docs/*.md          at most 300 lines, markup at most 10 %
    tracks/*/README.md markup at most 10 %, and the sections of one skeleton (rally-tracks' geonames/README.md)
"""

from __future__ import annotations

import re
from pathlib import Path

from ingestlab import paths

COMMENT = re.compile(r"<!--.*?-->", re.S)
README_LINES, DOC_LINES, MARKUP = 120, 300, 0.10
TRACK_SECTIONS = (
    "## Example document",
    "## Challenges",
    "## Parameters",
    "## Racing it with plain esrally",
    "## Corpus and licence",
    "## Measured",
)


def shown(text: str) -> list[str]:
    """The page's lines with its markers stripped (a line that held only markers counts, as a blank line)."""
    return COMMENT.sub("", text).splitlines()


def markup_share(text: str) -> float:
    return sum(len(m.group()) for m in COMMENT.finditer(text)) / max(len(text), 1)


def hand_written() -> list[Path]:
    root = paths.REPO_ROOT
    return [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted(root.glob("tracks/*/README.md"))]


def problems() -> list[str]:
    """Each hand-written page over its limits, in a line."""
    found = []
    for page in hand_written():
        text, name = page.read_text(), page.relative_to(paths.REPO_ROOT)
        lines = len(shown(text))
        most = README_LINES if page.name == "README.md" and page.parent == paths.REPO_ROOT else DOC_LINES
        if page.parent.parent.name != "tracks" and lines > most:
            found.append(f"{name}: {lines} lines as rendered, more than {most}")
        if markup_share(text) > MARKUP:
            found.append(f"{name}: markup is {markup_share(text):.0%} of its characters, more than {MARKUP:.0%}")
        if page.parent.parent.name == "tracks":
            missing = [s for s in TRACK_SECTIONS if not re.search(rf"^{re.escape(s)}\b", text, re.M)]
            if missing:
                found.append(f"{name}: no section {', '.join(missing)} (the tracks' skeleton)")
    return found
