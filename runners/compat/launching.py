"""The launcher's hooks into Rally (actor port, task polling, progress lines, running it) and into opensearch-benchmark
(its actor port, running it)."""

from __future__ import annotations

import logging
import socket
import sys
import threading
import time
from types import SimpleNamespace

from ingestlab.runners.compat.core import checked


def _note_others(process, finder: str, note) -> None:
    """The tool's check for other running instances names them (``note``) and lets this one go on (its own port)."""
    find_others = getattr(process, finder)

    def others_noted():
        others = find_others()
        if others:
            note(others)
        return []

    setattr(process, finder, others_noted)


def move_actor_port(port: int, note) -> None:
    """Rally's actor system on ``port`` instead of 1900; other Rally processes named (``note``) instead of refused."""
    from esrally import actor
    from esrally.utils import process
    from thespian.system.transport import TCPTransport

    checked()
    TCPTransport.DEFAULT_ADMIN_PORT = port
    probe = actor.actor_system_already_running

    def already_running_on_our_port(ip=None, port_=None, system_base=None, **kwargs):
        return probe(ip=ip, port=kwargs.get("port", port_) or port, system_base=system_base)

    actor.actor_system_already_running = already_running_on_our_port
    _note_others(process, "find_all_other_rally_processes", note)


def _modules() -> SimpleNamespace:
    """The load generator's modules by what they do here, Rally's or opensearch-benchmark's: ``driver``, ``coordinator``
    (the actor that gathers the workers' samples at each join point), ``metrics``, ``actor`` and ``main``."""
    if checked() == "osb":
        from osbenchmark import actor, metrics
        from osbenchmark import benchmark as main
        from osbenchmark.worker_coordinator import worker_coordinator as driver

        return SimpleNamespace(driver=driver, coordinator=driver.WorkerCoordinator, metrics=metrics, actor=actor, main=main)
    from esrally import actor, metrics
    from esrally import rally as main
    from esrally.driver import driver

    return SimpleNamespace(driver=driver, coordinator=driver.Driver, metrics=metrics, actor=actor, main=main)


def poll_tasks_every(seconds: float, preparation_seconds: float | None = None) -> None:
    """How often Rally's workers look whether their task is done (``seconds``), and its task-execution actors whether a
    step of the track's preparation is (``preparation_seconds``, None: ``seconds``)."""
    driver = _modules().driver
    driver.Worker.WAKEUP_INTERVAL_SECONDS = seconds
    preparation = seconds if preparation_seconds is None else preparation_seconds
    init, start = driver.TaskExecutionActor.__init__, driver.TaskExecutionActor.receiveMsg_StartTaskLoop

    def task_execution_actor_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.wakeup_interval = min(self.wakeup_interval, preparation)

    def start_task_loop(self, msg, sender):  # where Rally sets its test-mode interval
        start(self, msg, sender)
        self.wakeup_interval = min(self.wakeup_interval, preparation)

    driver.TaskExecutionActor.__init__ = task_execution_actor_init
    driver.TaskExecutionActor.receiveMsg_StartTaskLoop = start_task_loop


def end_quickly(grace_s: float, poll_s: float = 0.1) -> None:
    """After a race, Rally sleeps a grace for messages on their way, shuts its actor system down, then looks once a
    second whether it is gone. Here the grace is at most ``grace_s``, and the system is looked at every ``poll_s``,
    never longer than Rally would wait: the main module's ``time`` gets a ``sleep`` that tells its only two waits apart
    (the first is the grace; OSB's ``benchmark`` ends a run the same way)."""
    found = _modules()
    actor, main = found.actor, found.main

    class _Waits:
        graced = False

        def __getattr__(self, name):
            return getattr(time, name)

        def sleep(self, seconds):
            if not self.graced:
                self.graced = True
                time.sleep(min(seconds, grace_s))
                return
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline and actor.actor_system_already_running():
                time.sleep(min(poll_s, max(0.0, deadline - time.monotonic())))

    main.time = _Waits()


def task_figures(store, name: str) -> dict:
    """The load generator's own figures of one finished task, from its driver's metrics store."""
    SampleType = _modules().metrics.SampleType

    measured = store.get("service_time", task=name, sample_type=SampleType.Normal)
    return {
        "task": name,
        "throughput_samples": [v for v in store.get("throughput", task=name, sample_type=SampleType.Normal) if v is not None],
        "latency_samples": [v for v in store.get("latency", task=name, sample_type=SampleType.Normal) if v is not None],
        "median": store.get_median("throughput", task=name, sample_type=SampleType.Normal),
        "unit": store.get_unit("throughput", task=name),
        "samples": len(measured),
        "warmup_samples": len(store.get("service_time", task=name, sample_type=SampleType.Warmup)),
        "error_rate": store.get_error_rate(task=name, sample_type=SampleType.Normal) if measured else None,
    }


