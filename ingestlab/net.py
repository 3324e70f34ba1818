"""Sockets: a free port, whether a port is free, whether something answers, waiting until it does."""
from __future__ import annotations

import socket
import time


def free_port(address: str = "127.0.0.1") -> int:
    """A port nothing listens on now (the kernel's pick), on ``address``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


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
