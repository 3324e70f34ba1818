"""What limited a race's rate (issue 64), named from what was sampled during it on real nodes: a refresh interval of
1 ms makes refresh the limit on Elasticsearch 7.17 and 9.2 and on OpenSearch (through opensearch-benchmark); a small
heap's GC is named in what was seen. A node or a load-driver worker held to a CPU quota: tests/integration/test_redline.py."""

import re

import pytest

from ingestlab import paths, racing
from ingestlab.cluster import lifecycle
from ingestlab.report.common import limit_lines
from tests import matrix
from tests.integration.conftest import named, port

pytestmark = pytest.mark.integration


def _race(cluster, tag: str, engine: str = "elasticsearch", **params):
    result = racing.race(
        paths.TRACKS_DIR / "eventdata",
        racing.Target(hosts=cluster.hosts, engine=engine),
        racing.Options(
            challenge="append-no-conflicts-index-only",
            params={"eventdata_docs": 100_000, "bulk_size": 100, "bulk_indexing_clients": 2, "index_name": f"limits-{tag}", **params},
            tags={"it": f"limits-{tag}"},
        ),
        log=lambda *_: None,
        stream=False,
    )
    limit = result.footprint["load_side"]["tasks"]["index-append"]["limit"]
    print(tag, limit)
    return limit, result


@pytest.fixture(scope="module")
def small_heap():
    cluster = lifecycle.up(
        lifecycle.Shape(nodes=1, heap="128m", http_port=port(29290), transport_port=port(29390), name=named("ingestlab-it-gc"))
    )
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
    # 128 MB under bulks of 500: on this machine G1 took 3 % of the window and the node's CPU was the limit (2026-12-02);
    # GC is named with its share, whichever resource held the rate
    limit, _ = _race(small_heap, "gc", bulk_size=500)
    assert re.search(r"GC \d+%|\d+% of the window in GC", limit["evidence"]), limit
