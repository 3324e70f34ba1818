"""The worked examples of the README and docs (``<!-- example: NAME -->`` … ``<!-- /example -->``): each is a real
captured output, an indented block whose first line is ``$ <command>`` and whose other lines are what the command
printed (all of it, or the part worth showing). Tests hold each against the command's output today:

- :func:`check` (an example whose command reads stored data: a report, a comparison of stored races): every line of
  the example is a line of today's output, as it is;
- :func:`check_shape` (an example of a live race, whose numbers differ from run to run): every line of the example,
  its numbers masked, is a line of today's output with its numbers masked, so a column, a word or a line the command
  no longer prints fails it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^<!-- example: (?P<name>[\w-]+) -->\n(?P<body>.*?)^<!-- /example -->$", re.S | re.M)
NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")
FIXTURES = ROOT / "tests" / "fixtures" / "examples"  # rally/: a Rally home; results/: the pack's results


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def examples() -> dict[str, tuple[str, list[str], Path]]:
    """name → (the command shown, the output lines shown, the page)."""
    found = {}
    for page in pages():
        for m in BLOCK.finditer(page.read_text()):
            lines = [line[4:] if line.startswith("    ") else line for line in m.group("body").rstrip("\n").splitlines()]
            if not lines or not lines[0].startswith("$ "):
                raise AssertionError(f"{page.name}: example {m.group('name')} does not start with '$ <command>'")
            if m.group("name") in found:
                raise AssertionError(f"example {m.group('name')} is in {found[m.group('name')][2].name} and {page.name}")
            found[m.group("name")] = (lines[0][2:], [line for line in lines[1:] if line.strip()], page)
    return found


def _missing(shown: list[str], output: str, key) -> list[str]:
    seen = {key(line.rstrip()) for line in output.splitlines()}
    return [line for line in shown if key(line.rstrip()) not in seen]


def check(name: str, output: str) -> None:
    command, shown, page = examples()[name]
    missing = _missing(shown, output, lambda line: line)
    assert not missing, f"{page.name}, example {name} ({command}): not in today's output:\n" + "\n".join(missing)


def mask(line: str) -> str:
    return NUMBER.sub("#", line)


def check_shape(name: str, output: str) -> None:
    command, shown, page = examples()[name]
    missing = _missing(shown, output, mask)
    assert not missing, f"{page.name}, example {name} ({command}): no line of this shape in today's output:\n" + "\n".join(missing)
