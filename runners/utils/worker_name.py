"""Name Rally's load-driver workers (the kernel name :data:`NAME`, what ``ps`` shows) so that a race's footprint
(:mod:`ingestlab.rally.footprint`) can tell them from Rally's other processes of the same command line. Off Linux, or
if the kernel refuses, nothing happens."""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import re

NAME = "rally-worker"
PR_SET_NAME = 15
_WORKER = re.compile(r"^Actor_(?:[\w.]*\.)?Worker__")


def is_worker(process_name: str) -> bool:
    """Whether a ``multiprocessing`` process name is thespian's for Rally's (or opensearch-benchmark's) Worker actor."""
    return bool(_WORKER.match(process_name))


def mark(process_name: str | None = None) -> bool:
    """Give this process the kernel name :data:`NAME` when it is a load-driver worker; whether it did."""
    if not is_worker(process_name if process_name is not None else multiprocessing.current_process().name):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_NAME, ctypes.c_char_p(NAME.encode()), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
