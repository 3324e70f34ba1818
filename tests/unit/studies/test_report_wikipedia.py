"""The reindex report, on the race.json and runner stats of a real test-mode race of tracks/wikipedia."""

from ingestlab import published
from ingestlab.runners.utils.runner_stats import read
from ingestlab.studies import wikipedia
from tests.unit.studies.races import FIXTURES, race, result


def stats():
    return read(FIXTURES / "wikipedia-test-mode-runner-stats.jsonl")


def test_rows_pair_rally_results_with_runner_stats():
    rows = {r["task"]: r for r in wikipedia.method_rows(result("wikipedia", stats=stats()))}
    assert {"reindex-api-scroll-1000", "reindex-api-slices-auto", "tool-sliced-local-raw"} <= set(rows)
    raw = rows["tool-sliced-local-raw"]
    assert raw["docs"] == 1000 and raw["fastest_s"] > 0 and raw["mb_per_s"] > 0 and raw["cpu_us_per_doc"] > 0
    assert rows["reindex-api-scroll-1000"]["mb_per_s"] is None  # _reindex moves bytes inside Elasticsearch


def test_markdown_has_both_sides_ratios_and_cpu():
    text = wikipedia.STUDY.markdown(result("wikipedia", stats=stats()), published.load("wikipedia"))
    assert "| _reindex API, scroll size 1000 |" in text and "| 66 s | 3.76× |" in text  # sliced scroll beside its own row
    # the study's 21 s run (one tool per node, 8 nodes) is no single-node row's published figure
    assert (
        "| 21 s |" not in text
        and (
            "published 11.8× (best `_reindex` 248 s → 21 s with one tool per node; "
            "8 HDD nodes x 12 cores; 16 shards, 0 replicas, refresh -1)"
        )
        in text
    )
    assert "apart, on a development machine, not in its 21 s run: 135.57 s → 58.24 s → 22.45 s" in text
    assert "Custom ÷ `_reindex` throughput" in text and "Client CPU per document: decode" in text
    assert "best 248 s" in text and "Elasticsearch 7.17.29" in text and "INVALID" not in text


def test_without_runner_stats_the_report_still_renders():
    text = wikipedia.STUDY.markdown(result("wikipedia", stats=[], machine="m"), published.load("wikipedia"))
    assert "| tool: sliced, local primaries, raw _source bytes (no decode, no gzip) | — |" in text


def test_the_report_says_how_many_nodes_the_race_had():
    one = wikipedia.STUDY.markdown(result("wikipedia", stats=stats()), published.load("wikipedia"))
    assert "one node, so every shard is local" in one
    doc = race("wikipedia")
    doc["user-tags"] = {**doc.get("user-tags", {}), "nodes": "3"}  # as racing tags it from the cluster
    three = wikipedia.STUDY.markdown(result("wikipedia", race_doc=doc, stats=stats()), published.load("wikipedia"))
    assert "3 nodes on this one machine" in three and "one node" not in three
