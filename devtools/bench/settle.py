"""Before each side of ``python -m devtools.bench overhead``: the nodes start it from the same quiet state.

A side that came right after another task found the node still at work on what that task had left: the refresh
task's last index of a thousand one-document segments merging, a copied destination being flushed. Whichever side
came first in a pair paid for it, and with three rounds the order puts the pack first twice: the raw reindex gave
0.94× with the pack first and 1.10× with the minimal client first in the same run. So before every side the bench
deletes the indices both sides write and waits until the nodes (by their own CPU counters) have spent less than
``quiet_cores`` of a core in a second, or ``wait_s`` have passed. (Only the nodes: the previous side's client has
exited by then, and other idle nodes on a test machine must not hold the bench up.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ingestlab.cluster.http import http_json


def node_snapshot(url: str, fetch=http_json) -> dict:
    """Each node's (timestamp ms, process CPU ms), as it last measured them (a node that gives no timestamp: 0)."""
    nodes = fetch(f"{url}/_nodes/stats/process?filter_path=nodes.*.process.cpu.total_in_millis,nodes.*.process.timestamp")["nodes"]
    return {k: (n["process"].get("timestamp", 0), n["process"]["cpu"]["total_in_millis"]) for k, n in nodes.items()}


def node_cores(before: dict, after: dict) -> float | None:
    """The cores the nodes kept busy between two snapshots; None while a node has not measured anew since ``before``."""
    total = 0.0
    for node, (ts0, cpu0) in before.items():
        ts1, cpu1 = after.get(node, (ts0, cpu0))
        if ts1 <= ts0:
            return None
        total += (cpu1 - cpu0) / (ts1 - ts0)
    return total


@dataclass(frozen=True)
class Settled:
    quiet: bool  # False: ``wait_s`` ran out first
    waited_s: float


def settle(
    url: str, indices: list[str], quiet_cores: float = 0.1, wait_s: float = 30.0, fetch=http_json, clock=time.monotonic, sleep=time.sleep
) -> Settled:
    """Delete ``indices`` (those that exist), then wait until the nodes are quiet."""
    fetch(f"{url}/{','.join(indices)}?ignore_unavailable=true", method="DELETE")
    start = clock()
    before = node_snapshot(url, fetch)
    while True:
        sleep(1.0)
        after = node_snapshot(url, fetch)
        busy = node_cores(before, after)
        if busy is not None:  # every node measured anew: a second's figure
            if busy < quiet_cores:
                return Settled(True, clock() - start)
            before = after
        if clock() - start >= wait_s:
            return Settled(False, clock() - start)
