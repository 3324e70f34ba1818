"""Run esrally with its actor system on a port of our choosing instead of the fixed 1900, and with a line
of progress per finished task that reaches a pipe too.

Rally's actor system (thespian) binds 127.0.0.1:1900, and Rally joins whatever already listens there, so
two Rally processes on one machine collide. This launcher moves the pack's own Rally processes to
``INGESTLAB_RALLY_ACTOR_PORT`` before esrally starts; everything else is stock esrally. Rally refuses to race
while any other Rally process lives, because they would share port 1900; on a port of its own that reason is
gone, so the launcher lets the race start and says which other Rally processes share the machine (the actor
processes of a race that just ended linger a few seconds; a second benchmark would share the CPU). Use:
``python -m ingestlab.rally.launcher race ...``, or ``python -m ingestlab.rally.launcher daemon start
--node-ip=... --coordinator-ip=...`` for ``esrallyd`` (every daemon of one distributed setup must use the
same port: it is also the coordinator's).

Rally's workers look every 5 s whether their task has finished (every 0.5 s in test mode), so each task of a
race ends up to 5 s after its last request: a study of 18 tasks idles for a minute and a half. With
``INGESTLAB_RALLY_WAKEUP_S`` (default 0.5, the interval Rally uses itself in test mode; ``5`` restores Rally's
own) the pack's races poll as often outside test mode too. What Rally measures is unchanged: it times each
request in the workers' executor, not at these wake-ups.

Rally draws its progress only on a terminal. With ``INGESTLAB_PROGRESS`` set, Rally's driver (in an actor
process forked from this one, so it carries the hook) appends a JSON line to that file whenever tasks
finish, with Rally's own figures for them: median throughput and its unit, the count of measured and of
warm-up samples, the error rate. ``ingestlab`` prints a line from each (:mod:`ingestlab.rally.progress`).
"""
import os
import sys
import time

PORT_VARIABLE = "INGESTLAB_RALLY_ACTOR_PORT"
PROGRESS_VARIABLE = "INGESTLAB_PROGRESS"
WAKEUP_VARIABLE = "INGESTLAB_RALLY_WAKEUP_S"
DEFAULT_WAKEUP_S = 0.5


def move_actor_port(port: int) -> None:
    from esrally import actor
    from thespian.system.transport import TCPTransport

    TCPTransport.DEFAULT_ADMIN_PORT = port
    probe = actor.actor_system_already_running

    def already_running_on_our_port(ip=None, port_=None, system_base=None, **kwargs):
        return probe(ip=ip, port=kwargs.get("port", port_) or port, system_base=system_base)

    actor.actor_system_already_running = already_running_on_our_port
    _share_the_machine()


def _share_the_machine() -> None:
    """Rally's one-Rally-per-machine check, for a Rally whose actor system has a port of its own: name the
    others on stderr instead of refusing."""
    from esrally.utils import process

    find_others = process.find_all_other_rally_processes

    def others_noted():
        others = find_others()
        if others:
            print(f"[ingestlab] other Rally processes run on this machine (PIDs {', '.join(str(p.pid) for p in others)}); "
                  f"this race's actor system has a port of its own, so it starts, but they share the machine's CPU", file=sys.stderr)
        return []

    process.find_all_other_rally_processes = others_noted


def poll_tasks_every(seconds: float) -> None:
    """How often Rally's workers (and its track-preparation actor) look whether their work is done."""
    from esrally.driver import driver

    driver.Worker.WAKEUP_INTERVAL_SECONDS = seconds
    init = driver.TaskExecutionActor.__init__

    def task_execution_actor_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.wakeup_interval = min(self.wakeup_interval, seconds)

    driver.TaskExecutionActor.__init__ = task_execution_actor_init


def task_figures(store, name: str) -> dict:
    """Rally's own figures of one finished task, from the driver's metrics store."""
    from esrally.metrics import SampleType

    measured = store.get("service_time", task=name, sample_type=SampleType.Normal)
    return {
        "task": name,
        "throughput_samples": [v for v in store.get("throughput", task=name, sample_type=SampleType.Normal) if v is not None],
        "median": store.get_median("throughput", task=name, sample_type=SampleType.Normal),
        "unit": store.get_unit("throughput", task=name),
        "samples": len(measured),
        "warmup_samples": len(store.get("service_time", task=name, sample_type=SampleType.Warmup)),
        "error_rate": store.get_error_rate(task=name, sample_type=SampleType.Normal) if measured else None,
    }


def install_progress_hook(path: str) -> None:
    """When the driver reaches a join point, append the finished tasks' figures to ``path`` (one JSON line)."""
    import json

    from esrally.driver import driver

    update, post_process = driver.Driver.update_progress_message, driver.Driver.post_process_samples

    def update_progress_message(self, task_finished=False):
        if task_finished and self.current_step >= 0:  # step -1 is the join point before the first task
            self._ingestlab_finished = (self.current_step, [t.name for t in self.tasks_per_join_point[self.current_step]])
        return update(self, task_finished)

    def post_process_samples(self):
        post_process(self)
        finished, self._ingestlab_finished = getattr(self, "_ingestlab_finished", None), None
        if finished and self.metrics_store is not None:
            step, names = finished
            event = {"time": time.time(), "step": step, "steps": self.number_of_steps,
                     "tasks": [task_figures(self.metrics_store, name) for name in names]}
            with open(path, "a") as out:
                out.write(json.dumps(event) + "\n")

    driver.Driver.update_progress_message = update_progress_message
    driver.Driver.post_process_samples = post_process_samples


def main() -> int:
    port = os.environ.get(PORT_VARIABLE)
    if port:
        move_actor_port(int(port))
    poll_tasks_every(float(os.environ.get(WAKEUP_VARIABLE) or DEFAULT_WAKEUP_S))
    if os.environ.get(PROGRESS_VARIABLE):
        install_progress_hook(os.environ[PROGRESS_VARIABLE])
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
