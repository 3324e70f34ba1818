"""OpenSearch through opensearch-benchmark: every study workload, exported from the tracks, races in test mode with
stock ``opensearch-benchmark run`` against the pack's OpenSearch node; ``ingestlab race --engine opensearch`` races and
reports a study; a sweep provisions both engines side by side."""

import json
import os
import re
import subprocess

import pytest

from ingestlab import paths
from ingestlab.cluster import lifecycle
from ingestlab.osb import tool
from ingestlab.rally import trackinfo
from tests import matrix
from tests.integration.conftest import get_json, ingestlab, port_1900_taken, port_1900_to_ourselves
from tests.integration.test_plain_esrally import LANDED, PARAMS

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(port_1900_taken(), reason="another actor system holds 127.0.0.1:1900; plain OSB would join it"),
]

VERSION = matrix.version("osb", "opensearch")  # tests/matrix.json
WORKLOADS = matrix.tracks("osb", engine="opensearch")
# the integration-test zip has no reindex module: the _reindex rows are left out as `ingestlab race` leaves them out
EXCLUDE = {"wikipedia": "type:reindex-api"}


@pytest.fixture(scope="module")
def os_node():
    cluster = lifecycle.up(
        lifecycle.Shape(
            nodes=1, version=VERSION, engine="opensearch", heap="768m", http_port=29480, transport_port=29580, name="ingestlab-it-os"
        )
    )
    yield cluster
    lifecycle.stop(cluster)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The workloads and their -1k corpora, as a user of their own OSB makes them, in a BENCHMARK_HOME of its own."""
    root = tmp_path_factory.mktemp("osb")
    env = {"BENCHMARK_HOME": str(root / "home")}
    made = ingestlab("osb", "export", str(root), "--corpora", "--test-mode", env=env)
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    for name, params in PARAMS.items():  # corpora as those parameters size them
        sized = ingestlab(
            "osb",
            "export",
            str(root / f"sized-{name}"),
            "--tracks",
            name,
            "--corpora",
            "--test-mode",
            *[f"--track-param={k}={json.dumps(v)}" for k, v in params.items()],
            env=env,
        )
        assert sized.returncode == 0, sized.stdout[-2000:] + sized.stderr[-2000:]
    return root


def osb(*args, home, timeout=600) -> subprocess.CompletedProcess:
    with port_1900_to_ourselves():  # the actor processes of the run before linger a moment on 1900
        return subprocess.run(
            [str(tool.python().parent / "opensearch-benchmark"), *args, "--offline"],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "BENCHMARK_HOME": str(home)},
        )


RENDER = """
import json, sys
from osbenchmark.workload import loader
print(loader.render_template_from_file(sys.argv[1], {}, complete_workload_params=loader.CompleteWorkloadParams()))
"""


@pytest.mark.parametrize("workload", list(LANDED))
def test_osb_renders_each_workload_as_rally_renders_its_track(exported, workload):
    """One source: OSB's loader (its own Jinja set-up, which escapes what an expression prints) reads the exported
    workload into the same operations and schedule as Rally's loader reads the track."""
    proc = subprocess.run(
        [str(tool.python()), "-c", RENDER, str(exported / "workloads" / workload / "workload.json")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    osb_side = json.loads(proc.stdout)
    rally_side = trackinfo.load(paths.TRACKS_DIR / workload).rendered
    by_name = lambda items: sorted(items, key=lambda i: i["name"])  # noqa: E731 (each loader globs the parts in its own order)
    assert by_name(osb_side["operations"]) == by_name(rally_side["operations"])
    assert by_name(osb_side["test_procedures"]) == by_name(rally_side["challenges"])
    assert osb_side.get("corpora") == rally_side.get("corpora")


@pytest.mark.parametrize("workload", WORKLOADS)
def test_every_study_workload_races_with_stock_opensearch_benchmark(os_node, exported, tmp_path, workload):
    args = []
    if workload in PARAMS:
        (tmp_path / "params.json").write_text(json.dumps(PARAMS[workload]))
        args.append(f"--workload-params={tmp_path / 'params.json'}")
    if workload in EXCLUDE:
        args.append(f"--exclude-tasks={EXCLUDE[workload]}")
    proc = osb(
        "run",
        "--pipeline=benchmark-only",
        f"--workload-path={exported / 'workloads' / workload}",
        f"--target-hosts={os_node.hosts}",
        "--test-mode",
        "--on-error=abort",
        f"--results-file={tmp_path / 'results.md'}",
        *args,
        home=exported / "home",
    )
    assert proc.returncode == 0 and "SUCCESS" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
    index, count = LANDED[workload]
    assert get_json(f"{os_node.url}/{index}/_count")["count"] == count


def test_a_missing_generated_corpus_is_named_with_the_command_that_makes_it(os_node, exported, tmp_path):
    proc = osb(
        "run",
        "--pipeline=benchmark-only",
        f"--workload-path={exported / 'workloads' / 'posts'}",
        f"--target-hosts={os_node.hosts}",
        "--test-mode",
        home=tmp_path,
    )  # a BENCHMARK_HOME without the corpora
    assert proc.returncode != 0
    assert "ingestlab osb export DIR --corpora --test-mode" in proc.stdout + proc.stderr + _log(tmp_path)


def _log(home) -> str:
    log = home / ".osb" / "logs" / "benchmark.log"
    return log.read_text() if log.is_file() else ""


def test_a_study_races_on_opensearch_through_osb_and_is_reported(os_node):
    """`ingestlab race --engine opensearch` on the module's node (what `demo --engine opensearch` runs after provisioning;
    the pack provisioning OpenSearch is test_a_sweep_puts_both_engines_side_by_side's)."""
    mark = f"osb-{os.getpid()}-{id(os_node)}"
    done = ingestlab(
        "race", "posts", "--engine", "opensearch", "--target-hosts", os_node.hosts, "--test-mode", "--tag", f"it:{mark}", timeout=900
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # OSB's coordinator keeps each task's latency samples beside its test run, as the pack keeps esrally's (issue 44:
    # a redline probe of fewer than 100 requests is judged by them)
    from ingestlab.osb import race as osb_race

    (run,) = [
        f
        for f in (osb_race.config_dir() / "benchmarks" / "test-runs").glob("*/test_run.json")
        if (json.loads(f.read_text()).get("user-tags") or {}).get("it") == mark
    ]
    kept = json.loads(run.with_name("ingestlab-latency-samples.json").read_text())
    assert kept and all(samples and all(v > 0 for v in samples) for samples in kept.values()), kept
    assert f"OpenSearch {VERSION}" in done.stdout and "opensearch-benchmark 2.4.0" in done.stdout
    assert "report written to" in done.stdout
    # OSB's workers are watched as esrally's are: the report says which side was at its CPU limit (issue 44)
    assert re.search(r"the load side( in \S+)?: (load driver bound|cluster bound|neither at its limit)", done.stdout), done.stdout[-3000:]


@pytest.mark.default_ports
def test_a_sweep_puts_both_engines_side_by_side():
    """One grid over the engines: a 7.17.29 node raced by esrally, an OpenSearch node by opensearch-benchmark."""
    done = ingestlab(
        "sweep",
        "posts",
        "--challenge",
        "bulk",
        "--grid",
        f"version=7.17.29,opensearch:{VERSION}",
        "--test-mode",
        "--heap",
        "768m",
        timeout=1200,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # a cell id holds no ':' (it becomes a Rally user tag): opensearch:2.19.0 shows as opensearch-2.19.0
    assert "| version=7.17.29 | 1 | " in done.stdout and f"| version=opensearch-{VERSION} | 1 | " in done.stdout
