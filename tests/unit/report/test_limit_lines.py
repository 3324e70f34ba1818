"""The report's list of what limited each task: the cores a task's CPU a document comes to at its median rate, given
only where one node indexed it (the costs count each copy the nodes indexed, the rate each document once)."""

from dataclasses import replace

from ingestlab.report.common import limit_lines
from tests.unit.studies.races import result


def test_the_cores_at_a_tasks_rate_are_given_on_one_node_only():
    limit = {"resource": "no single resource", "evidence": "...", "costs": {"node_cpu_ms_per_doc": 0.02, "driver_cpu_ms_per_doc": 0.002}}

    def lines(nodes: int) -> str:
        task = {"nodes": [{"name": f"node-{i}"} for i in range(nodes)], "limit": limit}
        return limit_lines(replace(result("posts"), footprint={"load_side": {"tasks": {"bulk-1000": task}}}))

    # posts' bulk-1000 in the fixture: 27,603 docs/s at its median
    assert "at its median rate, 27,603 docs/s, up to 0.55 cores of node CPU and 0.06 cores of the load driver's" in lines(1)
    assert "at its median rate" not in lines(3) and "- bulk-1000: no single resource: ... (0.02 ms node CPU a document)" in lines(3)
