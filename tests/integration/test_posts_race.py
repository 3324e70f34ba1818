"""Race the posts track with real esrally against a real node and check what landed."""

import subprocess
import sys
import uuid

import pytest

from ingestlab import paths
from ingestlab.rally import results
from tests.integration.conftest import get_json, ingestlab, plain_esrally, port_1900_taken

pytestmark = [pytest.mark.integration, pytest.mark.check]
TASKS = ["index-api", "bulk-10", "bulk-50", "bulk-100", "bulk-1000", "bulk-10000"]


def test_the_whole_study_races_in_test_mode(es_node):
    run_tag = f"it-{uuid.uuid4().hex[:8]}"
    proc = ingestlab("race", "posts", "--test-mode", "--target-hosts", es_node.hosts, "--tag", f"run:{run_tag}")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "| bulk 1000 |" in proc.stdout and "published" in proc.stdout

    stored = results.latest_race({"study": "posts", "run": run_tag})
    assert stored is not None and stored["cluster"]["distribution-version"] == "7.17.29"
    measured = results.task_results(stored)
    assert list(measured) == TASKS
    for task in measured.values():
        assert task.error_rate == 0.0
        assert task.throughput_max > 0
    # every run recreates the index and checks its count; the last run's documents stay
    assert get_json(f"{es_node.url}/posts/_count")["count"] == 1000

    report = ingestlab("report", "posts", "--race-id", stored["race-id"])
    assert report.returncode == 0, report.stderr
    assert "1,000 docs, fastest of 1 runs" in report.stdout and "| index API, one doc per request |" in report.stdout
    assert (paths.results_dir() / "posts" / stored["race-id"] / "report.md").is_file()


def test_two_races_at_once_do_not_collide(es_node):
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ingestlab.cli",
                "race",
                "posts",
                "--test-mode",
                "--challenge",
                "bulk",
                "--target-hosts",
                es_node.hosts,
                "--track-param",
                f"index_name=posts-{name}",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for name in ("a", "b")
    ]
    outputs = [p.communicate(timeout=600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], "\n".join(o[-2000:] for o in outputs)
    for name in ("a", "b"):
        assert get_json(f"{es_node.url}/posts-{name}/_count")["count"] == 1000


@pytest.mark.skipif(port_1900_taken(), reason="another Rally holds 127.0.0.1:1900; plain esrally would join it")
def test_plain_esrally_races_the_track(es_node, tmp_path):
    proc = plain_esrally(
        "race",
        "--pipeline=benchmark-only",
        f"--track-path={paths.TRACKS_DIR / 'posts'}",
        f"--target-hosts={es_node.hosts}",
        "--test-mode",
        "--challenge=index-api",
        "--track-params=index_name:posts-plain",
        f"--report-file={tmp_path / 'report.md'}",
        rally_home=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "index-api" in (tmp_path / "report.md").read_text()
    assert get_json(f"{es_node.url}/posts-plain/_count")["count"] == 1000
