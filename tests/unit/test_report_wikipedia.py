"""The reindex report, on the race.json and runner stats of a real test-mode race of tracks/wikipedia."""
import json
from pathlib import Path

from ingestlab import published
from ingestlab.report import wikipedia
from ingestlab.runners.runner_stats import read

FIXTURES = Path(__file__).parent.parent / "fixtures"


def race():
    return json.loads((FIXTURES / "wikipedia-test-mode-race.json").read_text())


def stats():
    return read(FIXTURES / "wikipedia-test-mode-runner-stats.jsonl")


def test_rows_pair_rally_results_with_runner_stats():
    rows = {r["task"]: r for r in wikipedia.method_rows(race(), stats())}
    assert {"reindex-api-scroll-1000", "reindex-api-slices-auto", "tool-sliced-local-raw"} <= set(rows)
    raw = rows["tool-sliced-local-raw"]
    assert raw["docs"] == 1000 and raw["fastest_s"] > 0 and raw["mb_per_s"] > 0 and raw["cpu_us_per_doc"] > 0
    assert rows["reindex-api-scroll-1000"]["mb_per_s"] is None  # _reindex moves bytes inside Elasticsearch


def test_markdown_has_both_sides_ratios_and_cpu():
    text = wikipedia.markdown(race(), published.load("wikipedia"), "test machine", None, stats())
    assert "| _reindex API, scroll size 1000 |" in text and "| 21 s | 11.81× |" in text
    assert "Custom ÷ `_reindex` throughput" in text and "Client CPU per document: decode" in text
    assert "best 248 s" in text and "Elasticsearch 7.17.29" in text and "INVALID" not in text


def test_without_runner_stats_the_report_still_renders():
    text = wikipedia.markdown(race(), published.load("wikipedia"), "m", None, [])
    assert "| tool: sliced, local primaries, raw _source bytes (no decode, no gzip) | — |" in text
