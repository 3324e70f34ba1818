"""Why a race failed, in one line: the cause Rally gave, never its help text.

From captured output: the text between ``Cannot race.`` and Rally's help block. Else from Rally's log, counting only
the records of this race's own processes (several races share the log): the exception that ended the race, else the
first error logged. Exceptions any process logged meanwhile are the last resort, named as such, then the exit code."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ingestlab.rally.home import EXCEPTION_LINE

CANNOT = re.compile(r"Cannot (?:race|execute-test|run)\.\s*(.*)", re.S)  # Rally's "Cannot race.", OSB's test runs
HELP = re.compile(r"^\s*Getting further help:", re.M)
RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (?:\S+/)?PID:(\d+) (\S+) ([A-Z]+) (.*)$")

ENDING = ("Cannot run subcommand", "A fatal error occurred while running subcommand")  # esrally's main process, at the end
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Record:
    pid: int
    logger: str
    level: str
    message: str
    exceptions: list[str] = field(default_factory=list)  # the exception lines of its traceback, in order


def records(text: str) -> list[Record]:
    """Rally's log as records: a line with a time and a PID starts one, the lines after it (a traceback) belong to it."""
    found: list[Record] = []
    for line in text.splitlines():
        head = RECORD.match(line)
        if head:
            found.append(Record(int(head.group(1)), head.group(2), head.group(3), head.group(4)))
        elif found and EXCEPTION_LINE.match(line):
            found[-1].exceptions.append(line.strip())
    return found


def from_output(output: str) -> str | None:
    """The cause Rally printed (``Cannot race. …`` up to its help block), in one line; None when it printed none."""
    text = ANSI.sub("", output or "")
    found = list(CANNOT.finditer(text))
    if not found:
        return None
    cause = HELP.split(found[-1].group(1), maxsplit=1)[0]  # the last: Rally prints it once, at the end
    return " ".join(cause.split()) or None


def from_log(text: str, pids: set[int]) -> str | None:
    """The cause this race's own processes (``pids``) logged, in one line; None when they logged none."""
    own = [r for r in records(text) if r.pid in pids]
    for r in reversed(own):
        if r.message.startswith(ENDING) and r.exceptions:
            return _short(r.exceptions[-1])
    for r in own:
        if r.level in ("ERROR", "CRITICAL"):
            return _short(r.exceptions[-1]) if r.exceptions else " ".join(r.message.split())
    return None


def _short(exception_line: str) -> str:
    """``esrally.exceptions.RallyError: x`` as ``RallyError: x``: the type's own name is enough to read it."""
    kind, _, rest = exception_line.partition(": ")
    return f"{kind.rsplit('.', 1)[-1]}: {rest}"


def cause(output: str, log_text: str, pids: set[int], returncode: int, logged: tuple[str, ...] = ()) -> str:
    """The one line that says why the race failed (see the module's text)."""
    said = from_output(output) or from_log(log_text, pids)
    if said:
        return said[:500]
    if logged:
        return f"{_short(logged[0])} (logged while the race ran; another race on this machine may have logged it)"[:500]
    return f"esrally exited with {returncode} and gave no cause"
