"""A free port for a listener that binds it a moment later: one no outgoing connection can take meanwhile."""

import socket

from ingestlab import net


def test_a_free_port_lies_below_the_range_outgoing_connections_take_theirs_from():
    low, high = net.ephemeral_range()
    ports = {net.free_port() for _ in range(20)}
    assert all(p in net.LISTENER_PORTS and not low <= p <= high for p in ports)
    assert all(net.port_is_free(p) for p in ports)


def test_a_port_held_by_a_socket_is_not_chosen(monkeypatch):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        monkeypatch.setattr(net, "LISTENER_PORTS", range(port, port + 1))
        monkeypatch.setattr(net, "ephemeral_range", lambda: (1, 2))
        chosen = net.free_port()
    assert chosen != port  # the kernel's pick, as none of the listener ports is free


def test_the_kernel_picks_where_its_range_covers_every_listener_port(monkeypatch):
    monkeypatch.setattr(net, "ephemeral_range", lambda: (1024, 65535))
    assert net.port_is_free(net.free_port())


def test_an_unreadable_range_file_means_linux_s_default(tmp_path):
    assert net.ephemeral_range(tmp_path / "missing") == (32768, 60999)
    (tmp_path / "range").write_text("40000\t50000\n")
    assert net.ephemeral_range(tmp_path / "range") == (40000, 50000)
