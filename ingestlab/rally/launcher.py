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
The steps of a track's preparation (its processors, run by Rally's task-execution actors) are looked at
every 0.5 s too, each step one wake-up at least: ``INGESTLAB_RALLY_PREPARE_WAKEUP_S`` (default 0.1) sets it.

A race ends with Rally waiting 3 s for messages still on their way to its actor system, then looking once a second
whether the system has shut down: ~4 s a race. With ``INGESTLAB_RALLY_EXIT_GRACE_S`` (default 0.5; ``3`` restores
Rally's) the pack's races wait that long, then look every 0.1 s. The race's results are all written before then.

Rally draws its progress only on a terminal. With ``INGESTLAB_PROGRESS`` set, Rally's driver (in an actor
process forked from this one, so it carries the hook) appends a JSON line to that file whenever tasks
finish, with Rally's own figures for them: median throughput and its unit, the count of measured and of
warm-up samples, the error rate. ``ingestlab`` prints a line from each (:mod:`ingestlab.rally.progress`).

With ``INGESTLAB_ACTOR_TOKEN`` set, the actor system hears only messages that carry that token: another actor system on the
machine (another race, whose actor just gave up a port one of ours now holds) cannot end one of its workers
(``compat.isolate_actor_system``). A race's token is its id; a lab's daemons and the races on them share the lab's.

opensearch-benchmark (2.4) is Rally's fork: its coordinator, workers, task-execution actors and end of a run are Rally's
with other names, so the launcher hooks it the same way (its own actor-port probe aside): the same intervals, the
same short end, and the same progress lines, from which the pack keeps each task's latency samples.
"""

import json
import os
import sys
import time

PORT_VARIABLE = "INGESTLAB_RALLY_ACTOR_PORT"
TOKEN_VARIABLE = "INGESTLAB_ACTOR_TOKEN"  # the actor system's own token: messages of any other are dropped
PROGRESS_VARIABLE = "INGESTLAB_PROGRESS"
WAKEUP_VARIABLE = "INGESTLAB_RALLY_WAKEUP_S"
DEFAULT_WAKEUP_S = 0.5
PREPARE_WAKEUP_VARIABLE = "INGESTLAB_RALLY_PREPARE_WAKEUP_S"
DEFAULT_PREPARE_WAKEUP_S = 0.1
GRACE_VARIABLE = "INGESTLAB_RALLY_EXIT_GRACE_S"
DEFAULT_GRACE_S = 0.5


def _seconds(variable: str, default: float, least: float = 0.0) -> float:
    """The number of seconds an environment variable sets (``default`` when unset or empty); anything but a finite
    number ≥ ``least`` is an error that names the variable (an interval needs a ``least`` > 0: at 0 its actor
    would wake without pause)."""
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")  # fails the range test below, so the error is the same one
    if not least <= value < float("inf"):
        raise ValueError(f"{variable}={raw!r} is not a number of seconds (a finite number, {least:g} or more; unset: {default})")
    return value


def _note_others(others) -> None:
    print(
        f"[ingestlab] other Rally processes run on this machine (PIDs {', '.join(str(p.pid) for p in others)}); "
        f"this race's actor system has a port of its own, so it starts, but they share the machine's CPU",
        file=sys.stderr,
    )


def install_progress_hook(path: str) -> None:
    """When the driver reaches a join point, append the finished tasks' figures to ``path`` (one JSON line)."""
    from ingestlab.runners import compat  # heavy: loads the client (elasticsearch, ~0.3 s); the CLI starts without it

    def write(driver, step, steps, names):
        event = {"time": time.time(), "step": step, "steps": steps, "tasks": [compat.task_figures(driver.metrics_store, n) for n in names]}
        with open(path, "a") as out:
            out.write(json.dumps(event) + "\n")

    compat.on_finished_tasks(write)


def main() -> int:
    from ingestlab.runners import compat  # heavy: loads the client (elasticsearch, ~0.3 s); the CLI starts without it

    try:
        compat.checked()
    except compat.Unsupported as e:
        print(f"ingestlab: error: {e}", file=sys.stderr)
        return 2
    port = os.environ.get(PORT_VARIABLE)
    osb = compat.engine() == "osb"  # opensearch-benchmark, in its own environment: Rally's fork, hooked the same way
    if port:
        (compat.osb_move_actor_port if osb else compat.move_actor_port)(int(port), _note_others)
    token = os.environ.get(TOKEN_VARIABLE)
    if token and not compat.isolate_actor_system(token):
        print(f"[ingestlab] this thespian has no hook for {TOKEN_VARIABLE}: the race's actors hear other actor systems", file=sys.stderr)
    try:
        wakeup, prepare_wakeup, grace = (
            _seconds(WAKEUP_VARIABLE, DEFAULT_WAKEUP_S, least=0.01),
            _seconds(PREPARE_WAKEUP_VARIABLE, DEFAULT_PREPARE_WAKEUP_S, least=0.01),
            _seconds(GRACE_VARIABLE, DEFAULT_GRACE_S),
        )
    except ValueError as e:
        print(f"ingestlab: error: {e}", file=sys.stderr)
        return 2
    compat.poll_tasks_every(wakeup, prepare_wakeup)
    compat.end_quickly(grace)
    if os.environ.get(PROGRESS_VARIABLE):
        install_progress_hook(os.environ[PROGRESS_VARIABLE])
    return compat.run_osb() if osb else compat.run_rally(daemon=sys.argv[1:2] == ["daemon"])


if __name__ == "__main__":
    sys.exit(main())