def on_finished_tasks(callback) -> None:
    """``callback(driver, step, steps, [task names])`` each time the driver has processed a join point's samples."""
    driver_class = _modules().coordinator
    update, post_process = driver_class.update_progress_message, driver_class.post_process_samples

    def update_progress_message(self, task_finished=False):
        if task_finished and self.current_step >= 0:  # step -1 is the join point before the first task
            self._ingestlab_finished = (self.current_step, [t.name for t in self.tasks_per_join_point[self.current_step]])
        return update(self, task_finished)

    def post_process_samples(self):
        post_process(self)
        finished, self._ingestlab_finished = getattr(self, "_ingestlab_finished", None), None
        if finished and self.metrics_store is not None:
            callback(self, finished[0], self.number_of_steps, finished[1])

    driver_class.update_progress_message = update_progress_message
    driver_class.post_process_samples = post_process_samples


def run_rally(daemon: bool) -> int:
    checked()
    if daemon:
        from esrally import rallyd

        sys.argv[0:2] = ["esrallyd"]
        rallyd.main()
        return 0
    from esrally import rally

    sys.argv[0] = "esrally"
    return rally.main()


# opensearch-benchmark only


def osb_move_actor_port(port: int, note) -> None:
    """OSB's actor system on ``port`` instead of 1900; other OSB processes named (``note``) instead of refused."""
    from osbenchmark import actor
    from osbenchmark.utils import process
    from thespian.system.transport import TCPTransport

    checked()
    TCPTransport.DEFAULT_ADMIN_PORT = port

    def already_running(ip="127.0.0.1"):
        with socket.socket() as s:
            return s.connect_ex((ip, port)) == 0

    actor.actor_system_already_running = already_running
    _note_others(process, "find_all_other_benchmark_processes", note)


def run_osb() -> int:
    checked()
    from osbenchmark import benchmark

    sys.argv[0] = "opensearch-benchmark"
    return benchmark.main() or 0


class Stamped:
    """A message as it goes over the wire: the token of the actor system that sent it, and the message."""

    __slots__ = ("token", "message")

    def __init__(self, token: str, message):
        self.token, self.message = token, message

    def __getstate__(self):
        return (self.token, self.message)

    def __setstate__(self, state):
        self.token, self.message = state


class _Foreign:
    """A message that reached one of this system's actors from another actor system: dropped on arrival."""

    def __init__(self, message):
        self.message = message


def isolate_actor_system(token: str) -> bool:
    """Keep this actor system's actors deaf to every other actor system on the machine.

    thespian's messages say nothing of their actor system, and a port an ended actor freed may go to another system's
    actor, which then takes a message meant for the ended one (another race fails with "Worker [0] has exited
    prematurely"). Here every message sent over the wire carries ``token``, and one without it is dropped, with a warning
    in thespian's log. False (and nothing changed) when this thespian lacks the places hooked here."""
    from thespian.system.transport import TCPTransport as tcp

    transport = tcp.TCPTransport
    hooked = ("serializer", "_addedDataToIncoming", "_processReceivedEnvelope")
    if not all(hasattr(transport, name) for name in hooked) or not hasattr(tcp, "ReceiveEnvelope"):
        return False
    envelope, received, process = tcp.ReceiveEnvelope, transport._addedDataToIncoming, transport._processReceivedEnvelope
    wire = threading.local()  # set while an envelope that came over the wire is being made

    def serializer(self, intent):
        return tcp.toSendBuffer((self.myAddress, Stamped(token, intent.message)), tcp.serializer.dumps)

    def receive_envelope(sender, message):
        if isinstance(message, Stamped):
            return envelope(sender, message.message if message.token == token else _Foreign(message.message))
        return envelope(sender, _Foreign(message) if getattr(wire, "on", False) else message)

    def added_data_to_incoming(self, inc, *args, **kwargs):
        outer, wire.on = getattr(wire, "on", False), True
        try:
            return received(self, inc, *args, **kwargs)
        finally:
            wire.on = outer

    def process_received_envelope(self, env, *args, **kwargs):
        if isinstance(env.message, _Foreign):
            from thespian.system.utilis import thesplog

            thesplog(
                "dropped %s from %s: a message of another actor system",
                type(env.message.message).__name__,
                env.sender,
                level=logging.WARNING,
            )
            return None
        return process(self, env, *args, **kwargs)

    transport.serializer = serializer
    transport._addedDataToIncoming = added_data_to_incoming
    transport._processReceivedEnvelope = process_received_envelope
    tcp.ReceiveEnvelope = receive_envelope
    return True
