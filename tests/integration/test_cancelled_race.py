"""A race the pack is told to stop (SIGTERM to the pack alone, as a job runner or `kill` sends it) takes Rally and
its actors with it."""

import re
import signal
import subprocess
import sys
import time

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.check]


def test_sigterm_to_the_pack_alone_stops_rally_and_its_actors(es_node):
    # full-size posts: minutes of racing left when the signal comes, so Rally cannot simply finish first
    cmd = [sys.executable, "-m", "ingestlab.cli", "race", "posts", "--target-hosts", es_node.hosts, "--challenge", "bulk"]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL),
    )
    lines, race_id = [], None
    for line in proc.stdout:
        lines.append(line)
        race_id = race_id or (re.search(r"--race-id=([0-9a-f-]{36})", line) or [None, None])[1]
        if line.startswith("[ingestlab] 00:"):  # Rally is racing: its first task finished
            assert _left(race_id)
            proc.send_signal(signal.SIGTERM)  # the pack's process only, not its group
            break
    rest, _ = proc.communicate(timeout=120)
    output = "".join(lines) + rest
    assert race_id and proc.returncode == 143, output[-3000:]
    assert "ingestlab: terminated" in output
    deadline = time.monotonic() + 10  # the pack waits for them: little may be left
    while time.monotonic() < deadline and _left(race_id):
        time.sleep(0.5)
    assert not _left(race_id), subprocess.run(["ps", "-ef"], capture_output=True, text=True).stdout


def _left(race_id: str) -> list[str]:
    """esrally and its actors (forked from it: the same command line, which names the race)."""
    return subprocess.run(["pgrep", "-f", race_id], capture_output=True, text=True).stdout.split()
