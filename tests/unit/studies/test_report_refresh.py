"""The refresh report, on the race.json of a real test-mode race of tracks/refresh (ES 7.17.29)."""

import copy

from ingestlab import published
from ingestlab.studies import refresh
from tests.unit.studies.races import race, result


def test_published_table_and_highlights_are_data():
    data = published.load("refresh")
    cells = {(f["docs"], f["method"], f["refresh"]): f["elapsed_ms"] for f in data["figures"]}
    assert len(cells) == 16
    assert cells[(10000, "single", "none")] == 11009.0 and cells[(10000, "bulk", "true")] == 86.0
    assert [h["about"] for h in data["highlights"]] == [200, 433]


def test_cells_pair_measured_and_published():
    table = refresh.cells(result("refresh"), published.load("refresh"))
    cell = table[(10000, "single", "true")]
    assert cell.written == 1000  # test mode reads the -1k corpus
    assert cell.published_ms == 37227.8 and cell.median_ms > 0
    assert abs(cell.fastest_ms - cell.median_ms) / cell.median_ms < 0.05  # one run: fastest == median
    assert table[(10, "single", "wait_for")].published_ms is None
    assert (100, "single", "wait_for") not in table  # not run by default: one refresh_interval per doc


def test_published_ratios_match_the_study():
    table = refresh.cells(result("refresh"), published.load("refresh"))
    single, bulk = table[(10000, "single", "none")], table[(10000, "bulk", "none")]
    assert round(refresh.ratio(single.published_ms, bulk.published_ms)) == 200
    single_r, bulk_r = table[(10000, "single", "true")], table[(10000, "bulk", "true")]
    assert round(refresh.ratio(single_r.published_ms, bulk_r.published_ms)) == 433
    assert refresh.ordering(table, 10000, "published_ms") == ["bulk", "bulk + refresh=true", "single", "single + refresh=true"]


def test_time_to_searchable_rows_carry_percentiles():
    rows = {(r.interval_ms, r.refresh): r for r in refresh.searchable(result("refresh"))}
    assert set(rows) == {(i, m) for i in (100, 1000) for m in ("none", "true", "wait_for")}
    none = rows[(1000, "none")]
    assert none.samples == 16  # 4 clients x 4 iterations in test mode
    assert none.percentiles["p50"] <= none.percentiles["p90"] <= none.percentiles["p100"]
    assert rows[(1000, "true")].percentiles["p50"] < none.percentiles["p50"]


def test_markdown_shows_both_tables_machine_and_versions():
    text = refresh.STUDY.markdown(result("refresh"), published.load("refresh"))
    assert "| 10,000 (wrote 1,000) |" in text and "| 10,000 | 11,009 | 55.1 | 37,228 | 86.0 |" in text
    assert "Elasticsearch 7.17.29" in text and "esrally 2.13.0" in text and "test machine" in text
    assert "### Time to searchable" in text and "| 1,000 ms | wait_for | 16 |" in text
    assert "not run here for 100, 1,000, 10,000" in text
    assert "INVALID" not in text


def test_errors_mark_the_report_invalid():
    broken = copy.deepcopy(race("refresh"))
    for op in broken["results"]["op_metrics"]:
        if op["task"] == "searchable-100ms-refresh-none":
            op["error_rate"] = 0.25
    text = refresh.STUDY.markdown(result("refresh", broken, machine="m"), published.load("refresh"))
    assert "**INVALID**: requests failed in searchable-100ms-refresh-none" in text


def test_samples_are_counted_from_the_runners_records_when_there_are_some():
    stats = [{"task": "searchable-1000ms-refresh-none", "method": "time-to-searchable", "searchable_ms": 10.0} for _ in range(11)]
    rows = {(r.interval_ms, r.refresh): r for r in refresh.searchable(result("refresh", stats=stats))}
    assert rows[(1000, "none")].samples == 11 - 4 and rows[(1000, "none")].counted  # less 4 clients × 1 warm-up call
    assert rows[(100, "none")].samples == 16 and not rows[(100, "none")].counted  # no records: the schedule's count
