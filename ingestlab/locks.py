"""Exclusive locks between the pack's processes, for what two of them may set up at the same moment (two commands
started at once on a fresh machine, or tests on several workers): a lock file beside what it guards, held by one
process at a time; the others wait, then find it done."""

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
    """For ``pip install -e`` of this checkout: its build writes ``ingestlab.egg-info`` into the checkout itself, so two at
    once (the service venv, OSB's, a test's) read each other's half-written metadata. The lock lies in the checkout
    (ignored by git), so it goes when the checkout goes."""
    return held(paths.REPO_ROOT / ".editable-install.lock")
