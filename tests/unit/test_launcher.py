from esrally import actor
from thespian.system.transport import TCPTransport

from ingestlab.rally import launcher


def test_moves_the_actor_port_and_the_running_probe(monkeypatch):
    probed = []
    monkeypatch.setattr(actor, "actor_system_already_running", lambda ip=None, port=None, system_base=None: probed.append(port) or False)
    monkeypatch.setattr(TCPTransport, "DEFAULT_ADMIN_PORT", 1900)
    launcher.move_actor_port(45123)
    assert TCPTransport.DEFAULT_ADMIN_PORT == 45123
    assert actor.actor_system_already_running() is False
    assert probed == [45123]
