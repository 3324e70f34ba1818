"""Current Elasticsearch as first-class engines: every study track in test mode on 8.19.7 and 9.2.0 (and on the
6.8.23 full distribution, with the mapping type 6.x needs), plain esrally against the pack's 9.x and 8.19 nodes
(their root endpoint is the pack's own module), what a version cannot run named in the report, and the
cross-version command end to end."""

import re
import uuid

import pytest

from ingestlab import paths
from ingestlab.rally import results
from tests import matrix
from tests.integration.conftest import get_json, ingestlab, plain_esrally, port_1900_taken

pytestmark = pytest.mark.integration
STUDIES = {  # study: (extra params, index that holds the race's documents, count)
    # refresh: up to 100 documents (single + refresh=true costs a refresh per document) and one run per cell
    "posts": ([], "posts", 1000),
    "refresh": (
        [
            "--track-param",
            "doc_counts=[10,100]",
            "--track-param",
            "searchable_intervals_ms=[100]",
            "--track-param",
            "searchable_clients=2",
            "--track-param",
            "single_wait_for_max_docs=0",
            "--track-param",
            "repetitions=1",
        ],
        "refresh",
        100,
    ),
    "dvf": (["--track-param", "bulk_sizes=[1,100]", "--track-param", "client_counts=[1,2]"], "dvf", 1000),
    "wikipedia": (["--track-param", "source_shards=2"], "wikipedia-dest", 1000),
    "eventdata": ([], "eventdata", 1000),
    "geonames": ([], "geonames", 1000),
    "pmc": ([], "pmc", 1000),
}
# the cases are tests/matrix.json's "version" rows: the tracks it names on the newest line (9.2.0) and the oldest (6.8.23,
# the mapping type); 8.19.7, 9.2.0's zip flavour with JDK 17, starts and answers stock esrally (its root endpoint) below;
# the docs' CI tables are rendered from it
CASES = matrix.cases("version")
assert {s for _, s in CASES} <= set(STUDIES)


@pytest.mark.parametrize("version,study", CASES, ids=[f"{v}-{s}" for v, s in CASES])
def test_every_study_track_races_in_test_mode(es_versions, version, study):
    cluster = es_versions(version)
    extra, index, count = STUDIES[study]
    tag = f"v-{uuid.uuid4().hex[:8]}"
    proc = ingestlab("race", study, "--test-mode", "--target-hosts", cluster.hosts, "--tag", f"run:{tag}", *extra)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    stored = results.latest_race({"study": study, "run": tag})
    assert stored["cluster"]["distribution-version"] == version
    assert all(r.error_rate == 0 for r in results.task_results(stored).values())
    assert get_json(f"{cluster.url}/{index}/_count")["count"] == count
    if version.startswith("6."):
        assert get_json(f"{cluster.url}/{index}/_mapping")[index]["mappings"].keys() == {"_doc"}
    if study == "wikipedia" and not version.startswith("6."):  # the integration-test zips of 8.19/9.x have no reindex module
        assert stored["user-tags"]["unavailable"] == "reindex-api"
        assert not [t for t in results.task_results(stored) if t.startswith("reindex-api")]
        assert "| _reindex API, scroll size 1000 | not available on this distribution (Elasticsearch" in proc.stdout
        assert "| tool: sliced scroll, one slice per primary (decode, gzip) | " in proc.stdout


@pytest.mark.skipif(port_1900_taken(), reason="another Rally holds 127.0.0.1:1900; plain esrally would join it")
@pytest.mark.parametrize("version", [v for v, _ in matrix.cases("plain-version")])
def test_plain_esrally_races_the_packs_current_nodes(es_versions, tmp_path, version):
    assert matrix.tracks("plain-version", version) == ["posts"]
    cluster = es_versions(version)
    root = get_json(cluster.url + "/")
    assert root["version"]["number"] == version and root["tagline"] == "You Know, for Search" and root["cluster_uuid"]
    proc = plain_esrally(
        "race",
        "--pipeline=benchmark-only",
        f"--track-path={paths.TRACKS_DIR / 'posts'}",
        f"--target-hosts={cluster.hosts}",
        "--test-mode",
        "--track-params=index_name:posts-plain",
        f"--report-file={tmp_path / 'report.md'}",
        rally_home=tmp_path,
    )
    assert proc.returncode == 0 and "SUCCESS" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert get_json(f"{cluster.url}/posts-plain/_count")["count"] == 1000


def test_the_reindex_runner_says_what_is_missing_when_not_told(es_versions):
    cluster = es_versions("9.2.0")
    proc = ingestlab(
        "race",
        "wikipedia",
        "--test-mode",
        "--target-hosts",
        cluster.hosts,
        "--challenge",
        "reindex-api",
        "--track-param",
        "source_shards=2",
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "has no reindex module: the reindex-api tasks are left out (--exclude-tasks=type:reindex-api)" in proc.stdout


@pytest.mark.default_ports
def test_the_cross_version_command_reports_every_version_side_by_side():
    proc = ingestlab("versions", "--studies", "posts", "--versions", "7.17.29,9.2.0", "--test-mode", timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "| engine and version (distribution) | bulk 1000 ÷ index API (speed) |" in proc.stdout
    assert "| Elasticsearch 7.17.29 (" in proc.stdout and "| Elasticsearch 9.2.0 (" in proc.stdout
    assert re.search(r"\| published \(Elasticsearch 6\.0\.0-rc2; [^|]*\) \| 24\.3× \|", proc.stdout), proc.stdout


def test_an_unknown_version_names_those_that_work():
    proc = ingestlab("cluster", "up", "--version", "9.2.1")
    assert proc.returncode == 2 and "invalid choice: '9.2.1'" in proc.stderr and "9.2.0" in proc.stderr
