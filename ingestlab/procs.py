"""Stopping processes: the one way the pack ends what it started (nodes, daemons, a race); and finding them by a
variable the pack put in their environment (:func:`carrying`).

Each signal of a sequence is sent to every process still alive, then up to ``grace`` seconds pass
for them to go before the next, harsher one. ``pids_now`` is asked anew each time, so processes that
come and go (a namespace's, a lab's) are all caught.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Callable, Iterable

POLITE = (signal.SIGTERM, signal.SIGKILL)


def carrying(*markers: bytes) -> dict[bytes, list[int]]:
    """Per marker (``NAME=value``), the processes other than this one with it among their environment variables (one
    pass over /proc)."""
    found: dict[bytes, list[int]] = {m: [] for m in markers}
    mine = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == mine:
            continue
        try:
            variables = set((entry / "environ").read_bytes().split(b"\0"))
        except OSError:
            continue
        for m in markers:
            if m in variables:
                found[m].append(int(entry.name))
    return found


def started(pid: int | None) -> int | None:
    """When a process started (clock ticks after boot, ``/proc/PID/stat``): with its PID, what names one process. PIDs are
    used again (``pid_max`` is 32768 on some machines, and a long test run wraps it), so a PID kept for later must be
    kept with this, and checked before it is signalled."""
    if not pid:
        return None
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def alive(pid: int | None, since: int | None = None) -> bool:
    """Whether ``pid`` runs; with ``since`` (its :func:`started`), whether it is still that process and not a later one
    that was given its PID."""
    if not pid:
        return False
    if since is not None and started(pid) != since:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop(pids_now: Callable[[], Iterable[int]], grace: float = 30.0, signals=POLITE, on_escalate=None) -> int:
    """Send ``signals`` in turn to the processes ``pids_now()`` lists until none is left; returns how many
    there were at the most. ``on_escalate(signal, pids)`` is told before each signal after the first."""
    most = 0
    for i, sig in enumerate(signals):
        pids = [p for p in pids_now() if alive(p)]
        most = max(most, len(pids))
        if not pids:
            break
        if i and on_escalate:
            on_escalate(sig, pids)
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + (grace if sig != signal.SIGKILL else 5.0)
        while time.monotonic() < deadline and any(alive(p) for p in pids_now()):
            time.sleep(0.2)
    return most
