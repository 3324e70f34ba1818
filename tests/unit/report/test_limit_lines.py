"""The report's list of what limited each task: the cores a task's CPU a document comes to at its median rate, given
only where one node indexed it (the costs count each copy the nodes indexed, the rate each document once)."""

from dataclasses import replace

from ingestlab.report.common import held_sentence, limit_lines
from ingestlab.studies.posts import request_costs
from tests.unit.studies.races import result


def test_the_cores_at_a_tasks_rate_are_given_on_one_node_only():
    limit = {"resource": "no single resource", "evidence": "...", "costs": {"node_cpu_ms_per_doc": 0.02, "driver_cpu_ms_per_doc": 0.002}}

    def lines(nodes: int) -> str:
        task = {"nodes": [{"name": f"node-{i}"} for i in range(nodes)], "limit": limit}
        return limit_lines(replace(result("posts"), footprint={"load_side": {"tasks": {"bulk-1000": task}}}))

    # posts' bulk-1000 in the fixture: 27,603 docs/s at its median
    assert "at its median rate, 27,603 docs/s, up to 0.55 cores of node CPU and 0.06 cores of the load driver's" in lines(1)
    assert "at its median rate" not in lines(3) and "- bulk-1000: no single resource: ... (0.0200 ms node CPU a document)" in lines(3)


def test_the_why_sentence_names_tasks_held_by_no_single_resource_together_and_leaves_their_evidence_to_the_list():
    none = {"resource": "no single resource", "evidence": "the two nearest their limits: ..."}
    cpu = {"resource": "node CPU", "evidence": "node-1 1.96 of the 2.00 cores it could use"}
    opening = "What held each rate here, as sampled during the race: "
    assert held_sentence({"index API": none, "bulk 10": none}, below=True) == (
        opening + "no single resource in any task (the two nearest their limits in each below)."
    )
    assert held_sentence({"bulk 1000, 16 clients": cpu, "bulk 1": none, "bulk 10": none}, below=True) == (
        opening + "bulk 1000, 16 clients by node CPU (node-1 1.96 of the 2.00 cores it could use); no single resource in the "
        "others (the two nearest their limits in each below)."
    )
    # tasks with no verdict are not claimed; one label is its own
    assert held_sentence({"bulk 1": none, "bulk 10": none}, below=True, unjudged=1).endswith(
        "every task judged (the two nearest their limits in each below)."
    )
    assert held_sentence({"bulk 1": none}, below=True).endswith("no single resource in bulk 1 (the two nearest their limits below).")
    # a report with no list of limits (a race a row) keeps each row's evidence
    assert held_sentence({"3 nodes": none}, "its race") == opening.replace("the race", "its race") + (
        "3 nodes by no single resource (the two nearest their limits: ...)."
    )


def test_study_1_says_where_the_index_apis_time_went_beside_a_bulks_node_cpu():
    split = {"documents": 100_000, "window_ms_per_doc": 0.9995, "node_cpu_ms_per_doc": 0.6432, "node_indexing_ms_per_doc": 0.0564}
    single = {"resource": "no single resource", "evidence": "...", "costs": {**split, "driver_cpu_ms_per_doc": 0.3148}}
    bulk = {"resource": "node CPU", "evidence": "...", "costs": {"documents": 100_000, "node_cpu_ms_per_doc": 0.0279}}
    one = [{"name": "node-1"}]
    tasks = {"index-api": {"limit": single, "nodes": one}, "bulk-1000": {"limit": bulk, "nodes": one}}
    race = replace(result("posts"), footprint={"load_side": {"tasks": tasks}})
    assert request_costs(race) == (
        "Through the index API, over the window (pauses between runs included), a document every 1.00 ms: the node's CPU "
        "0.643 ms, the load driver's CPU 0.315 ms, 0.0415 ms in neither side's CPU (waits on the network and the disk, "
        "pauses between runs, other processes); its shards spent 0.0564 ms of wall-clock indexing it; in bulks of 1,000, the "
        "node's CPU 0.0279 ms a document."
    )
    short = {**single, "costs": {**single["costs"], "documents": 1_000}}  # a 1-s window: no split, no sentence
    assert request_costs(replace(race, footprint={"load_side": {"tasks": {"index-api": {"limit": short, "nodes": one}}}})) == ""
    two = {"index-api": {"limit": single, "nodes": one * 2}}  # two nodes: each copy counted, not the rate's documents
    assert request_costs(replace(race, footprint={"load_side": {"tasks": two}})) == ""


def test_a_race_on_nodes_with_extra_jvm_options_says_so_beside_the_version():
    from ingestlab.report.common import this_machine
    from tests.unit.studies.races import race

    plain = this_machine(result("posts"))
    assert "JVM options" not in plain
    doc = race("posts")
    doc = {**doc, "user-tags": {**(doc.get("user-tags") or {}), "node-java-options": "-XX-TieredStopAtLevel=1"}}
    tagged = this_machine(result("posts", doc))
    assert "; nodes with extra JVM options (INGESTLAB_NODE_JAVA_OPTS; tag node-java-options: -XX-TieredStopAtLevel=1)" in tagged
