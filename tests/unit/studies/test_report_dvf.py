"""The DVF report, on the race.json of a real test-mode race of tracks/dvf (ES 7.17.29)."""

import copy
import dataclasses

import pytest

from ingestlab import published
from ingestlab.studies import dvf
from tests.unit.studies.races import race, result


def test_published_grid_is_data():
    grid = dvf.published_grid(published.load("dvf"))
    assert len(grid) == 13 and grid[(1, 1)] == 58.8 and grid[(1000, 16)] == 11815.8


def test_measured_grid_has_every_cell():
    grid = dvf.measured_grid(result("dvf"))
    assert set(grid) == {(b, c) for b in (1, 10, 100, 1000) for c in (1, 4, 8, 16)}
    assert all(cell["docs_per_s"] > 0 and cell["error_rate"] == 0 for cell in grid.values())


def test_markdown_shows_both_grids_speedups_and_versions():
    text = dvf.STUDY.markdown(
        result("dvf"), published.load("dvf"), {"etalab": {"rows_per_s": 200000.0}, "official": {"rows_per_s": 190000.0}}
    )
    assert "| 1000 | 4,219.9 | 9,089.1 | 11,177.1 | 11,815.8 |" in text
    assert "| 1 (index API) | 58.8 | — | — | — |" in text
    assert "1.0× / 1.0×" in text and "Minutes to index the study's 827,106 documents" in text
    assert "Elasticsearch 7.17.29" in text and "test machine" in text and "200,000 rows/s" in text
    assert "INVALID" not in text


def test_errors_mark_the_report_invalid():
    broken = copy.deepcopy(race("dvf"))
    next(op for op in broken["results"]["op_metrics"] if op["task"] == "b10-t4")["error_rate"] = 0.1
    assert "**INVALID**: requests failed in b10-t4" in dvf.STUDY.markdown(result("dvf", broken, machine="m"), published.load("dvf"))


def test_published_context_is_the_articles():
    data = published.load("dvf")
    assert data["source"]["title"] == "DVF: Indexing Optimization" and "Java High Level REST Client" in data["client"]
    assert "first half" not in data["data"]
    text = dvf.STUDY.markdown(result("dvf"), data)
    assert "measured on 10,000 documents, not on the whole file" in text
    assert "234.4 (estimated)" in text  # 827,106 docs at 58.8 docs/s, which the article marks as an estimate
    assert text.count("(estimated) |") == 1


def test_a_cell_is_its_documents_over_first_request_to_last_not_a_median_of_few_buckets():
    """A 1.5 s cell: Rally's median rests on one or two one-second buckets; the report takes every call the writer
    recorded: 100,000 documents from the first request's start to the last one's end. The records name the cell's
    operation, which the four cells of a bulk size share: they are told apart at the gaps between the cells."""
    calls = []
    for cell, t0 in enumerate((10.0, 50.0, 100.0, 150.0)):  # b1000-t1, -t4, -t8, -t16, one after the other
        calls += [
            {"task": "load-bulk-1000", "method": "corpus-load", "acknowledged": 1000, "start": t0 + i * 0.015, "end": t0 + 0.02 + i * 0.015}
            for i in range(100)
        ]
    grid = dvf.measured_grid(result("dvf", stats=calls))
    assert grid[(1000, 4)]["docs_per_s"] == pytest.approx(100_000 / (0.02 + 99 * 0.015))
    assert grid[(1000, 4)]["whole_task"] and not grid[(100, 1)]["whole_task"]  # no records: Rally's median
    assert grid[(1000, 4)]["rally_median"] == result("dvf").tasks["b1000-t4"].throughput_median


CPU = {"resource": "node CPU", "share": 0.98, "evidence": "node-0 1.96 of the 2.00 cores it could use", "costs": {}}


def test_the_opening_says_what_held_each_measured_cell_and_is_as_before_when_nothing_was_sampled():
    data = published.load("dvf")
    before = dvf.STUDY.markdown(result("dvf"), data)
    disk = {**CPU, "resource": "disk", "evidence": "sda 97% busy"}
    tasks = {"b1000-t16": {"limit": CPU}, "b1-t1": {"verdict": "cluster bound"}, "check-b1-t1": {"limit": disk}}
    text = dvf.STUDY.markdown(dataclasses.replace(result("dvf"), footprint={"load_side": {"tasks": tasks}}), data)
    said = " What held each rate here, as sampled during the race: bulk 1000, 16 clients by node CPU (" + CPU["evidence"] + ")."
    assert said in text and text.replace(said, "") == before and "What held" not in before  # a check task is no cell
    for unsampled in (
        {"load_side": {"tasks": {"b1-t1": {"verdict": "cluster bound"}}}},
        {"load_side": {"limit": CPU}},
    ):  # a whole race: no one cell's
        assert dvf.STUDY.markdown(dataclasses.replace(result("dvf"), footprint=unsampled), data) == before
