"""Bulk rejections (HTTP 429) from a node whose write queue holds two requests: the pack's writers retry
with backoff and account for every document; Rally's own bulk, left without retries, shows its errors
and the report says INVALID instead of printing a clean throughput, naming rejections as what limited the rate."""

import re
import uuid

import pytest

from ingestlab.rally import results
from ingestlab.rally.home import runner_stats_file
from ingestlab.runners.utils.runner_stats import read
from tests.integration.conftest import get_json, ingestlab

pytestmark = pytest.mark.integration


def _race(cluster, study, *extra, test_mode=True):
    tag = f"q-{uuid.uuid4().hex[:8]}"
    proc = ingestlab("race", study, *(["--test-mode"] if test_mode else []), "--target-hosts", cluster.hosts, "--tag", f"run:{tag}", *extra)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    stored = results.latest_race({"study": study, "run": tag})
    return proc, stored, read(runner_stats_file(stored["race-id"]))


def test_corpus_load_retries_rejections_and_writes_every_document(es_tiny_write_queue):
    proc, stored, stats = _race(
        es_tiny_write_queue,
        "dvf",
        "--challenge",
        "one-cell",
        "--track-param",
        "bulk_size=10",
        "--track-param",
        "clients=16",
        "--track-param",
        "number_of_shards=4",
        "--track-param",
        "index_name=dvf-q",
    )
    calls = [s for s in stats if s["method"] == "corpus-load"]
    print(f"[rejections] corpus-load: {sum(c['retries'] for c in calls)} retries over {len(calls)} calls")
    assert sum(c["retries"] for c in calls) > 0, "16 clients against a write queue of 2 should have been rejected"
    assert sum(c["acknowledged"] for c in calls) == 1000 and not any(c.get("error") for c in calls)
    assert all(r.error_rate == 0 for r in results.task_results(stored).values()) and "INVALID" not in proc.stdout
    assert get_json(f"{es_tiny_write_queue.url}/dvf-q/_count")["count"] == 1000


def test_fresh_index_load_retries_rejections_and_writes_every_document(es_tiny_write_queue):
    """One bulk of 1,000 documents over 8 shards is 8 shard-level writes at once: more than 2 cores + a queue of 2."""
    proc, stored, stats = _race(
        es_tiny_write_queue, "posts", "--challenge", "bulk", "--track-param", "number_of_shards=8", "--track-param", "index_name=posts-q"
    )
    runs = [s for s in stats if s["method"] == "fresh-index-load"]
    print(f"[rejections] fresh-index-load: {sum(r['retries'] for r in runs)} retries over {len(runs)} runs")
    assert runs and sum(r["retries"] for r in runs) > 0
    assert all(r.error_rate == 0 for r in results.task_results(stored).values()) and "INVALID" not in proc.stdout
    assert get_json(f"{es_tiny_write_queue.url}/posts-q/_count")["count"] == 1000


def test_rallys_bulk_without_retries_shows_its_errors_and_the_report_is_invalid(es_tiny_write_queue):
    proc, stored, _ = _race(
        es_tiny_write_queue,
        "eventdata",
        "--challenge",
        "append-no-conflicts",
        "--track-param",
        "bulk_retries_on_429=0",
        "--track-param",
        "number_of_shards=8",
        "--track-param",
        "bulk_size=500",
        "--track-param",
        "index_name=eventdata-q",
        "--track-param",
        "eventdata_docs=40000",
        "--on-error",
        "continue",
        test_mode=False,
    )
    measured = results.task_results(stored)
    print(f"[rejections] Rally's bulk, no retries: error rate {measured['index-append'].error_rate:.1%}")
    assert measured["index-append"].error_rate > 0
    assert "**INVALID**: requests failed in index-append" in proc.stdout
    # what limited the rate (issue 64): the node's write pool turning requests away, counted from its stats
    limit = results.of(stored).footprint["load_side"]["tasks"]["index-append"]["limit"]
    print(f"[rejections] the limit: {limit['resource']}: {limit['evidence']}")
    assert limit["resource"] == "rejections" and re.fullmatch(
        r"[\d,]+ requests rejected \(the write pool or indexing pressure\)", limit["evidence"]
    )
    assert f"- index-append: rejections: {limit['evidence']}" in proc.stdout  # the report's words
