"""Which load generator runs the pack (Rally or opensearch-benchmark), and whether its version is supported."""

from __future__ import annotations

import sys
from functools import lru_cache
from importlib import import_module, metadata
from importlib.util import find_spec

SUPPORTED = {"esrally": ((2, 12), (2, 13)), "opensearch-benchmark": ((2, 4), (2, 4))}  # (lowest, highest) minor


class Unsupported(RuntimeError):
    pass


@lru_cache(maxsize=None)
def engine() -> str:
    """The load generator running (or installed, when none is running): "rally" or "osb"."""
    if "osbenchmark" in sys.modules:
        return "osb"
    if "esrally" in sys.modules:
        return "rally"

    return "rally" if find_spec("esrally") is not None else "osb"


def generator_module(osb: str, rally: str):
    """The running generator's module, named as opensearch-benchmark or Rally names it (imported on use)."""
    return import_module(osb if engine() == "osb" else rally)


@lru_cache(maxsize=None)
def checked() -> str:
    """The engine, once its installed version is known to be supported; else one line saying what is."""
    name = "esrally" if engine() == "rally" else "opensearch-benchmark"
    try:
        found = metadata.version(name)  # looked up at each call (a test stands in for it)
    except metadata.PackageNotFoundError:
        raise Unsupported("neither esrally nor opensearch-benchmark is installed; install esrally 2.12 or 2.13") from None
    minor = tuple(int(x) for x in found.split(".")[:2])
    low, high = SUPPORTED[name]
    if not low <= minor <= high:
        span = f"{low[0]}.{low[1]}" + (f"–{high[0]}.{high[1]}" if high != low else "")
        raise Unsupported(f"{name} {found} is not supported by this pack (supported: {span}.x)")
    return engine()
