"""Run esrally with its actor system on a port of our choosing instead of the fixed 1900.

Rally's actor system (thespian) binds 127.0.0.1:1900, and Rally joins whatever already
listens there, so two Rally processes on one machine collide. This launcher moves the
pack's own Rally processes to ``INGESTLAB_RALLY_ACTOR_PORT`` before esrally starts;
everything else is stock esrally. Use: ``python -m ingestlab.rally.launcher race ...``, or
``python -m ingestlab.rally.launcher daemon start --node-ip=... --coordinator-ip=...`` for ``esrallyd``
(every daemon of one distributed setup must use the same port: it is also the coordinator's).
"""
import os
import sys

PORT_VARIABLE = "INGESTLAB_RALLY_ACTOR_PORT"


def move_actor_port(port: int) -> None:
    from esrally import actor
    from thespian.system.transport import TCPTransport

    TCPTransport.DEFAULT_ADMIN_PORT = port
    probe = actor.actor_system_already_running

    def already_running_on_our_port(ip=None, port_=None, system_base=None, **kwargs):
        return probe(ip=ip, port=kwargs.get("port", port_) or port, system_base=system_base)

    actor.actor_system_already_running = already_running_on_our_port


def main() -> int:
    port = os.environ.get(PORT_VARIABLE)
    if port:
        move_actor_port(int(port))
    if sys.argv[1:2] == ["daemon"]:
        from esrally import rallyd

        sys.argv[0:2] = ["esrallyd"]
        rallyd.main()
        return 0
    from esrally import rally

    sys.argv[0] = "esrally"
    return rally.main()


if __name__ == "__main__":
    sys.exit(main())
