"""Race the refresh track with real esrally against a real node, in test mode, and check its report."""

import uuid

import pytest

from ingestlab.rally import results
from tests.integration.conftest import get_json, ingestlab

pytestmark = pytest.mark.integration
PARAMS = ["doc_counts=[10,1000]", "searchable_intervals_ms=[100,1000]", "searchable_clients=2", "index_name=refresh-it"]


def test_the_refresh_study_races_in_test_mode(es_node):
    run_tag = f"it-{uuid.uuid4().hex[:8]}"
    args = ["race", "refresh", "--test-mode", "--target-hosts", es_node.hosts, "--tag", f"run:{run_tag}"]
    for p in PARAMS:
        args += ["--track-param", p]
    proc = ingestlab(*args)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    stored = results.latest_race({"study": "refresh", "run": run_tag})
    measured = results.task_results(stored)
    cells = [t for t in measured if t.startswith(("single-", "bulk-"))]
    assert len(cells) == 2 * 5 + 1  # single-10-refresh-wait_for is the only single wait_for cell
    assert all(measured[t].error_rate == 0.0 for t in measured)

    # timings of one test-mode run are no test's business (the study's ordering is the benchmark's, `ingestlab demo refresh`):
    # every cell ran once and has its time, every searchable cell its percentiles
    assert all(measured[t].service_time("mean") > 0 for t in cells)
    for interval in (100, 1000):
        for mode in ("none", "true", "wait_for"):
            p = measured[f"searchable-{interval}ms-refresh-{mode}"].service_time_ms
            assert 0 < p["p50"] <= p["p100"]

    out = proc.stdout
    assert (
        "### Published: Elasticsearch 8.14.1, Go client (go-elasticsearch/v8), on the same machine as the node, ms" in out
        and "| 10,000 | 11,009 | 55.1 | 37,228 | 86.0 |" in out
    )
    assert "| 1,000 | " in out and "### Time to searchable" in out and "| 1,000 ms | wait_for | 4 |" in out
    # the last run's documents stay in the table's index; the probe index is removed at the end
    assert get_json(f"{es_node.url}/refresh-it/_count")["count"] == 1000
    indices = get_json(f"{es_node.url}/_cat/indices?format=json")
    assert not [i for i in indices if i["index"] == "refresh-it-searchable"]
