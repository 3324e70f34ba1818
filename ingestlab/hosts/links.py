"""Shaped links for test hosts: a token-bucket filter (``tc … tbf``) on both ends of a host's veth pair, so its link
carries at most the profile's rate each way. The qdiscs go with the links."""

from __future__ import annotations

import json
import shutil
from functools import partial

from ingestlab.hosts.namespaces import Host, run


def unavailable_reason() -> str | None:
    return None if shutil.which("tc") else "iproute2's `tc` is missing (apt-get install iproute2)"


_tc = partial(run, "tc")


def ends(host: Host) -> list[tuple[str, str | None]]:
    """(device, namespace) of both ends of the host's link."""
    return [(host.veth, None), ("eth0", host.namespace)]


def shape(host: Host, bits_per_s: int) -> None:
    burst = max(bits_per_s // 8 // 100, 32 << 10)  # 10 ms at the rate, at least 32 KiB
    tbf = ["root", "tbf", "rate", f"{bits_per_s}bit", "burst", str(burst), "latency", "100ms"]
    for device, namespace in ends(host):
        _tc("qdisc", "replace", "dev", device, *tbf, namespace=namespace)


def remove(host: Host) -> None:
    for device, namespace in ends(host):
        _tc("qdisc", "del", "dev", device, "root", namespace=namespace, check=False)


def counters(host: Host) -> dict:
    """Bytes sent, packets dropped and over-limit events of each end's shaper so far."""
    out = {}
    for device, namespace in ends(host):
        proc = _tc("-s", "-j", "qdisc", "show", "dev", device, namespace=namespace, check=False)
        try:
            qdiscs = json.loads(proc.stdout or "[]")
        except ValueError:
            qdiscs = []
        tbf = next((q for q in qdiscs if q.get("kind") == "tbf"), None)
        if tbf:
            out["to host" if namespace is None else "from host"] = {
                "bytes": tbf.get("bytes", 0),
                "drops": tbf.get("drops", 0),
                "overlimits": tbf.get("overlimits", 0),
            }
    return out
