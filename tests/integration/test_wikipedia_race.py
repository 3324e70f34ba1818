"""The reindex study end to end: generated jawiki export → converter → source index → both reindex
methods in test mode against a real node; and the sliced-scroll runner against a node that rejects writes."""

import uuid

import pytest

from ingestlab.rally import results
from ingestlab.rally.home import runner_stats_file
from ingestlab.runners.utils.runner_stats import read
from tests.integration.conftest import get_json, ingestlab

pytestmark = pytest.mark.integration
COMMON = ["--track-param", "wiki_pages=3000", "--track-param", "source_shards=2"]


def _reindex_stats(stored) -> list[dict]:
    """The reindex runs' entries (the source is loaded by corpus-load, which keeps its own)."""
    return [s for s in read(runner_stats_file(stored["race-id"])) if s["method"] in ("reindex-api", "sliced-scroll-reindex")]


def run(cluster, *extra, index_prefix):
    tag = f"it-{uuid.uuid4().hex[:8]}"
    proc = ingestlab(
        "race",
        "wikipedia",
        "--test-mode",
        "--target-hosts",
        cluster.hosts,
        "--tag",
        f"run:{tag}",
        *COMMON,
        "--track-param",
        f"source_index={index_prefix}-source",
        "--track-param",
        f"dest_index={index_prefix}-dest",
        *extra,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc, results.latest_race({"study": "wikipedia", "run": tag})


@pytest.mark.check
def test_both_methods_race_and_copy_everything(es_node):
    proc, stored = run(es_node, index_prefix="wiki-it")
    measured = results.task_results(stored)
    reindex = [t for t in measured if t.startswith(("reindex-api", "tool-"))]
    assert len(reindex) == 2 + 1 + 6 and all(measured[t].error_rate == 0 for t in measured)
    stats = {s["task"]: s for s in _reindex_stats(stored)}
    assert set(stats) == set(reindex) and all(s["docs"] == 1000 for s in stats.values())
    assert stats["tool-sliced-local-raw"]["raw"] and not stats["tool-sliced-local-decode"]["raw"]
    # the last run copied into the destination with more shards; every run checked its count
    dest = get_json(f"{es_node.url}/wiki-it-dest/_settings")["wiki-it-dest"]["settings"]["index"]
    assert dest["number_of_shards"] == "4"
    assert get_json(f"{es_node.url}/wiki-it-dest/_count")["count"] == 1000
    # no scroll context is left open
    assert get_json(f"{es_node.url}/_nodes/stats/indices/search")["nodes"].popitem()[1]["indices"]["search"]["open_contexts"] == 0
    doc = get_json(f"{es_node.url}/wiki-it-dest/_doc/1")["_source"]
    assert set(doc) == {"title", "text", "redirect", "special", "stub", "disambiguation", "category", "link"}
    assert "| _reindex API, scroll size 1000 |" in proc.stdout and "Custom ÷ `_reindex` throughput" in proc.stdout


def test_rejected_bulks_are_retried_and_nothing_is_lost(es_tiny_write_queue):
    _, stored = run(
        es_tiny_write_queue,
        "--challenge",
        "sliced-scroll",
        "--track-param",
        "bulk_size=20",
        "--track-param",
        "bulk_workers=16",
        "--track-param",
        "remote_dest_shards=8",
        index_prefix="wiki-q",
    )
    stats = _reindex_stats(stored)
    assert len(stats) == 6 and all(s["docs"] == 1000 for s in stats)
    assert sum(s["retries"] for s in stats) > 0, "the tiny write queue should have rejected some bulk requests"
    # each bulk asks for its errors flag alone; one that had errors is sent again for its items' statuses
    assert all(s["acknowledged"] == s["docs"] for s in stats)
    assert get_json(f"{es_tiny_write_queue.url}/wiki-q-dest/_count")["count"] == 1000


EXPIRING = [
    "--challenge",
    "sliced-scroll",
    "--track-param",
    "scroll_keep_alive=1ms",
    "--track-param",
    "scroll_size=10",
    "--track-param",
    "bulk_size=10",
    "--track-param",
    "bulk_workers=1",
    "--track-param",
    "queue_depth=1",
]


def _open_scroll_contexts(cluster) -> int:
    return get_json(f"{cluster.url}/_nodes/stats/indices/search")["nodes"].popitem()[1]["indices"]["search"]["open_contexts"]


def test_an_expired_scroll_aborts_with_a_clear_error_and_frees_every_context(es_tiny_write_queue):
    """A 1 ms keep-alive and a slow writer (bulks of 10, one worker, a queue of one page): the scroll
    context expires between pages. The race stops naming the cause; no result is stored as a success."""
    proc = ingestlab(
        "race",
        "wikipedia",
        "--test-mode",
        "--target-hosts",
        es_tiny_write_queue.hosts,
        *COMMON,
        *EXPIRING,
        "--track-param",
        "source_index=wiki-x-source",
        "--track-param",
        "dest_index=wiki-x-dest",
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    # Elasticsearch gives an expired context in several forms (404, a 500 "already closed" when the context is freed while
    # a page is read, a failed shard, an empty page): each is named the same way
    assert "the scroll context is gone (" in proc.stdout and "did its keep-alive (1ms) run out between pages?" in proc.stdout
    assert "report written" not in proc.stdout
    assert _open_scroll_contexts(es_tiny_write_queue) == 0


def test_with_on_error_continue_the_report_marks_every_expired_run_invalid(es_tiny_write_queue):
    proc, stored = run(es_tiny_write_queue, *EXPIRING, "--on-error", "continue", index_prefix="wiki-y")
    tools = {t: r for t, r in results.task_results(stored).items() if t.startswith("tool-")}
    expired = [t for t, r in tools.items() if r.error_rate]
    # expiry is a race against the clock: a run whose pages all came in time completed, and its own count
    # check proved it copied everything; every other run is a failed request, named in the report
    assert expired, "no run hit the 1 ms keep-alive"
    assert "**INVALID**: requests failed in " in proc.stdout and all(f"{t} (100.0% of requests)" in proc.stdout for t in expired)
    assert "first: ScrollFailed: slice" in proc.stdout and "the scroll context is gone (" in proc.stdout
    assert _open_scroll_contexts(es_tiny_write_queue) == 0


def test_a_reindex_that_outlasts_its_poll_timeout_is_polled_to_the_end(es_node):
    """A ``_reindex`` of 15,000 pages in scroll pages of 50 runs for seconds; with a poll timeout of 1 s the runner
    polls several times, times the run by the task's own ``took``, and removes the stored task result."""
    tag = f"it-{uuid.uuid4().hex[:8]}"
    proc = ingestlab(
        "race",
        "wikipedia",
        "--challenge",
        "reindex-api",
        "--target-hosts",
        es_node.hosts,
        "--tag",
        f"run:{tag}",
        "--track-param",
        "wiki_pages=15000",
        "--track-param",
        "source_shards=2",
        "--track-param",
        "reindex_scroll_sizes=[50]",
        "--track-param",
        "reindex_poll_timeout=1s",
        "--track-param",
        "repetitions=1",
        "--track-param",
        "source_index=wiki-poll-source",
        "--track-param",
        "dest_index=wiki-poll-dest",
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    stored = results.latest_race({"study": "wikipedia", "run": tag})
    runs = [s for s in _reindex_stats(stored) if s["task"] == "reindex-api-scroll-50"]
    assert len(runs) == 1 and runs[0]["docs"] == 15000
    print(f"[reindex poll] {runs[0]['polls']} polls, took {runs[0]['elapsed_s']:.2f} s, waited {runs[0]['waited_s']:.2f} s")
    assert runs[0]["elapsed_s"] > 1.0 and runs[0]["polls"] >= 2  # it outlasted the poll timeout at least once
    assert runs[0]["elapsed_s"] <= runs[0]["waited_s"] and "tasks_index" not in runs[0]
    assert get_json(f"{es_node.url}/wiki-poll-dest/_count")["count"] == 15000
    import urllib.error
    import urllib.request

    with pytest.raises(urllib.error.HTTPError) as gone:  # the task's stored result was removed
        urllib.request.urlopen(f"{es_node.url}/.tasks/_doc/{runs[0]['task_id']}", timeout=10)
    assert gone.value.code == 404
