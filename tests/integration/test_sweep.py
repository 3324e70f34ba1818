"""Sweeps over a track that is not one of the pack's (tests/fixtures/tracks/tiny-logs, in elastic/rally-tracks' layout,
its corpus in Rally's offline data cache) and over a study's track, on the suite's real node: a 2 x 2 grid with two
repetitions survives Ctrl-C and --resume without racing a finished run again; bad input is named before any race;
a task whose samples all fall inside its warm-up says so; the HTML report opens in headless Chromium."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from ingestlab import paths
from ingestlab.rally import results
from ingestlab.rally.home import data_cache
from tests.integration.conftest import ingestlab
from tests.integration.test_reports_and_nightly import chromium_dom

pytestmark = pytest.mark.integration
TRACK = Path(__file__).parents[1] / "fixtures" / "tracks" / "tiny-logs"


@pytest.fixture(scope="module")
def tiny_logs_corpus():
    """20,000 web-log documents and their -1k file, where a user would put a rally-tracks corpus: Rally's data cache."""
    target = data_cache() / "tiny-logs"
    target.mkdir(parents=True, exist_ok=True)
    lines = [
        orjson.dumps(
            {
                "@timestamp": 1_600_000_000_000 + i * 37,
                "clientip": f"10.0.{i % 256}.{i % 199}",
                "request": f"/page/{i % 500}",
                "status": 200 if i % 17 else 404,
                "size": i % 5000,
            }
        )
        + b"\n"
        for i in range(20000)
    ]
    (target / "documents.json").write_bytes(b"".join(lines))
    (target / "documents-1k.json").write_bytes(b"".join(lines[:1000]))
    return target


def sweep(*args, timeout=1200):
    return ingestlab("sweep", *args, timeout=timeout)


def state_of(output: str) -> dict:
    sweep_id = re.search(r"sweep (\d{8}-\d{6}-[0-9a-f]{4})", output).group(1)
    return json.loads((paths.results_dir() / "sweeps" / sweep_id / "state.json").read_text())


def test_a_two_cell_sweep_with_repeats_survives_ctrl_c_and_resumes(es_node, tiny_logs_corpus):
    cmd = [
        sys.executable,
        "-m",
        "ingestlab.cli",
        "sweep",
        "--track-path",
        str(TRACK),
        "--challenge",
        "append-only",
        "--grid",
        "bulk_size=500,5000",
        "--grid",
        "bulk_indexing_clients=2",
        "--repeat",
        "2",
        "--target-hosts",
        es_node.hosts,
        "--test-mode",
    ]  # Rally's test mode: each race a few seconds instead of ~45 (the sweep machinery is what is tested)
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # CI may start with Ctrl-C ignored
    lines = []
    for line in proc.stdout:  # progress reaches a pipe: one line per finished run
        lines.append(line)
        if line.startswith("[ingestlab] sweep 2/4 "):
            os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C, as a terminal sends it to the whole group
            break
    rest, _ = proc.communicate(timeout=120)
    output = "".join(lines) + rest
    assert proc.returncode == 130, output[-3000:]
    assert "[ingestlab] sweep 1/4 bulk_size=500;bulk_indexing_clients=2 (run 1): index-append " in output and "to go" in output
    assert f"continue with: ingestlab sweep --resume {state_of(output)['id']} --target-hosts HOSTS" in output
    stopped = state_of(output)
    assert 2 <= len(stopped["runs"]) <= 3 and all(r["status"] == "done" for r in stopped["runs"])

    resumed = sweep("--resume", stopped["id"], "--target-hosts", es_node.hosts)
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    final = state_of(resumed.stdout)
    assert len(final["runs"]) == 4 and all(r["status"] == "done" for r in final["runs"])
    assert final["runs"][: len(stopped["runs"])] == stopped["runs"]  # nothing that had finished ran again
    assert len({(r["cell_id"], r["repetition"]) for r in final["runs"]}) == 4
    assert f"of 4 runs to go ({len(stopped['runs'])} finished before)" in resumed.stdout

    race = results.load_race(final["runs"][-1]["race_id"])[0]  # esrally compare / ingestlab compare find them by tag
    assert race["user-tags"]["sweep"] == final["id"] and race["user-tags"]["cell"] == final["runs"][-1]["cell_id"]
    out = paths.results_dir() / "sweeps" / final["id"]
    text = (out / "report.md").read_text()
    assert "## index-append" in text and "| bulk_size=5000;bulk_indexing_clients=2 | 2 | " in text and "- Best cell: **" in text
    data = json.loads((out / "results.json").read_text())
    assert set(data["tasks"]["index-append"]) == {f"bulk_size={b};bulk_indexing_clients={c}" for b in (500, 5000) for c in (2,)}
    assert (out / "chart-1.png").read_bytes().startswith(b"\x89PNG")
    dom = chromium_dom(out / "report.html")
    assert 'data-images-loaded="1/1"' in dom and "<table>" in dom
    compared = ingestlab(
        "compare",
        "--baseline",
        "cell:bulk_size=500;bulk_indexing_clients=2",
        "--contender",
        "cell:bulk_size=5000;bulk_indexing_clients=2",
        "--test-mode",
    )
    assert compared.returncode == 0 and "| index-append |" in compared.stdout


