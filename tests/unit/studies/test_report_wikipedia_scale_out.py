"""The scale-out rows: runs lined up by wall clock, a run's span, ratios beside the published rows."""

from ingestlab import published
from ingestlab.studies import wikipedia_scale_out as so
from tests.unit.studies.races import result


def scale_out(stats):
    """A race of the scale-out challenge with these runner stats."""
    return result("wikipedia", stats=stats, challenge="scale-out")


def entry(task, start, end, docs, host, error=None):
    e = {"task": task, "started_at": start, "ended_at": end, "docs": docs, "load_driver": host}
    if error:
        e["error"] = error
    return e


def test_overlapping_clients_make_one_run_and_later_ones_the_next():
    entries = [
        entry("t", 0.0, 2.0, 1, "h1"),
        entry("t", 0.1, 3.0, 1, "h2"),
        entry("t", 2.5, 2.9, 1, "h3"),
        entry("t", 10.0, 11.0, 1, "h1"),
        entry("t", 10.2, 12.0, 1, "h2"),
    ]
    assert [len(r) for r in so.runs(entries)] == [3, 2]


def test_a_runs_time_is_first_start_to_last_end_and_the_fastest_run_counts():
    stats = [
        entry("scale-out-local", 0.0, 4.0, 300, "h1"),
        entry("scale-out-local", 0.5, 5.0, 700, "h2"),
        entry("scale-out-local", 20.0, 22.0, 300, "h1"),
        entry("scale-out-local", 20.1, 23.0, 700, "h2"),
    ]
    (row,) = so.scale_out_rows(scale_out(stats))
    assert row["span_s"] == 3.0 and row["runs"] == 2 and row["drivers"] == 2 and row["docs"] == 1000


def test_markdown_puts_each_step_beside_its_published_row_as_ratios():
    stats = [
        entry("scale-out-parallel-bulk", 0, 8.0, 1000, "h1"),
        entry("scale-out-sliced-raw", 10, 14.0, 1000, "h1"),
        entry("scale-out-local", 20, 22.0, 500, "h1"),
        entry("scale-out-local", 20, 22.0, 500, "h2"),
        entry("scale-out-local-to-remote", 30, 32.5, 500, "h1"),
        entry("scale-out-local-to-remote", 30, 32.4, 500, "h2"),
    ]
    text = "\n".join(so.scale_out_lines(scale_out(stats), published.load("wikipedia")))
    assert "| one tool per node: its local primaries, raw | 2 | 2 | 1 | 1,000 | 2.00 s | 4.00× | 21 s | 3.95× |" in text
    assert "same raw copy: 2.00× the speed" in text
    assert "Local primaries → an index with twice the shards: 1.25× the time here." in text
    assert "the same shards moved to other nodes by reroute (24 s / 21 s = 1.14× there), so the two are not set side by side" in text
    assert (
        "| one tool per node: local primaries → an index with twice the shards, raw | 2 | 2 | 1 | 1,000 | 2.50 s | 3.20× | — | — |" in text
    )


def test_failed_calls_are_named_and_no_rows_without_scale_out_tasks():
    stats = [entry("scale-out-local", 0, 1, 10, "h1"), {"task": "scale-out-local", "error": "NoNodeOnThisHost: ..."}]
    assert "Failed calls: scale-out-local (1)" in "\n".join(so.scale_out_lines(scale_out(stats), published.load("wikipedia")))
    assert so.scale_out_lines(scale_out([{"task": "tool-sliced", "elapsed_s": 1}]), published.load("wikipedia")) == []


def test_one_tool_per_node_is_set_against_reindex_without_slices_and_with_slices_auto():
    stats = [
        entry("scale-out-local", 0.0, 4.0, 500, "h1"),
        entry("scale-out-local", 0.5, 5.0, 500, "h2"),
        {"task": "reindex-api-scroll-1000", "method": "reindex-api", "elapsed_s": 50.0, "docs": 1000},
        {"task": "reindex-api-scroll-10000", "method": "reindex-api", "elapsed_s": 40.0, "docs": 1000},
        {"task": "reindex-api-slices-auto", "method": "reindex-api", "elapsed_s": 10.0, "docs": 1000},
    ]
    race = scale_out(stats)
    assert so.reindex_fastest(race) == {"no slices": 40.0, "slices=auto": 10.0}
    text = "\n".join(so.scale_out_lines(race, published.load("wikipedia")))
    assert "One tool per node (2 nodes) against `_reindex`: 8.00× the speed of no slices (40.0 s); 2.00× the speed of slices=auto" in text
    assert "Published: 11.8× (248 s without slices → 21 s, 8 nodes)" in text
