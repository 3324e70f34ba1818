"""Run esrally (or opensearch-benchmark, Rally's fork, hooked alike) stock but for the pack's hooks: its actor system on
``INGESTLAB_RALLY_ACTOR_PORT`` instead of the fixed 1900 (so two Rallies never collide; the others are named, not
refused) and, with ``INGESTLAB_ACTOR_TOKEN``, deaf to other actor systems' messages; polling for a task's end every
``INGESTLAB_RALLY_WAKEUP_S`` (default 0.5; Rally's is 5), for a preparation step every
``INGESTLAB_RALLY_PREPARE_WAKEUP_S`` (0.1), and ending after ``INGESTLAB_RALLY_EXIT_GRACE_S`` (0.5; Rally's is 3), which
leaves what Rally measures unchanged; with ``INGESTLAB_PROGRESS``, a JSON line per finished task (:mod:`.progress`).

Use: ``python -m ingestlab.rally.launcher race ...``, or ``... daemon start --node-ip=... --coordinator-ip=...``."""

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
    """The seconds ``variable`` sets (``default`` when unset or empty); a ValueError naming it unless finite and ≥ ``least``."""
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
