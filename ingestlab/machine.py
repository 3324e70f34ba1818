"""What machine and software a result was measured on; printed beside every number."""

from __future__ import annotations

import os
import platform
from contextlib import suppress


def busy_ns() -> int:
    """CPU time this machine's cores spent busy so far (all cores; ``/proc/stat``, less idle and I/O wait)."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    busy = sum(ticks) - ticks[3] - (ticks[4] if len(ticks) > 4 else 0)
    return busy * 1_000_000_000 // os.sysconf("SC_CLK_TCK")


def cpu_model() -> str:
    with suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def memory_gib() -> float | None:
    with suppress(OSError), open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    return None


def describe() -> dict:
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": memory_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def one_line(info: dict | None = None) -> str:
    info = info or describe()
    return f"{info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB, {info['os']}, Python {info['python']}"
