import os
import subprocess
import sys
import textwrap

import pytest

from ingestlab.runners.utils import worker_name


@pytest.mark.parametrize(
    "name, worker",
    [
        ("Actor_Worker__ActorAddr-(T|:40211)", True),  # thespian's name for an actor created from the class
        ("Actor_esrally.driver.driver.Worker__ActorAddr-(T|:40211)", True),  # ... or from its dotted name
        ("Actor_DriverActor__ActorAddr-(T|:40210)", False),
        ("Actor_TrackPreparationActor__ActorAddr-(T|:40212)", False),
        ("Actor_NotAWorker__x", False),
        ("MainProcess", False),
    ],
)
def test_only_rallys_worker_actor_counts_as_a_worker(name, worker):
    assert worker_name.is_worker(name) is worker


def _comm_after_mark(process_name: str) -> tuple[str, str, str]:
    """Mark a fresh interpreter as if it had ``process_name``; whether it marked, its kernel name before and
    after (this test process is never renamed)."""
    code = textwrap.dedent("""
        import os
        from pathlib import Path
        from ingestlab.runners.utils import worker_name
        before = Path("/proc/self/comm").read_text().strip()
        print(worker_name.mark(os.environ["PROCESS_NAME"]))
        print(before)
        print(Path("/proc/self/comm").read_text().strip())
    """)
    # the name goes by the environment, not the command line: a command line naming esrally is "another Rally" to esrally
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={**os.environ, "PROCESS_NAME": process_name}
    ).stdout.split()
    return out[0], out[1], out[2]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kernel process names are Linux's")
def test_a_worker_takes_the_name_the_footprint_looks_for():
    from ingestlab.rally import footprint

    marked, before, after = _comm_after_mark("Actor_Worker__ActorAddr-(T|:1)")
    assert marked == "True" and before != after == worker_name.NAME == footprint.WORKER_NAME


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kernel process names are Linux's")
def test_any_other_process_keeps_its_name():
    marked, before, after = _comm_after_mark("Actor_DriverActor__ActorAddr-(T|:1)")
    assert marked == "False" and before == after
