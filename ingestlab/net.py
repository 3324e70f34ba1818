"""Sockets: a free port, whether a port is free, whether something answers, waiting until it does."""

from __future__ import annotations

import random
import socket
import time
from pathlib import Path

# Ports for a listener bound a moment after it is chosen: below the outgoing connections' range, apart from the nodes'
LISTENER_PORTS = range(20000, 29000)
EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def free_port(address: str = "127.0.0.1") -> int:
    """A port nothing holds now on ``address``, for a listener that binds it later: one below the kernel's range for
    outgoing connections' local ports, which one made before the bind could take; the kernel's pick only as a fallback."""
    low, high = ephemeral_range()
    candidates = [p for p in LISTENER_PORTS if not low <= p <= high]
    for port in random.SystemRandom().sample(candidates, min(64, len(candidates))):
        if port_is_free(port, address):
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


def ephemeral_range(path: Path = EPHEMERAL_RANGE_FILE) -> tuple[int, int]:
    """The kernel's range for outgoing connections' local ports (Linux's default where the file is unreadable)."""
    try:
        low, high = (int(v) for v in path.read_text().split())
    except (OSError, ValueError):
        return 32768, 60999
    return low, high


def port_is_free(port: int, address: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((address, port))
        except OSError:
            return False
    return True


def answers(address: str, port: int, timeout: float = 1.0) -> bool:
    """Something accepts a TCP connection there."""
    try:
        with socket.create_connection((address, port), timeout=timeout):
            return True
    except OSError:
        return False


def wait_answering(address: str, port: int, timeout: float, interval: float = 0.3) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if answers(address, port):
            return True
        time.sleep(interval)
    return False
