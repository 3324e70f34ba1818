"""What limited a race's rate (issue 64), named from what was sampled during it on real nodes: a refresh interval of
1 ms makes refresh the limit on Elasticsearch 7.17 and 9.2 and on OpenSearch (through opensearch-benchmark); a small
heap's GC is named in what was seen. On emulated hosts racing the index API: a disk slower than an HDD (a cold-HDD cloud
volume's 250 IOPS; btrfs's fsync a request takes many writes) is the disk on 7.17 and 9.2; a node's or the load
driver's small CPU share is node CPU or load driver on 9.2 (on 7.17, the same quota'd on a local node:
tests/integration/test_redline.py)."""

import re
import uuid

import pytest

from ingestlab import paths, racing
from ingestlab.cluster import lifecycle
from ingestlab.hosts import cgroups, disks, namespaces
from ingestlab.hosts import lab as labs
from ingestlab.rally import results
from ingestlab.report.common import limit_lines
from tests import matrix
from tests.integration.conftest import ingestlab, named, port

pytestmark = pytest.mark.integration


def _race(cluster, tag: str, engine: str = "elasticsearch", **params):
    result = racing.race(
        paths.TRACKS_DIR / "eventdata",
        racing.Target(hosts=cluster.hosts, engine=engine),
        racing.Options(
            challenge="append-no-conflicts-index-only",
            params={"eventdata_docs": 50_000, "bulk_size": 100, "bulk_indexing_clients": 2, "index_name": f"limits-{tag}", **params},
            tags={"it": f"limits-{tag}"},
        ),
        log=lambda *_: None,
        stream=False,
    )
    limit = result.footprint["load_side"]["tasks"]["index-append"]["limit"]
    print(tag, limit)
    return limit, result


@pytest.fixture(scope="module", params=["7.17.29", "9.2.0"])
def small_heap(request):
    at = ["7.17.29", "9.2.0"].index(request.param)
    shape = lifecycle.Shape(
        nodes=1,
        version=request.param,
        heap="128m",
        http_port=port(29290 + at),
        transport_port=port(29390 + at),
        name=named(f"ingestlab-it-gc-{request.param}"),
    )
    cluster = lifecycle.up(shape)
    yield cluster
    lifecycle.stop(cluster)


@pytest.fixture(scope="module")
def opensearch():
    version = matrix.version("osb", "opensearch")
    shape = lifecycle.Shape(
        nodes=1,
        version=version,
        engine="opensearch",
        heap="768m",
        http_port=port(29295),
        transport_port=port(29395),
        name=named("ingestlab-it-os-limits"),
    )
    cluster = lifecycle.up(shape)
    yield cluster
    lifecycle.stop(cluster)


@pytest.mark.parametrize("version", ["7.17.29", "9.2.0"])
def test_a_one_millisecond_refresh_interval_is_named_refresh_with_the_costs_per_document(es_node, es_versions, version):
    limit, result = _race(es_node if version == "7.17.29" else es_versions(version), f"refresh-{version}", refresh_interval="1ms")
    # the node at its cores, most of the window in refresh: its CPU and the window's parts are the evidence
    assert limit["resource"] == "refresh" and re.search(r"cores it could use; of the window: .*refresh \d+%$", limit["evidence"]), limit
    assert limit["costs"]["documents"] > 0 and limit["costs"]["node_cpu_ms_per_doc"] > 0 and limit["costs"]["bytes_written_per_doc"] > 0
    assert f"- index-append: refresh: {limit['evidence']} (" in limit_lines(result)  # the report's words


def test_on_opensearch_the_same_refresh_limit_is_named_through_opensearch_benchmark(opensearch):
    limit, _ = _race(opensearch, "refresh-os", engine="opensearch", refresh_interval="1ms")
    assert limit["resource"] == "refresh", limit


def test_a_small_heaps_gc_is_named_in_what_was_seen(small_heap):
    # 128 MB under bulks of 500, on 7.17.29 and 9.2.0: on this machine G1 took 3 % of the window on 7.17.29 and the node's
    # CPU was the limit (2026-12-02); GC is named with its share, whichever resource held the rate
    limit, _ = _race(small_heap, f"gc-{small_heap.version}", bulk_size=500)
    assert re.search(r"GC \d+%|\d+% of the window in GC", limit["evidence"]), limit


# an emulated host with one bottleneck put where it is known, racing the index API: (version, its profile, the documents
# to index, the resource, what its evidence says). The documents keep the window several of the sampler's seconds: 200
# through the 0.05-core driver took 2 s, and one of them judged it "no single resource" (clean-clone CI of c2a49a2)
KNOWN = [
    ("7.17.29", ["--disk", "sc1"], 200, "disk", r"writes a second its throttle allows, [\d.]+ writes a document$"),
    ("9.2.0", ["--disk", "sc1"], 200, "disk", r"writes a second its throttle allows, [\d.]+ writes a document$"),
    ("9.2.0", ["--cpus", "0.5"], 1000, "node CPU", r"of the 0.50 cores it could use, held back by its quota \d+% of the time"),
    ("9.2.0", ["--driver-cpus", "0.05"], 1000, "load driver", r"0\.0\d of 0\.05 cores"),
]


@pytest.mark.alone  # a CPU quota or a throttle's verdict: beside other tests a quota'd group can be starved below its quota
@pytest.mark.parametrize("version, profile, docs, resource, evidence", KNOWN, ids=[f"{v}-{r}" for v, _, _, r, _ in KNOWN])
def test_an_emulated_hosts_known_bottleneck_is_named_with_its_evidence(version, profile, docs, resource, evidence):
    reason = namespaces.unavailable_reason() or cgroups.unavailable_reason() or disks.unavailable_reason()
    if reason:
        pytest.skip(reason)
    prefix, tag = "ingk", f"it-{uuid.uuid4().hex[:8]}"
    up = ingestlab("hosts", "up", "--hosts", "1", "--prefix", prefix, "--subnet", "127.213.21", "--version", version, *profile, timeout=600)
    try:
        assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
        race = ["race", "posts", "--challenge", "index-api", "--test-mode", "--hosts", prefix, "--tag", f"run:{tag}"]
        proc = ingestlab(*race, "--track-param", f"posts_docs={docs}", timeout=600)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        limit = results.latest_race({"study": "posts", "run": tag})["ingestlab-footprint"]["load_side"]["limit"]
        assert limit["resource"] == resource and re.search(evidence, limit["evidence"]), limit
        assert f"- index-api: {resource}: {limit['evidence']}" in proc.stdout  # the report's words
    finally:
        down = ingestlab("hosts", "down", "--prefix", prefix, timeout=300)
        assert down.returncode == 0 and labs.leftovers(prefix) == [], down.stdout[-2000:] + down.stderr[-2000:]
