"""Stopping processes, the one way the pack ends what it started: each signal of a sequence goes to every process
still alive, then up to ``grace`` seconds pass before the next; ``pids_now`` is asked anew each time. And finding
processes by a variable the pack put in their environment (:func:`carrying`)."""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import suppress
from pathlib import Path
from typing import Callable, Iterable

POLITE = (signal.SIGTERM, signal.SIGKILL)


class Poller:
    """Calls ``look()`` every ``interval`` seconds from a thread while its ``with`` block runs."""

    interval: float = 1.0

    def look(self) -> None:
        raise NotImplementedError

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.look()

    def __enter__(self):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def carrying(*markers: bytes) -> dict[bytes, list[int]]:
    """Per marker (``NAME=value``), the processes other than this one with it among their environment variables."""
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
    """When a process started (``/proc/PID/stat``): PIDs are used again, so one kept for later is kept with this."""
    if not pid:
        return None
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def alive(pid: int | None, since: int | None = None) -> bool:
    """Whether ``pid`` runs; with ``since`` (its :func:`started`), whether it is still that process."""
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
            with suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + (grace if sig != signal.SIGKILL else 5.0)
        while time.monotonic() < deadline and any(alive(p) for p in pids_now()):
            time.sleep(0.2)
    return most
