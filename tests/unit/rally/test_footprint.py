import os
import subprocess
import sys
import uuid

import pytest

from ingestlab.rally import footprint
from ingestlab.report.common import footprint_line

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

CHILD = """
import sys, time
from ingestlab.runners.utils import worker_name
if sys.argv[1] == "worker":
    assert worker_name.mark("Actor_Worker__ActorAddr-(T|:1)")  # as a pack track names Rally's worker
if sys.argv[3:] == ["mapped"]:  # as Rally's bulk reads its corpus: a mapped file, every page touched
    import mmap, tempfile
    with tempfile.TemporaryFile() as f:
        f.truncate(int(sys.argv[2]) << 20)
        block = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_WRITE)
        for i in range(0, len(block), 4096):
            block[i] = 1
else:
    block = bytearray(int(sys.argv[2]) << 20)  # touched: resident
print("ready", flush=True)
time.sleep(30)
"""


MARKER = f"INGESTLAB_FOOTPRINT_TEST={uuid.uuid4().hex}"  # as the race's own variable finds thespian's detached actors


def _child(kind: str, mib: int, marker: str = MARKER, *extra: str) -> subprocess.Popen:
    name, value = marker.split("=")
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, kind, str(mib), *extra], stdout=subprocess.PIPE, text=True, env={**os.environ, name: value}
    )
    assert proc.stdout.readline().strip() == "ready"
    return proc


def _one_look(procs: list[subprocess.Popen]) -> dict:
    """One look with the first child as the race's process, the children killed after."""
    try:
        peaks = footprint.ProcessPeaks(procs[0].pid, interval=60, marker=MARKER)
        peaks.look()
        return peaks.summary()
    finally:
        for p in procs:
            p.kill()
            p.wait()


def test_the_workers_peaks_are_told_apart_from_the_other_processes():
    procs = [_child("worker", 40), _child("worker", 80), _child("other", 120)]
    summary = _one_look(procs)
    assert summary["processes"] == 3 and len(summary["workers_mib"]) == 2
    assert summary["largest_mib"] > 120 and 80 < summary["workers_mib"][0] < 120 < summary["largest_mib"]
    assert 40 < summary["workers_mib"][1] < 80


def test_a_host_daemons_workers_count_and_its_other_processes_do_not():
    lab = f"INGESTLAB_FOOTPRINT_LAB={uuid.uuid4().hex}"  # as a lab's daemons carry its variable (Lab.process_marker)
    race = _child("other", 10)
    on_hosts = [_child("worker", 60, lab), _child("other", 120, lab)]
    try:
        peaks = footprint.ProcessPeaks(race.pid, interval=60, marker=MARKER, workers_marker=lab)
        peaks.look()
        summary = peaks.summary()
    finally:
        for p in [race, *on_hosts]:
            p.kill()
            p.wait()
    assert summary["processes"] == 2 and len(summary["workers_mib"]) == 1
    assert 60 < summary["workers_mib"][0] < 120 and summary["largest_mib"] < 120


def test_the_report_line_gives_the_workers_when_known_and_says_nothing_of_them_otherwise():
    known = footprint_line({"rally_memory": {"largest_mib": 275.3, "processes": 20, "workers_mib": [108.2, 90.7]}})
    assert "largest process (of 20) peaked at 275 MiB RSS" in known and "load-driver workers (2) peaked at 91–108 MiB RSS" in known
    unknown = footprint_line({"rally_memory": {"largest_mib": 275.3, "processes": 20, "peaks_mib": [275.3]}})
    assert "worker" not in unknown


def test_a_workers_anonymous_memory_is_told_apart_from_the_file_pages_it_maps():
    procs = [_child("worker", 60), _child("worker", 150, MARKER, "mapped")]
    summary = _one_look(procs)
    assert summary["workers_mib"][0] > 150 and 60 < summary["workers_mib"][1] < 150
    own = summary["workers_anonymous_mib"]
    assert len(own) == 2 and 60 < own[0] < 100 and own[1] < 60  # the mapping's pages are not its own memory


def test_the_report_line_says_how_much_was_the_workers_own_only_when_most_was_file_pages():
    mapped = footprint_line(
        {"rally_memory": {"largest_mib": 1855.0, "processes": 8, "workers_mib": [1855.0, 1026.0], "workers_anonymous_mib": [80.4, 70.1]}}
    )
    assert "peaked at 1,026–1,855 MiB RSS (70–80 MiB of it anonymous memory" in mapped
    own = footprint_line({"rally_memory": {"largest_mib": 120.0, "processes": 8, "workers_mib": [86.0], "workers_anonymous_mib": [80.0]}})
    assert "anonymous" not in own
    before = footprint_line({"rally_memory": {"largest_mib": 120.0, "processes": 8, "workers_mib": [86.0]}})
    assert "anonymous" not in before
