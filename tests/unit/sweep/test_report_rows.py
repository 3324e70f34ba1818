"""A sweep cell's row says which side was at its CPU limit in its races, or that it was not seen."""

from ingestlab import compare
from ingestlab.sweep import report


def _entry(sides):
    return {
        "runs": 2,
        "failed": [],
        "aggregate": compare.Aggregate.of([100.0, 110.0], [None, None]),
        "error_rate": 0.0,
        "p50": 5.0,
        "p90": 6.0,
        "p99": 7.0,
        "load_side": sides,
    }


def test_a_cell_row_ends_with_its_load_side():
    assert report._row("bulk_size=50", _entry(["load driver bound"]), None).endswith("| best | load driver bound |")
    assert report._row("bulk_size=50", _entry(["cluster bound", "neither at its limit"]), "slower").endswith(
        "| slower | cluster bound / neither at its limit |"
    )
    assert report._row("bulk_size=50", _entry([]), None).endswith("| best | — |")
    assert report._row("c", {"runs": 0}, None).count("|") == report._row("bulk_size=50", _entry([]), None).count("|")


def test_a_cell_raced_on_emulated_hosts_takes_the_races_whole_verdict():
    from types import SimpleNamespace

    from ingestlab.rally.results import TaskResult
    from ingestlab.sweep import run

    task = TaskResult("index-api", 60.0, 55.0, 50.0, 18.0, 0.0, unit="docs/s")
    limit = {"resource": "disk", "evidence": "device 7:0 at its throttle", "over": "the seconds the nodes indexed documents"}
    result = SimpleNamespace(
        tasks={"index-api": task},
        schedule=[SimpleNamespace(name="index-api", warmup_time_period=None, operation_type="index")],
        footprint={"load_side": {"tasks": {}, "limit": limit}},
    )
    assert run.figures(result)["index-api"]["limit"] == "disk"
