"""Exclusive locks between the pack's processes, for what two of them may set up at the same moment: a lock file
beside what it guards; the others wait, then find it done."""

from __future__ import annotations

import contextlib
import fcntl
from pathlib import Path

from ingestlab import paths


@contextlib.contextmanager
def held(lock_file: Path):
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def editable_install():
    """For ``pip install -e`` of this checkout, whose build writes ``ingestlab.egg-info`` into it: two at once would clash."""
    return held(paths.REPO_ROOT / ".editable-install.lock")