@pytest.mark.check
@pytest.mark.parametrize(
    "args,message",
    [
        (["--grid", "bulk_sise=1,2"], "--grid bulk_sise: track tiny-logs never reads a parameter 'bulk_sise'"),
        (["--grid", "bulk_size=abc"], "track parameter 'bulk_size' of tiny-logs must be an integer (default 5000), got \"abc\""),
        (["--challenge", "nope"], "track tiny-logs has no challenge 'nope'; it has append-no-conflicts, append-only"),
    ],
)
def test_bad_input_is_named_before_any_race(es_node, args, message):
    started = time.monotonic()
    proc = sweep("--track-path", str(TRACK), "--target-hosts", es_node.hosts, *args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert time.monotonic() - started < 30 and "Race id" not in proc.stdout


@pytest.mark.check
def test_a_track_path_without_track_json_is_named(tmp_path):
    proc = sweep("--track-path", str(tmp_path), "--target-hosts", "127.0.0.1:1", "--grid", "bulk_size=1")
    assert proc.returncode == 2 and f"{tmp_path} is not a Rally track: it has no track.json" in proc.stderr


@pytest.mark.check
def test_samples_all_inside_the_warm_up_are_reported_as_exactly_that(es_node, tiny_logs_corpus):
    """The whole 20,000-document corpus is indexed within seconds, inside rally-tracks' usual 120 s warm-up. (Not in
    test mode: Rally's test mode sets every warm-up period to 0.)"""
    proc = sweep(
        "--track-path",
        str(TRACK),
        "--challenge",
        "append-only",
        "--track-param",
        "warmup_time_period=120",
        "--grid",
        "bulk_size=1000",
        "--target-hosts",
        es_node.hosts,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (
        "index-append: no figure — every sample fell inside its warm-up (warmup-time-period 120 s): use a larger corpus, "
        "or a smaller warmup_time_period"
    ) in proc.stdout
    assert "| bulk_size=1000 | 1 | no figure: every sample fell inside its warm-up (warmup-time-period 120 s)" in proc.stdout


@pytest.mark.check
def test_a_sweep_over_a_study_track(es_node):
    proc = sweep("posts", "--challenge", "bulk", "--grid", "bulk_size=100,1000", "--test-mode", "--target-hosts", es_node.hosts)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    state = state_of(proc.stdout)
    assert [r["cell_id"] for r in state["runs"]] == ["bulk_size=100", "bulk_size=1000"]
    assert "## bulk-100" in proc.stdout and "## bulk-1000" in proc.stdout
