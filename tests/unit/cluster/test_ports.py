"""The pack's fixed ports lie below the kernel's ephemeral range, so no client connection can hold one as its local port."""

import re
from pathlib import Path

from ingestlab import paths
from ingestlab.cluster import model

PORT = re.compile(r"(?:_port[\"']?\s*[:=]\s*|PORT\s*=\s*|\"\d+\.\d+\.\d+\":\s*)(\d{4,5})\b")
REPO = paths.TRACKS_DIR.parent


def ephemeral_low() -> int:
    path = Path("/proc/sys/net/ipv4/ip_local_port_range")
    return int(path.read_text().split()[0]) if path.is_file() else 32768


def fixed_ports() -> dict[str, int]:
    found = {}
    for folder in ("ingestlab", "tests/integration"):
        for source in sorted((REPO / folder).rglob("*.py")):
            for number, line in enumerate(source.read_text().splitlines(), 1):
                for port in PORT.findall(line):
                    found[f"{source.relative_to(REPO)}:{number}"] = int(port)
    return found


def test_the_scan_finds_the_pack_ports():
    ports = fixed_ports()
    assert model.DEFAULT_HTTP_PORT in ports.values() and len(ports) >= 15


def test_every_fixed_port_is_below_the_ephemeral_range():
    low = ephemeral_low()
    assert {where: p for where, p in fixed_ports().items() if p >= low} == {}
